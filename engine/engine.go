// Package engine renders an agent's system prompt from a template pack.
//
// There is one way to render:
//
//	e, err := engine.New(pack, engine.WithFS(vfs.OS()), engine.WithConfig(cfg))
//	res, err := e.Render(ctx, req)
//	prompt := res.Layers[0].Text // stable sections, the boundary, dynamic sections
//
// New loads the pack (an fs.FS with sections/ and templates/; the
// repository's root package embeds the built-in one), validates it and
// parses every template once; a stable section that reads a volatile
// field fails here. The Engine is immutable and Render is safe for
// concurrent use: each turn resolves the settings (package config), reads
// the workspace through one safe path (package vfs), selects and budgets
// the bootstrap files and the skills catalog, and executes the sections
// of the request's harness, the stable ones above the boundary and the
// dynamic ones below it.
//
// Nothing a pack or a request says can hang or exhaust the host: every
// render is held to Limits (output, value sizes, work, steps, depth; see
// WithLimits) and honours its context inside a section, and requests
// are bounded in size and depth before they are parsed.
//
// Errors are *Error values, or an ErrorList from New, naming the file,
// line and column. The tools over a Result (the context report, Explain,
// Compare) are in package report; the types templates see are in package
// view.
//
// A long-lived Engine keeps two caches: what it read from workspaces, by
// file identity (snapshot.go; the files in internal/texts), and each
// section's output and each joined layer, by an explicit key of the
// fields their templates read (memo.go).
package engine

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/template"

	"github.com/spf13/afero"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/internal/dot"
	"github.com/sysprompt/sysprompt/engine/internal/memo"
	"github.com/sysprompt/sysprompt/engine/internal/meter"
	"github.com/sysprompt/sysprompt/engine/internal/pack"
	"github.com/sysprompt/sysprompt/vfs"
)

// Engine is a compiled pack plus the options renders share.
type Engine struct {
	pack       *pack.Pack
	master     *template.Template
	pool       sync.Pool // *renderSet
	opts       options
	outlines   map[string]*Outline    // by harness name
	snap       *snapshot              // cache 1: what was read from workspaces
	memo       *memo.Cache[memoValue] // cache 2: rendered sections and layers
	plans      map[*pack.Section]*sectionPlan
	layerPlans map[*pack.Layer]*layerPlan

	managedSkillDir string   // skills.managedDir, "~" expanded
	extraSkillDirs  []string // skills.load.extraDirs, "~" expanded
}

type options struct {
	config     *config.Config
	fs         afero.Fs
	store      bootstrap.Store
	hook       bootstrap.Hook
	limits     meter.Limits
	skillHost  SkillHost
	skillRoots []bundledRoot
}

// Option configures an Engine.
type Option func(*options)

// WithConfig sets the agent config the resolver reads (default: none,
// built-in and pack defaults only).
func WithConfig(c *config.Config) Option { return func(o *options) { o.config = c } }

// WithFS sets the filesystem workspaces are read from (default: none, so
// no bootstrap files are injected). Request.Workspace.Path (else the
// config's workspace) is a directory in it. The engine only reads it. Use
// vfs.OS() (or an *afero.OsFs) for the real disk: its workspaces are read
// through an os.Root, free of check-then-open races. New refuses another
// wrapper over the disk (afero's ReadOnlyFs over an OsFs, say), which
// could not be. vfs.OSAt(dir) reads the folder dir while the prompt
// shows the workspace path the request
// or config gives, so where the files sit does not change the prompt;
// with no workspace path in either, no workspace is opened and OSAt's
// folder is not read.
func WithFS(fsys afero.Fs) Option { return func(o *options) { o.fs = fsys } }

// WithWarningStore sets where seen truncation signatures are kept for the
// "once" warning mode (default: an in-memory store owned by the Engine).
func WithWarningStore(s bootstrap.Store) Option { return func(o *options) { o.store = s } }

// WithBootstrapHook sets the agent:bootstrap hook (default: none).
func WithBootstrapHook(h bootstrap.Hook) Option { return func(o *options) { o.hook = h } }

