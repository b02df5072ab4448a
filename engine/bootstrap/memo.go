package bootstrap

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sync/atomic"
	"time"

	"github.com/sysprompt/sysprompt/vfs"
)

// A Load whose options and files are unchanged since an earlier Load over
// the same Cache returns that Load's Result without planning, reading or
// budgeting again: it still looks up every candidate, so an edited,
// added, removed or re-linked file is seen at once (with the read cache's
// caveat that an edit keeping size and modification time is not). Loads
// with a hook are never reused, since the hook may answer differently.

// resultMemoSize bounds how many distinct Loads a Cache remembers.
const resultMemoSize = 8

// versions numbers memoised results process-wide, so a Version never
// means two different Results.
var versions atomic.Uint64

// fileState is what a lookup of a candidate found, as far as its outcome
// depends on it.
type fileState struct {
	real    string
	kind    stateKind
	reason  string // the refusal reason for stateRefused
	size    int64
	modTime time.Time
	mode    fs.FileMode
	info    fs.FileInfo // for os.SameFile: duplicate detection uses file identity
}

type stateKind uint8

const (
	stateFound stateKind = iota
	stateMissing
	stateRefused
)

// stateOf classifies a lookup; ok is false for outcomes that may not repeat
// (an I/O error other than a missing file or a refusal).
func stateOf(real string, info fs.FileInfo, err error) (fileState, bool) {
	if err == nil {
		return fileState{real: real, size: info.Size(), modTime: info.ModTime(), mode: info.Mode(), info: info}, true
	}
	if refused, ok := errors.AsType[*vfs.RefusedError](err); ok {
		return fileState{kind: stateRefused, reason: refused.Reason}, true
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fileState{kind: stateMissing}, true
	}
	return fileState{}, false
}

func (a fileState) equal(b fileState) bool {
	return a.real == b.real && a.kind == b.kind && a.reason == b.reason &&
		a.size == b.size && a.modTime.Equal(b.modTime) && a.mode == b.mode &&
		sameIdentity(a.info, b.info)
}

// sameIdentity reports whether two infos of one path are the same file:
// os.SameFile for infos from the OS (a file replaced by a copy with the
// same size and time is another file, and may no longer duplicate one
// loaded under another name); infos without identity (in-memory
// filesystems, Sys() nil) count as the same.
func sameIdentity(a, b fs.FileInfo) bool {
	if a == nil || b == nil || a.Sys() == nil || b.Sys() == nil {
		return (a == nil) == (b == nil)
	}
	return os.SameFile(a, b)
}

// memoResult is one remembered Load.
type memoResult struct {
	root    string
	opts    Options // as given, with Markers, Cache and Hook cleared
	ordered []candidate
	states  []fileState // one per candidate, in order
	result  Result
}

// memoOptions is opts as far as the result memo compares them, with its
// own copies of the lists and maps: the caller may change theirs later.
func memoOptions(opts Options) Options {
	opts.Markers, opts.Cache, opts.Hook = nil, nil, nil
	opts.Files, opts.Optional = slices.Clone(opts.Files), slices.Clone(opts.Optional)
	opts.DynamicFiles, opts.SubagentFiles = slices.Clone(opts.DynamicFiles), slices.Clone(opts.SubagentFiles)
	opts.Omit, opts.Replace = maps.Clone(opts.Omit), maps.Clone(opts.Replace)
	return opts
}

func sameOptions(a, b *Options) bool {
	return slices.Equal(a.Files, b.Files) && (a.Files == nil) == (b.Files == nil) &&
		slices.Equal(a.Optional, b.Optional) && (a.Optional == nil) == (b.Optional == nil) &&
		slices.Equal(a.DynamicFiles, b.DynamicFiles) && (a.DynamicFiles == nil) == (b.DynamicFiles == nil) &&
		slices.Equal(a.SubagentFiles, b.SubagentFiles) && (a.SubagentFiles == nil) == (b.SubagentFiles == nil) &&
		a.MaxChars == b.MaxChars && a.TotalMaxChars == b.TotalMaxChars &&
		a.Session == b.Session && a.BrandNew == b.BrandNew && a.Heartbeat == b.Heartbeat &&
		a.Startup == b.Startup && a.Today == b.Today && a.Yesterday == b.Yesterday &&
		maps.Equal(a.Omit, b.Omit) && maps.Equal(a.Replace, b.Replace)
}

// reuse returns the Result of a remembered Load with the same root and
// options whose candidates all look the same now.
func (c *Cache) reuse(ws *vfs.Workspace, opts *Options) (Result, bool) {
	if c == nil || opts.Hook != nil {
		return Result{}, false
	}
	c.mu.Lock()
	var m *memoResult
	for _, r := range c.results {
		if r.root == ws.Root() && sameOptions(&r.opts, opts) {
			m = r
			break
		}
	}
	c.mu.Unlock()
	if m == nil {
		return Result{}, false
	}
	// m is never modified after it is stored, so it is read unlocked.
	for i, cand := range m.ordered {
		real, info, err := ws.Lookup(cand.Path)
		s, ok := stateOf(real, info, err)
		if !ok || !s.equal(m.states[i]) {
			return Result{}, false
		}
	}
	r := m.result
	r.Files = slices.Clone(r.Files) // the caller may change its copy
	return r, true
}

// remember stores a Load's outcome, newest first, replacing a remembered
// Load with the same root and options.
func (c *Cache) remember(ws *vfs.Workspace, opts *Options, ordered []candidate, states []fileState, res *Result) {
	if c == nil || opts.Hook != nil {
		return
	}
	res.Version = versions.Add(1)
	m := &memoResult{root: ws.Root(), opts: memoOptions(*opts), ordered: ordered, states: states, result: *res}
	m.result.Files = slices.Clone(res.Files)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.results = slices.DeleteFunc(c.results, func(r *memoResult) bool {
		return r.root == m.root && sameOptions(&r.opts, &m.opts)
	})
	c.results = slices.Insert(c.results, 0, m)
	if len(c.results) > resultMemoSize {
		c.results = c.results[:resultMemoSize]
	}
}
