package main

import (
	"github.com/sysprompt/sysprompt/engine"
)

// -workspace DIR says where the workspace files are read from; the prompt
// shows the agent's own workspace path, so the same request renders the
// same bytes wherever DIR is. That path is the request's workspace.path;
// a request without one gets the config's workspace for its agent, and
// failing that DIR itself.

// shownWorkspace is the workspace path a request that names none shows:
// the config's workspace for req's agent, else the -workspace folder. A
// config that cannot be resolved for req (an unknown agent) is left to
// the render to report.
func (c *common) shownWorkspace(e *engine.Engine, req engine.Request) string {
	if s, err := e.Resolve(req); err == nil && s.Workspace != "" {
		return s.Workspace
	}
	return c.workspaceAbs
}