// WithLimits sets the bounds every render's templates are held to: each
// section's and the whole prompt's output, the size of any value a
// function returns, the work of all function calls, the templates
// executed and loop iterations run, and how deeply template calls nest.
// A zero field keeps its default (DefaultLimits); the defaults are far
// above what any real prompt needs. New also refuses a pack whose
// constant arguments are sure to pass one ({{ repeat 10000000000 "x" }}).
func WithLimits(l Limits) Option { return func(o *options) { o.limits = l.WithDefaults() } }

// Limits bound what one render's templates may do; see WithLimits.
type Limits = meter.Limits

// LimitError is a render stopped by one of its Limits; the *Error that
// carries it names the section.
type LimitError = meter.LimitError

// Bound names one of the Limits, as a LimitError reports it.
type Bound = meter.Bound

// The bounds a LimitError can name.
const (
	BoundSectionOutput = meter.BoundSectionOutput
	BoundPromptOutput  = meter.BoundPromptOutput
	BoundValue         = meter.BoundValue
	BoundValueDepth    = meter.BoundValueDepth
	BoundWork          = meter.BoundWork
	BoundSteps         = meter.BoundSteps
	BoundDepth         = meter.BoundDepth
)

// DefaultLimits returns the bounds renders are held to unless WithLimits
// says otherwise.
func DefaultLimits() Limits { return meter.DefaultLimits() }

// renderSet is one clone of the template set with its own meter; a
// render takes one from the pool and uses it alone.
type renderSet struct {
	t     *template.Template
	meter *meter.Meter // bounds every execution; writes into buf
	buf   bytes.Buffer // one section's output; reused so its capacity carries over
	key   memo.Encoder // memo-key encoder, reused likewise
	sums  fieldSums    // the key fields' hashes in this render
	parts []string     // a layer's section texts, reused likewise
	keys  []memo.Key   // a layer's section keys, reused likewise
}

// New loads, validates and compiles a pack. It reads packFS from
// several goroutines at once, so packFS must be safe for concurrent use,
// as embed.FS, os.DirFS and vfs.Pack are.
func New(packFS fs.FS, opts ...Option) (*Engine, error) {
	e := &Engine{memo: newMemo(), snap: newSnapshot()}
	e.opts.limits = meter.DefaultLimits()
	for _, o := range opts {
		o(&e.opts)
	}
	if e.opts.store == nil {
		e.opts.store = bootstrap.NewMemoryStore()
	}
	disks := []afero.Fs{e.opts.fs, e.opts.skillHost.FS}
	for _, r := range e.opts.skillRoots {
		if r.fsys == nil {
			return nil, ErrorList{&Error{Phase: PhaseConfig, Err: fmt.Errorf("skills root %q has no filesystem", r.dir)}}
		}
		disks = append(disks, r.fsys)
	}
	for _, fsys := range disks {
		if err := vfs.CheckDisk(fsys); err != nil {
			return nil, ErrorList{&Error{Phase: PhaseConfig, Err: err}}
		}
	}
	if err := e.userSkillDirs(); err != nil {
		return nil, asList(PhaseConfig, err)
	}
	p, errs := pack.Load(packFS)
	if len(errs) > 0 {
		return nil, errs
	}
	e.pack = p
	if err := cmp.Or(e.opts.config.CheckOverlays(pack.Settings(p.Overlays)), e.opts.config.CheckReplace(p.Bootstrap.Files)); err != nil {
		return nil, asList(PhaseConfig, err)
	}
	fields := pack.Fields{All: dot.Keys, Volatile: dot.Volatile, Type: dot.Full.Type,
		MapKeys: map[string][]string{"Pack.Vars": slices.Sorted(maps.Keys(p.Manifest.Vars))}}
	master, errs := pack.Compile(p, fields, e.opts.limits)
	if len(errs) > 0 {
		return nil, errs
	}
	e.master = master
	var err error
	if e.plans, e.layerPlans, err = plans(p); err != nil {
		return nil, ErrorList{&Error{Phase: PhaseParse, Err: err}}
	}
	e.outlines = outlines(p)
	e.pool.New = func() any { return e.newRenderSet() }
	if err := e.checkMarkers(); err != nil {
		return nil, ErrorList{err}
	}
	return e, nil
}

// Resolve returns the settings a render of req would use: the pack's
// templates/defaults.toml < agents.defaults < agents.list[req.Agent] < the
// request, so a runtime can see (and log) what a render will use.
func (e *Engine) Resolve(req Request) (config.Settings, error) {
	return e.resolve(&req)
}

