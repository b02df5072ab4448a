package bootstrap

import "context"

// Entry is one bootstrap file as a hook sees it.
type Entry struct {
	Name string `json:"name"` // identity in the prompt and the report, e.g. "SOUL.md"
	Path string `json:"path"` // workspace-relative path to read; "" means Name
}

// Event is what the agent:bootstrap hook receives: the resolved file list,
// after gates and the session filter, before any file is read. Workspace
// is the agent's own path and need not exist on this machine (vfs.OSAt);
// Dir is where a hook finds the files here.
type Event struct {
	Type      string  `json:"type"`          // always "agent"
	Action    string  `json:"action"`        // always "bootstrap"
	Workspace string  `json:"workspace"`     // the workspace root as shown to the model
	Dir       string  `json:"dir,omitempty"` // the folder the files are read from, when on the real disk
	Session   string  `json:"session"`       // main, subagent, cron or heartbeat
	Files     []Entry `json:"files"`
}

// Hook may add, remove, reorder or redirect bootstrap files by returning a
// new list. Names and paths must stay inside the workspace; one that does
// not fails the Load, because the hook is the user's own code and a silent
// skip would hide their bug.
type Hook func(ctx context.Context, ev Event) ([]Entry, error)
