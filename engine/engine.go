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
	"regexp"
	"sort"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"

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

// funcMap is the base function map; include is bound per render set.
var funcMap = sync.OnceValue(funcs.New)

// compileTemplates parses partials and section bodies into one set,
// refusing a name defined twice, then runs the static checks.
func compileTemplates(p *pack) (*template.Template, ErrorList) {
	var errs ErrorList
	master := template.New("").Option("missingkey=error").Funcs(funcMap())
	defined := map[string]string{} // template name -> "file:line:col" of its define

	add := func(file, text, sectionID string) {
		where := func(name string) string {
			l, c := definePos(text, name)
			return fmt.Sprintf("%s:%d:%d", file, l, c)
		}
		t, err := template.New(file).Option("missingkey=error").Funcs(funcMap()).Parse(text)
		if err != nil {
			errs = append(errs, parseError(file, sectionID, err))
			return
		}
		for _, tt := range sortedTemplates(t) {
			name := tt.Name()
			if name != file {
				if prev, dup := defined[name]; dup {
					l, c := definePos(text, name)
					errs = append(errs, &Error{Phase: PhaseParse, File: file, Line: l, Col: c, Section: sectionID,
						Err: fmt.Errorf("template %q is defined twice: here and at %s", name, prev)})
					continue
				}
				defined[name] = where(name)
			}
			if tt.Tree == nil {
				continue
			}
			if _, err := master.AddParseTree(name, tt.Tree); err != nil {
				errs = append(errs, &Error{Phase: PhaseParse, File: file, Section: sectionID, Err: err})
			}
		}
	}
	for _, pf := range p.partials {
		add(pf.file, pf.text, "")
	}
	for _, id := range sortedKeys(p.sections) {
		sec := p.sections[id]
		if _, dup := defined[sec.file]; dup {
			errs = append(errs, &Error{Phase: PhaseParse, File: sec.file, Line: 1, Col: 1, Section: id,
				Err: fmt.Errorf("a partial defines a template named like this section file")})
			continue
		}
		add(sec.file, sec.body, id)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	errs = append(errs, checkReferences(master, p)...)
	errs = append(errs, checkTiers(master, p)...)
	if len(errs) > 0 {
		return nil, errs
	}
	for _, sec := range p.sections {
		sec.memo = newSectionMemo(sec)
	}
	return master, nil
}

func sortedTemplates(t *template.Template) []*template.Template {
	list := t.Templates()
	sort.Slice(list, func(i, j int) bool { return list[i].Name() < list[j].Name() })
	return list
}

// parseError converts a text/template parse error.
func parseError(file, sectionID string, err error) *Error {
	e := &Error{Phase: PhaseParse, File: file, Section: sectionID, Err: err}
	if loc, ok := parseTemplateError(err.Error()); ok {
		e.File, e.Line, e.Col = loc.Name, loc.Line, loc.Col
		e.Err = fmt.Errorf("%s", loc.Rest)
	}
	return e
}

// splitLoc reads the "file:line:col" that ErrorContext returns, whose
// column counts from 0, and returns a 1-based column.
func splitLoc(loc string) (line, col int) {
	parts := strings.Split(loc, ":")
	if len(parts) >= 3 {
		fmt.Sscanf(parts[len(parts)-2], "%d", &line)
		fmt.Sscanf(parts[len(parts)-1], "%d", &col)
		col++
	}
	return line, col
}

// definePos finds where {{define "name"}} is written in text.
func definePos(text, name string) (line, col int) {
	re := regexp.MustCompile(`\{\{-?\s*define\s+"` + regexp.QuoteMeta(name) + `"`)
	loc := re.FindStringIndex(text)
	if loc == nil {
		return 0, 0
	}
	before := text[:loc[0]]
	return strings.Count(before, "\n") + 1, loc[0] - (strings.LastIndex(before, "\n") + 1) + 1
}

// nodeError builds an *Error at a parse node of tree.
func nodeError(tree *parse.Tree, node parse.Node, phase Phase, sectionID string, err error) *Error {
	loc, _ := tree.ErrorContext(node)
	file := tree.ParseName
	l, c := splitLoc(loc)
	return &Error{Phase: phase, File: file, Line: l, Col: c, Section: sectionID, Err: err}
}