// Warnings are non-fatal pack findings (sections listed nowhere).
func (e *Engine) Warnings() []*Error { return e.pack.Warnings }

// Harnesses lists the harness names the pack declares, sorted.
func (e *Engine) Harnesses() []string {
	names := make([]string, 0, len(e.pack.Harnesses))
	for n := range e.pack.Harnesses {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (e *Engine) newRenderSet() *renderSet {
	clone, err := e.master.Clone()
	if err != nil {
		// Clone fails only after the master has executed, which never happens.
		panic(fmt.Sprintf("engine: cloning the compiled pack: %v", err))
	}
	set := &renderSet{t: clone}
	set.meter = meter.New(e.opts.limits, &set.buf)
	clone.Funcs(set.meter.Funcs(clone))
	return set
}

// partial executes the named helper template (a marker, the skills
// catalog) into buf, which it resets first, held to the section output
// bound.
func (s *renderSet) partial(name string, data any) error {
	s.buf.Reset()
	s.meter.Partial()
	return s.t.ExecuteTemplate(s.meter, name, data)
}

// Outline is how a harness lays out the pack's sections, for tools that
// explain a result: the layers' sections in manifest order, then the
// pack's sections no layer of the harness lists.
type Outline struct {
	Layers []OutlineLayer
	Unused []OutlineSection // sorted by id
}

// OutlineLayer is one layer of a harness and its sections in order.
type OutlineLayer struct {
	Name     string
	Sections []OutlineSection
}

// OutlineSection is a section id, its tier and what its template reads
// of the section data: field paths of at most two names ("Files",
// "Channel.Delivery"; "Files.Injected?" when an if only tests it,
// `Files.Get "BOOTSTRAP.md"` for a call with constants), sorted, or
// anything at all with ReadsAll (the data escapes to a function or to a
// template chosen at run time).
type OutlineSection struct {
	ID       string
	Tier     Tier
	Reads    []string
	ReadsAll bool
}

// ReadsField reports whether the section's template may read the named
// field of the section data, or a part of it.
func (s OutlineSection) ReadsField(name string) bool {
	return s.ReadsAll || slices.ContainsFunc(s.Reads, func(p string) bool { return p == name || strings.HasPrefix(p, name+".") })
}

// Outline returns how the result's harness lays out the pack's sections.
// The copy is the caller's to keep.
func (r *Result) Outline() Outline {
	if r.outline == nil {
		return Outline{}
	}
	o := Outline{Unused: cloneSections(r.outline.Unused), Layers: make([]OutlineLayer, len(r.outline.Layers))}
	for i, l := range r.outline.Layers {
		o.Layers[i] = OutlineLayer{Name: l.Name, Sections: cloneSections(l.Sections)}
	}
	return o
}

func cloneSections(list []OutlineSection) []OutlineSection {
	out := slices.Clone(list)
	for i := range out {
		out[i].Reads = slices.Clone(out[i].Reads)
	}
	return out
}

func outlineSection(sec *pack.Section) OutlineSection {
	return OutlineSection{ID: sec.ID, Tier: sec.Tier, Reads: sec.Reads, ReadsAll: sec.ReadsAll}
}

func outlines(p *pack.Pack) map[string]*Outline {
	out := make(map[string]*Outline, len(p.Harnesses))
	for name, h := range p.Harnesses {
		o := &Outline{}
		used := map[string]bool{}
		for _, l := range h.Layers {
			ol := OutlineLayer{Name: l.Name}
			for _, sec := range l.Sections {
				used[sec.ID] = true
				ol.Sections = append(ol.Sections, outlineSection(sec))
			}
			o.Layers = append(o.Layers, ol)
		}
		for _, id := range slices.Sorted(maps.Keys(p.Sections)) {
			if !used[id] {
				o.Unused = append(o.Unused, outlineSection(p.Sections[id]))
			}
		}
		out[name] = o
	}
	return out
}

// asList wraps err as a one-error ErrorList, keeping its *Error when it
// has one.
func asList(phase Phase, err error) ErrorList {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Phase: phase, Err: err}
	}
	return ErrorList{e}
}
