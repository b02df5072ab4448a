// Package bootstrap decides which workspace files (AGENTS.md, SOUL.md, …) go
// into an agent's system prompt and what of each: it applies the session and
// workspace gates, the [bootstrap.replace] table and the agent:bootstrap
// hook, reads the files through a [Reader] (a vfs.Workspace, or the engine's
// snapshot in front of one) with bounded memory, fits them
// into the per-file and total budgets with truncation markers, and reports
// what happened to every file. It renders no templates and knows no
// sections: the engine hands the Result to both.
//
// Rules that are ours to pick, in short:
//   - Content is normalised before it is counted: CRLF becomes LF and
//     trailing white space is trimmed. Budgets count code points.
//   - Stable files are charged first, dynamic ones (those listed in
//     Options.DynamicFiles, and startup daily memory) against what is left,
//     so a dynamic file can never change what a stable one gets.
//   - A required file that is missing, refused (escaping path, symlink out
//     of the workspace), a directory or unreadable becomes MISSING with the
//     missing marker and the reason; an optional one is absent when missing
//     and SKIPPED with the reason otherwise.
//   - A file reached under two names (a hard link, an in-workspace symlink,
//     MEMORY.md and memory.md on a case-insensitive disk) is injected once,
//     under the first name.
//   - A cut keeps 70% of the room left by the marker from the head and 20%
//     from the tail; the marker counts against the budget. When not even the
//     marker fits, as much of the marker as fits is injected and nothing of
//     the file. Missing and binary markers are charged against the total
//     and cut to what remains of it.
//   - Files longer than twice the per-file budget are streamed, keeping only
//     head and tail; their RawChars still counts CRLFs in the unseen middle.
package bootstrap

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/sysprompt/sysprompt/vfs"
)

// Status is what happened to a bootstrap file.
type Status string

// File statuses, as the context report prints them.
const (
	StatusOK        Status = "OK"        // injected whole
	StatusTruncated Status = "TRUNCATED" // injected with head, marker and tail
	StatusMissing   Status = "MISSING"   // required and not readable; the missing marker stands in
	StatusSkipped   Status = "SKIPPED"   // readable but not injected; see Reason
)

// Cause names a budget that cut a file.
type Cause string

// Truncation causes.
const (
	CausePerFile Cause = "per-file limit"
	CauseTotal   Cause = "total limit"
)

// minStart is the remaining total below which no further file starts.
const minStart = 64

// Reasons for SKIPPED and MISSING files that are not refusals or I/O errors.
const (
	ReasonEmpty     = "empty"
	ReasonBinary    = "binary file"
	ReasonExhausted = "total budget exhausted"
	ReasonDirectory = "directory"
	ReasonMissing   = "not found"
)

// File is the outcome for one bootstrap file.
type File struct {
	Name          string // identity as listed: "AGENTS.md", "memory/2026-11-29.md"
	Path          string // workspace-relative path read; differs from Name after a replace or hook
	Display       string // Path under the workspace root, for headings and markers
	Content       string // injected text; "" when nothing is injected
	RawChars      int    // code points of the normalised file
	InjectedChars int    // code points of Content as the prompt prints it (a boundary marker in it as its replacement)
	Status        Status
	Causes        []Cause // the budgets that cut the file (TRUNCATED, or SKIPPED for the total), in that order
	NearLimit     bool    // RawChars >= 85% of the per-file budget
	Reason        string  // why MISSING or SKIPPED
	Dynamic       bool    // goes below the cache boundary
	Startup       bool    // a daily memory file added on a /new or /reset turn
	Private       bool    // a private file this session may not see (Reason says so)
}

// Markers renders the text injected in place of file content. The engine
// implements it with template partials; outputs must depend only on the
// arguments. display is File.Display.
type Markers interface {
	Missing(display string) string // e.g. "[MISSING] Expected at: /ws/SOUL.md"
	// Truncated goes between head and tail, so it carries its own line
	// breaks; kept and raw are code points.
	Truncated(display string, kept, raw int) string
	Binary(display string) string
}

// Options says which files to consider and how to budget them. The caller
// supplies the file lists and the budgets; the engine takes them from the
// template pack. A nil list is the same as an empty one and means none.
type Options struct {
	// Files are the candidate names in order. With none, only startup
	// daily memory and what the hook adds are loaded.
	Files []string
	// Optional names are silently absent when missing; other names get the
	// missing marker.
	Optional []string
	// DynamicFiles go below the cache boundary.
	DynamicFiles []string
	// SubagentFiles are all a sub-agent session gets, CronFiles all a
	// cron session gets; none means such a session gets no files.
	SubagentFiles []string
	CronFiles     []string
	// Private names are the owner's own notes (MEMORY.md; a name ending
	// in "/" is a folder, such as the daily notes in "memory/"): they are
	// read for the report but never injected into a Shared session, a
	// sub-agent or a cron run, whatever a replace or the hook does. A file
	// counts as private by its name, by the path it is read from, or by
	// being the same file as a private one (its inode, where the
	// filesystem has them, or its text).
	Private []string
	Shared  bool // the session is a group or channel chat

	// Budgets in code points; both are required and must be positive.
	MaxChars      int // per file
	TotalMaxChars int // all files together
	Bound         int // no budget counts past this (0: none)

	Session   string // "main" (also ""), "subagent", "cron" or "heartbeat"
	Setup     Setup  // what to do with BOOTSTRAP.md, the setup file
	Heartbeat bool   // heartbeats on and includeSystemPromptSection: HEARTBEAT.md is allowed

	// Startup marks a /new or /reset turn: memory/<Yesterday>.md then
	// memory/<Today>.md are added (chronological order), optional and
	// dynamic. Dates are "YYYY-MM-DD" in the user's zone.
	Startup          bool
	Today, Yesterday string

	// Omit lists names that are read (for the report) but not injected or
	// charged, with the reason, e.g. AGENTS.md under a harness that finds
	// it itself.
	Omit map[string]string
	// Replace redirects names to other workspace paths
	// ([bootstrap.replace] "SOUL.md" = "personas/pirate.md"); names not in
	// the list are ignored. A target outside the workspace is an error.
	Replace map[string]string
	Hook    Hook // optional agent:bootstrap hook, run after Replace

	Markers Markers // required
	// Boundary is the pack's cache boundary marker. The prompt prints it
	// in a file as tidy.BoundaryRemoved, so a file is charged and cut by
	// that printed length.
	Boundary string
}

