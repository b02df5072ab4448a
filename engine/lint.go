package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/spf13/afero"

	"github.com/sysprompt/sysprompt/engine/internal/pack"
)

// LintResult is what Lint found in a pack.
type LintResult struct {
	Errors    ErrorList // load, parse, tier and execution errors; the pack does not render
	Warnings  []*Error  // findings that do not stop a render
	Sections  int       // section files found
	Harnesses int
	Turns     int // turns whose sections were executed
}

// LintRequest is a request Lint executes as it is, besides the ones it
// generates; Name says which in an error (a file name, say).
type LintRequest struct {
	Name    string
	Request Request
}

// MaxLintTurns bounds the turns Lint executes; a pack declaring more
// harnesses than that covers is linted over the first ones, with a
// warning.
const MaxLintTurns = 4096

// The values Lint crosses every harness with: the modes, the chat types
// and the session kinds a request may give.
var (
	lintModes    = []Mode{ModeFull, ModeMinimal, ModeNone}
	lintChats    = []string{"direct", "group", "channel"}
	lintSessions = []string{"main", "subagent", "cron", "heartbeat"}
)

// lintWorkspace is where Lint's in-memory workspace is.
const lintWorkspace = "/lint/workspace"

// Lint validates a pack the way New does, and then executes what a render
// would: every section of every harness, in every mode, chat type and
// session kind, over a request that sets every field and one that sets
// none, with a workspace holding every bootstrap file and a skill, and
// over the requests given as they are (those naming a harness the pack
// does not declare are skipped). Each execution error is reported
// once, at its position, naming the first turn that met it. It also
// returns the warnings New tolerates, such as a section file listed in no
// layer.
func Lint(packFS fs.FS, requests ...LintRequest) LintResult {
	e, err := New(packFS)
	if err != nil {
		// New reports every load problem as an ErrorList.
		list, ok := err.(ErrorList)
		if !ok {
			list = ErrorList{{Err: err}}
		}
		return LintResult{Errors: list}
	}
	e.opts.fs = lintFiles(e.pack.Bootstrap.Files)
	res := LintResult{Warnings: e.pack.Warnings, Sections: len(e.pack.Sections), Harnesses: len(e.pack.Harnesses)}
	seen, spent := map[string]bool{}, map[*pack.Section]bool{}
	run := func(name string, req Request) {
		res.Turns++
		// A given request names only what it sets; the rest is defaults.
		var turn strings.Builder
		for _, kv := range [][2]string{{"mode", string(req.Mode)}, {"harness", req.Harness}, {"chat", req.ChatType}, {"session", req.SessionKind}, {"request", name}} {
			if kv[1] != "" {
				fmt.Fprintf(&turn, "%s=%s ", kv[0], kv[1])
			}
		}
		for _, err := range e.lintTurn(req, spent) {
			if key := err.Error(); !seen[key] {
				seen[key] = true
				c := *err
				c.Err = fmt.Errorf("%s: %w", strings.TrimSpace(turn.String()), err.Err)
				res.Errors = append(res.Errors, &c)
			}
		}
	}
	generated := []struct {
		name string
		req  Request
	}{{"generated-full", e.fullRequest()}, {"generated-empty", Request{}}}
	sweep := func() {
		for _, h := range e.Harnesses() {
			for _, mode := range lintModes {
				for _, chat := range lintChats {
					for _, session := range lintSessions {
						if res.Turns+len(generated)+1 > MaxLintTurns { // +1: a light cron run
							res.Warnings = append(res.Warnings, &Error{Phase: PhaseExec,
								Err: fmt.Errorf("lint executed the first %d turns only; harnesses from %q on were not executed", res.Turns, h)})
							return
						}
						for _, g := range generated {
							req := g.req
							req.Mode, req.Harness, req.ChatType, req.SessionKind = mode, h, chat, session
							run(g.name, req)
							// Only a cron run may be light.
							if req.LightContext = session == "cron" && g.name == "generated-full"; req.LightContext {
								run("generated-light", req)
							}
						}
					}
				}
			}
		}
	}
	sweep()
	for _, r := range requests {
		req := r.Request
		if _, ok := e.pack.Harnesses[cmp.Or(req.Harness, DefaultHarness)]; !ok {
			continue // an example for a harness this pack does not declare
		}
		if req.Workspace.Path != "" {
			req.Workspace.Path = lintWorkspace // the files are Lint's own
		}
		run(r.Name, req)
	}
	// In file order, whichever turn met them first.
	slices.SortStableFunc(res.Errors, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	return res
}

// lintTurn executes every section of req's harness that req's mode
// renders, and returns every error, not only the first. A section that
// passed one of the Limits is marked spent and not executed again: it
// cost up to the limit, and its error is known.
func (e *Engine) lintTurn(req Request, spent map[*pack.Section]bool) []*Error {
	set := e.pool.Get().(*renderSet)
	defer e.pool.Put(set)
	ctx := context.Background()
	set.meter.Start(ctx)
	st, h, _, err := e.begin(ctx, set, &req)
	if err != nil {
		return []*Error{asList(PhaseRequest, err)[0]}
	}
	var errs []*Error
	for _, ly := range h.Layers {
		for _, sec := range ly.Sections {
			if spent[sec] {
				continue
			}
			set.meter.Start(ctx) // each section on its own budget: a render stops at the first error
			if key, o := st.key(sec); o.pending {
				if _, err := st.run(sec, key); err != nil {
					errs = append(errs, asList(PhaseExec, err)[0])
					_, limit := errors.AsType[*LimitError](err)
					spent[sec] = limit
				}
			}
		}
	}
	return errs
}

// lintFiles is a workspace holding every bootstrap file of the pack and
// one skill, so the sections that print them execute.
func lintFiles(names []string) afero.Fs {
	fsys := afero.NewMemMapFs()
	for _, name := range names {
		afero.WriteFile(fsys, path.Join(lintWorkspace, name), []byte("# "+name+"\nLint's text of "+name+".\n"), 0o644)
	}
	afero.WriteFile(fsys, path.Join(lintWorkspace, "skills/lint-skill/SKILL.md"),
		[]byte("---\nname: lint-skill\ndescription: A skill lint lists.\n---\n\n# Lint skill\n"), 0o644)
	return fsys
}

// fullRequest is a request that sets every field Lint can set for any
// mode, harness, chat type and session kind, with values a real runtime
// sends: every tool of the pack's table and one more, the first channel
// of its catalog.
func (e *Engine) fullRequest() Request {
	yes := true
	tools := []Tool{{Name: "lint_custom_tool", Description: "A tool the pack's table does not list.\nIts second line."}}
	for _, t := range e.pack.Tools {
		tools = append(tools, Tool{Name: t.Name, Description: t.Summary})
	}
	channel := "telegram"
	if len(e.pack.Channels) > 0 {
		channel = e.pack.Channels[0].ID
	}
	return Request{
		Agent:        "lint",
		Session:      Session{Key: "agent:lint:" + channel + ":direct:peer", ID: "lint-session", Reset: true},
		Tools:        slices.Clip(tools),
		Channel:      Channel{ID: channel, Delivery: "automatic", Capabilities: []string{"inlineButtons", "reactions"}, SilentReplies: "generic"},
		Runtime:      Runtime{Host: "host", OS: "linux", Arch: "arm64", Version: "1.0.0", Provider: "anthropic", Model: "anthropic/claude-sonnet-4-5", DefaultModel: "anthropic/claude-opus-4", RepoRoot: "/repo", Shell: "bash", Thinking: "low", Reasoning: "on"},
		Workspace:    Workspace{Path: lintWorkspace, BrandNew: &yes},
		Docs:         Docs{Path: "/docs", URL: "https://docs.example.org", Source: "https://source.example.org"},
		Sandbox:      Sandbox{Enabled: true, Workdir: "/sandbox", MountSource: "/host/workspace", WorkspaceAccess: "rw", Elevated: true, ElevatedFull: true},
		Date:         "2026-11-30T09:15:00Z",
		Timezone:     "Europe/Lisbon",
		Heartbeat:    Heartbeat{Prompt: "Read HEARTBEAT.md and act on it."},
		Owners:       []string{"telegram:1"},
		TTSHint:      "Speak briefly.",
		ModelAliases: map[string]string{"fast": "anthropic/claude-haiku-4-5"},
		Reactions:    Reactions{Level: "minimal"},

		ElevatedLevel:     "on",
		ExtraSystemPrompt: "Text the caller adds for this turn.",
		Contributions:     []Contribution{{StablePrefix: "A provider's stable text.", DynamicSuffix: "A provider's dynamic text."}},
	}
}
