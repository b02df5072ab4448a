package main

import (
	"github.com/sysprompt/sysprompt/engine"
)

// shownWorkspace is the workspace path the prompt shows for a request that
// names none: the config's workspace for req's agent, else the -workspace
// folder. -workspace DIR only says where the files are read from, so a
// request that names its path renders the same bytes wherever DIR is. A
// config that cannot be resolved for req (an unknown agent) is left to the
// render to report.
func (c *common) shownWorkspace(e *engine.Engine, req engine.Request) string {
	if s, err := e.Resolve(req); err == nil && s.Workspace != "" {
		return s.Workspace
	}
	return c.workspaceAbs
}