// SetupFile is the workspace's setup checklist: while it has content,
// setup is pending.
const SetupFile = "BOOTSTRAP.md"

// Setup says what Load does with SetupFile.
type Setup int

const (
	// SetupSkip leaves it out unread: setup is done, or the run is one
	// that never handles it (a heartbeat, cron or sub-agent run).
	SetupSkip Setup = iota
	// SetupInject reads it and injects it when it has content.
	SetupInject
	// SetupDetect reads it, to tell whether setup is pending, but never
	// injects it: the run cannot finish setup (it has no way to read or
	// write files).
	SetupDetect
)

// ReasonSetupDetect is why SetupDetect leaves the file out.
const ReasonSetupDetect = "setup is pending, but this run cannot finish it"

// ReasonPrivate is why a private file is left out of a session.
const ReasonPrivate = "private: only the owner's own sessions get it, not group or channel chats, sub-agents or cron runs"

// Reader is what Load reads files through: a *vfs.Workspace, or a
// snapshot in front of one that returns the same Text for the same file.
type Reader interface {
	Root() string
	Display(name string) string
	ReadText(name string, keep vfs.Keep) (vfs.Text, error)
}

// Result is the outcome of Load.
type Result struct {
	Files          []File // stable files in list order, then dynamic ones
	MaxChars       int    // the per-file budget, Options.MaxChars
	TotalMaxChars  int    // the total budget, Options.TotalMaxChars
	TotalRaw       int
	TotalInjected  int
	TotalNearLimit bool // TotalInjected >= 85% of TotalMaxChars
	// Setup is Options.Setup; SetupPending is true when SetupFile was
	// read and has content.
	Setup        Setup
	SetupPending bool
	// Signature identifies what was cut (limits, and name, raw and
	// injected sizes and cause of each cut file) as deterministic JSON;
	// "" when nothing was cut. See ShouldWarn.
	Signature string
}

// Stable returns the files above the cache boundary.
func (r Result) Stable() []File {
	return slices.DeleteFunc(slices.Clone(r.Files), func(f File) bool { return f.Dynamic })
}

// Dynamic returns the files below the cache boundary.
func (r Result) Dynamic() []File {
	return slices.DeleteFunc(slices.Clone(r.Files), func(f File) bool { return !f.Dynamic })
}

// Load resolves, reads and budgets the bootstrap files of ws. Bad options,
// a failing hook and a hook or replace path outside the workspace are
// errors; a problem with one file is reported on that File instead.
func Load(ctx context.Context, ws Reader, opts Options) (Result, error) {
	if ws == nil {
		return Result{}, errors.New("bootstrap: no workspace")
	}
	if opts.Markers == nil {
		return Result{}, errors.New("bootstrap: Options.Markers is nil")
	}
	if opts.MaxChars <= 0 {
		return Result{}, fmt.Errorf("bootstrap: Options.MaxChars must be positive, got %d", opts.MaxChars)
	}
	if opts.TotalMaxChars <= 0 {
		return Result{}, fmt.Errorf("bootstrap: Options.TotalMaxChars must be positive, got %d", opts.TotalMaxChars)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("bootstrap: %w", err)
	}
	p := newPlan(opts)
	list, err := p.candidates()
	if err != nil {
		return Result{}, err
	}
	if opts.Hook != nil {
		if list, err = p.runHook(ctx, ws, list); err != nil {
			return Result{}, err
		}
	}
	// Stable files are charged first, whatever the list order.
	slices.SortStableFunc(list, func(a, b candidate) int { return cmp.Compare(b2i(a.dynamic), b2i(b.dynamic)) })
	l := &loader{ws: ws, plan: p, remaining: p.total, loaded: make([]loaded, 0, len(list))}
	l.prepared, _ = ws.(TextReader)
	l.private, l.privateIDs = p.privateTexts(l), p.privateFolderFiles(ws, list)
	res := Result{MaxChars: p.maxChars, TotalMaxChars: p.total, Setup: opts.Setup, Files: make([]File, 0, len(list))}
	for _, c := range list {
		if err := ctx.Err(); err != nil {
			return Result{}, fmt.Errorf("bootstrap: %w", err)
		}
		f, ok, err := l.load(c)
		if err != nil {
			return Result{}, err
		}
		if !ok {
			continue
		}
		if f.Name == SetupFile && f.RawChars > 0 && f.Status != StatusMissing {
			res.SetupPending = true
		}
		res.Files = append(res.Files, f)
		res.TotalRaw += f.RawChars
		res.TotalInjected += f.InjectedChars
	}
	res.TotalNearLimit = res.TotalInjected >= nearLimit(opts.TotalMaxChars)
	res.Signature = signature(opts.MaxChars, opts.TotalMaxChars, res.Files)
	return res, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nearLimit is the size at which a budget counts as nearly used: 85%,
// rounded up.
func nearLimit(budget int) int {
	return budget - share(budget, 15)
}
