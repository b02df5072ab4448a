// Package engine renders an agent's system prompt from a template pack.
//
// New loads a pack (an fs.FS with sections/ and templates/), validates the
// manifest and every section's front matter, parses every template once
// and checks statically that no stable section reads a volatile request
// field. The result is immutable: Render is safe for concurrent use and
// reads nothing but its request, its options and the filesystems it was
// given. Errors are *Error values (or an ErrorList) that name the file,
// line and column.
//
// A long-lived Engine reuses work between renders whose inputs have not
// changed: the stable tier (memo.go), each dynamic section per the fields
// it reads (dynmemo.go), the bootstrap load and skills walk (their
// packages' caches), and the assembled text of an unchanged turn.
//
// The engine is the pure renderer of SPEC §1; Resolve is the config
// resolver; cmd/render and embedding programs are the runtime adapters
// that gather live facts into a Request.
package engine

import (
	"bytes"
	"fmt"
	"io/fs"
	"sort"
	"sync"
	"text/template"

	"github.com/spf13/afero"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/skills"
	"github.com/sysprompt/sysprompt/funcs"
)

// Engine is a compiled pack plus the options renders share.
type Engine struct {
	pack   *pack
	master *template.Template
	pool   sync.Pool // *renderSet
	opts   options
	subFSs sync.Map // dir -> afero.Fs rooted there (see subFS)
	memo   *stableMemo
	// filesHashes remembers hashes of bootstrap results (see stableKey).
	filesHashes filesHashes
	// catalogSizes remembers measured skills catalogs (see buildSkills).
	catalogSizes sizeMemo
}

type options struct {
	config     *Config
	fs         afero.Fs
	store      bootstrap.Store
	hook       bootstrap.Hook
	cache      *bootstrap.Cache
	includeMax int
	skillHost  SkillHost
	skillRoots []skills.Root
	skillCache *skills.Cache
}

// Option configures an Engine.
type Option func(*options)

// WithConfig sets the agent config the resolver reads (default: none,
// built-in and pack defaults only).
func WithConfig(c *Config) Option { return func(o *options) { o.config = c } }

// WithFS sets the filesystem workspaces are read from (default: none, so
// no bootstrap files are injected). Request.Workspace.Path is a directory
// in it. The engine only reads it.
func WithFS(fsys afero.Fs) Option { return func(o *options) { o.fs = fsys } }

// WithWarningStore sets where seen truncation signatures are kept for the
// "once" warning mode (default: an in-memory store owned by the Engine).
func WithWarningStore(s bootstrap.Store) Option { return func(o *options) { o.store = s } }

// WithBootstrapHook sets the agent:bootstrap hook (default: none).
func WithBootstrapHook(h bootstrap.Hook) Option { return func(o *options) { o.hook = h } }

// WithIncludeDepth bounds include nesting (default funcs.IncludeDepth).
func WithIncludeDepth(n int) Option { return func(o *options) { o.includeMax = n } }

// renderSet is one clone of the template set with its own include
// counter; a render takes one from the pool and uses it alone.
type renderSet struct {
	t       *template.Template
	buf     bytes.Buffer      // one section's output; reused so its capacity carries over
	hasher  keyHasher         // memo-key encoder, reused likewise
	parts   []string          // a layer's section texts, reused likewise
	dynamic []sectionOutcome  // a layer's dynamic outcomes, reused likewise
	infos   []RenderedSection // a layer's section records, reused likewise
	omitted []Omission        // the render's omissions, reused likewise
	req     Request           // the render's request
	state   renderState       // the render's shared state
	fields  fieldHashes       // per-render hashes of the fields dynamic sections read
}

// New loads, validates and compiles a pack.
func New(packFS fs.FS, opts ...Option) (*Engine, error) {
	e := &Engine{memo: newStableMemo()}
	for _, o := range opts {
		o(&e.opts)
	}
	if e.opts.store == nil {
		e.opts.store = bootstrap.NewMemoryStore()
	}
	e.opts.cache = bootstrap.NewCache()
	e.opts.skillCache = &skills.Cache{}
	p, errs := loadPack(packFS)
	if len(errs) > 0 {
		return nil, errs
	}
	e.pack = p
	if err := checkOverlaySettings(e.opts.config, p.overlays); err != nil {
		return nil, ErrorList{err}
	}
	master, errs := compileTemplates(p)
	if len(errs) > 0 {
		return nil, errs
	}
	e.master = master
	e.pool.New = func() any { return e.newRenderSet() }
	if err := e.checkMarkers(); err != nil {
		return nil, ErrorList{err}
	}
	return e, nil
}

// Warnings are non-fatal pack findings (sections listed nowhere).
func (e *Engine) Warnings() []*Error { return e.pack.warnings }

// Harnesses lists the harness names the pack declares, sorted.
func (e *Engine) Harnesses() []string {
	names := make([]string, 0, len(e.pack.harnesses))
	for n := range e.pack.harnesses {
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
	inc := funcs.NewIncluder(clone, e.opts.includeMax)
	clone.Funcs(template.FuncMap{"include": inc.Include})
	return &renderSet{t: clone}
}
