// Package lintturns is what render lint executes a pack over: every
// harness crossed with every mode, chat type and session kind, each with
// a request that sets every field and one that sets none, and an
// in-memory workspace holding every bootstrap file and a skill.
package lintturns

import (
	"iter"
	"path"
	"slices"
	"strings"

	"github.com/spf13/afero"

	"github.com/sysprompt/sysprompt/engine/internal/pack"
	"github.com/sysprompt/sysprompt/engine/request"
)

// Workspace is where the workspace of Files is.
const Workspace = "/lint/workspace"

// The values every harness is crossed with: the modes, the chat types
// and the session kinds a request may give.
var (
	modes    = []request.Mode{request.ModeFull, request.ModeMinimal, request.ModeNone}
	chats    = []string{"direct", "group", "channel"}
	sessions = []string{"main", "subagent", "cron", "heartbeat"}
)

// Turn is one request lint executes, and the name its errors give it.
type Turn struct {
	Name    string // generated-full, generated-empty, generated-light, or a file's name
	Request request.Request
}

// Label names the turn in an error: the fields that pick the
// combination, then the request. A given request names only what it
// sets; the rest is defaults.
func (t Turn) Label() string {
	r := t.Request
	var parts []string
	for _, kv := range [][2]string{{"mode", string(r.Mode)}, {"harness", r.Harness}, {"chat", r.ChatType}, {"session", r.SessionKind}, {"request", t.Name}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+"="+kv[1])
		}
	}
	return strings.Join(parts, " ")
}

// Sweep yields the generated turns of every harness, in order: per
// combination the full request, the empty one and, for a cron run, the
// full one light (only a cron run may be).
func Sweep(p *pack.Pack, harnesses []string) iter.Seq[Turn] {
	full := fullRequest(p)
	return func(yield func(Turn) bool) {
		for _, h := range harnesses {
			for _, mode := range modes {
				for _, chat := range chats {
					for _, session := range sessions {
						for _, t := range []Turn{{"generated-full", full}, {"generated-empty", request.Request{}}} {
							t.Request.Mode, t.Request.Harness, t.Request.ChatType, t.Request.SessionKind = mode, h, chat, session
							if !yield(t) {
								return
							}
							if session == "cron" && t.Name == "generated-full" {
								t.Name, t.Request.LightContext = "generated-light", true
								if !yield(t) {
									return
								}
							}
						}
					}
				}
			}
		}
	}
}

// Files is a workspace at Workspace holding each of the bootstrap files
// names and one skill, so the sections that print them execute.
func Files(names []string) afero.Fs {
	fsys := afero.NewMemMapFs()
	for _, name := range names {
		afero.WriteFile(fsys, path.Join(Workspace, name), []byte("# "+name+"\nLint's text of "+name+".\n"), 0o644)
	}
	afero.WriteFile(fsys, path.Join(Workspace, "skills/lint-skill/SKILL.md"),
		[]byte("---\nname: lint-skill\ndescription: A skill lint lists.\n---\n\n# Lint skill\n"), 0o644)
	return fsys
}

// fullRequest is a request that sets every field lint does not sweep,
// with values a real runtime sends: every tool of the pack's table and
// one more, the first channel of its catalog.
func fullRequest(p *pack.Pack) request.Request {
	yes := true
	tools := []request.Tool{{Name: "lint_custom_tool", Description: "A tool the pack's table does not list.\nIts second line."}}
	for _, t := range p.Tools {
		tools = append(tools, request.Tool{Name: t.Name, Description: t.Summary})
	}
	channel := "telegram"
	if len(p.Channels) > 0 {
		channel = p.Channels[0].ID
	}
	return request.Request{
		Agent:        "lint",
		Session:      request.Session{Key: "agent:lint:" + channel + ":direct:peer", ID: "lint-session", Reset: true},
		Tools:        slices.Clip(tools),
		Channel:      request.Channel{ID: channel, Delivery: "automatic", Capabilities: []string{"inlineButtons", "reactions"}, SilentReplies: "generic"},
		Runtime:      request.Runtime{Host: "host", OS: "linux", Arch: "arm64", Version: "1.0.0", Provider: "anthropic", Model: "anthropic/claude-sonnet-4-5", DefaultModel: "anthropic/claude-opus-4", RepoRoot: "/repo", Shell: "bash", Thinking: "low", Reasoning: "on"},
		Workspace:    request.Workspace{Path: Workspace, BrandNew: &yes},
		Docs:         request.Docs{Path: "/docs", URL: "https://docs.example.org", Source: "https://source.example.org"},
		Sandbox:      request.Sandbox{Enabled: true, Workdir: "/sandbox", MountSource: "/host/workspace", WorkspaceAccess: "rw", Elevated: true, ElevatedFull: true},
		Date:         "2026-11-30T09:15:00Z",
		Timezone:     "Europe/Lisbon",
		Heartbeat:    request.Heartbeat{Prompt: "Read HEARTBEAT.md and act on it."},
		Owners:       []string{"telegram:1"},
		TTSHint:      "Speak briefly.",
		ModelAliases: map[string]string{"fast": "anthropic/claude-haiku-4-5"},
		Reactions:    request.Reactions{Level: "minimal"},

		ElevatedLevel:     "on",
		ExtraSystemPrompt: "Text the caller adds for this turn.",
		Contributions:     []request.Contribution{{StablePrefix: "A provider's stable text.", DynamicSuffix: "A provider's dynamic text."}},
	}
}
