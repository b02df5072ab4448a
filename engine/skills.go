package engine

import (
	"context"
	"fmt"
	"path"
	"sync"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/sysprompt/sysprompt/engine/skills"
	"github.com/sysprompt/sysprompt/vfs"
)

// catalogPartial is the pack partial that prints the skills catalog. The
// engine also executes it to measure the catalog against its budget.
const catalogPartial = "skills_catalog"

// SkillsView is what templates see of the skills catalog.
type SkillsView struct {
	Listed       []skills.Skill // sorted by name
	Descriptions bool           // false when the budget dropped descriptions
	Note         string         // "N of M skills listed" when skills were dropped
	Eligible     int
}

func newSkillsView(c skills.Catalog) SkillsView {
	return SkillsView{Listed: c.Skills, Descriptions: c.Descriptions, Note: c.Note, Eligible: c.Eligible}
}

// SkillHost holds the host facts skill eligibility needs. The runtime
// adapter fills it (cmd/render from the real host); tests inject them.
type SkillHost struct {
	OS       string                // "linux", "darwin", "windows"
	LookPath func(bin string) bool // is the binary on PATH
	Env      map[string]string     // the process environment, explicitly
	Home     string                // shortened to "~" in locations
}

// WithSkillHost sets the host facts for skill eligibility (default: no OS,
// no binaries, no environment).
func WithSkillHost(h SkillHost) Option { return func(o *options) { o.skillHost = h } }

// WithBundledSkills adds a bundled skills root: dir inside fsys, shown to
// the model as display (default: none).
func WithBundledSkills(fsys afero.Fs, dir, display string) Option {
	return func(o *options) {
		o.skillRoots = append(o.skillRoots, skills.Root{Source: skills.Bundled, FS: fsys, Dir: dir, Display: display})
	}
}

// WithPluginSkills adds the skills root of a plugin: dir inside fsys,
// shown as display. Its skills are eligible only while plugins.<plugin>
// .enabled is true in the config.
func WithPluginSkills(plugin string, fsys afero.Fs, dir, display string) Option {
	return func(o *options) {
		o.skillRoots = append(o.skillRoots, skills.Root{Source: skills.Bundled, FS: fsys, Dir: dir, Display: display, Plugin: plugin})
	}
}

// skillRoots lists the roots for a render: the workspace's skills/, the
// managed directory from config, then the bundled roots.
func (e *Engine) skillRoots(s *Settings) []skills.Root {
	var roots []skills.Root
	if e.opts.fs != nil && s.Workspace != "" {
		roots = append(roots, skills.Root{Source: skills.Workspace, FS: e.subFS(s.Workspace), Dir: "skills", Display: path.Join(s.Workspace, "skills")})
	}
	if e.opts.fs != nil && e.opts.config != nil && e.opts.config.Skills.Managed != "" {
		dir := e.opts.config.Skills.Managed
		roots = append(roots, skills.Root{Source: skills.Managed, FS: e.subFS(dir), Dir: ".", Display: dir})
	}
	return append(roots, e.opts.skillRoots...)
}

// buildSkills discovers, filters and budgets the catalog for one render.
func (e *Engine) buildSkills(ctx context.Context, set *renderSet, req *Request, s *Settings) (skills.Catalog, error) {
	if req.Mode == ModeNone || set.t.Lookup(catalogPartial) == nil {
		return skills.Catalog{}, nil
	}
	roots := e.skillRoots(s)
	if len(roots) == 0 {
		return skills.Catalog{}, nil
	}
	found, err := skills.Discover(ctx, roots, skills.Options{Home: e.opts.skillHost.Home, Cache: e.opts.skillCache})
	if err != nil {
		return skills.Catalog{}, &Error{Phase: PhaseWorkspace, Err: err}
	}
	policy := skills.Policy{
		AllowBundled: nil,
		Allowlist:    s.SkillsAllowlist,
		Plugins:      s.Plugins,
		OS:           e.opts.skillHost.OS,
		LookPath:     e.opts.skillHost.LookPath,
		Env:          e.opts.skillHost.Env,
		Config:       e.opts.config.Lookup,
	}
	if cfg := e.opts.config; cfg != nil {
		policy.AllowBundled = cfg.Skills.AllowBundled
		policy.Entries = map[string]skills.Entry{}
		for k, v := range cfg.Skills.Entries {
			policy.Entries[k] = skills.Entry{Enabled: v.Enabled, Env: v.Env}
		}
	}
	measure := func(list []skills.Skill, descriptions bool, note string) (int, error) {
		// The partial is a pure function of these values (it sees nothing
		// else), so its size is remembered per distinct input.
		k := &set.hasher
		k.reset()
		for _, sk := range list {
			k.string(sk.Name)
			k.string(sk.Description)
			k.string(sk.Location)
			k.string(sk.Version)
		}
		k.string(note)
		if descriptions {
			k.uint(1)
		}
		key := k.sum()
		if n, ok := e.catalogSizes.get(key); ok {
			return n, nil
		}
		set.buf.Reset()
		view := SkillsView{Listed: list, Descriptions: descriptions, Note: note}
		if err := set.t.ExecuteTemplate(&set.buf, catalogPartial, view); err != nil {
			return 0, err
		}
		n := utf8.RuneCount(set.buf.Bytes())
		e.catalogSizes.put(key, n)
		return n, nil
	}
	cat, err := skills.Build(found, policy, skills.Limits{MaxChars: s.MaxSkillsPromptChars, MaxSkills: s.MaxSkillsInPrompt}, measure)
	if err != nil {
		return skills.Catalog{}, &Error{Phase: PhaseExec, File: templatesDir, Err: fmt.Errorf("measuring the skills catalog: %w", err)}
	}
	return cat, nil
}

// subFS returns the filesystem rooted at dir inside the engine's
// filesystem, the same value for the same dir: the skills cache knows a
// root by its filesystem, so a fresh wrapper per render would never hit.
func (e *Engine) subFS(dir string) afero.Fs {
	if fsys, ok := e.subFSs.Load(dir); ok {
		return fsys.(afero.Fs)
	}
	fsys, _ := e.subFSs.LoadOrStore(dir, vfs.Sub(e.opts.fs, dir))
	return fsys.(afero.Fs)
}

// sizeMemo remembers catalog sizes; it forgets everything when full,
// which is simpler than an LRU and fine for a cache this cheap to refill.
type sizeMemo struct {
	mu    sync.Mutex
	sizes map[memoKey]int
}

const sizeMemoMax = 1024

func (m *sizeMemo) get(k memoKey) (int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.sizes[k]
	return n, ok
}

func (m *sizeMemo) put(k memoKey, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sizes == nil || len(m.sizes) >= sizeMemoMax {
		m.sizes = map[memoKey]int{}
	}
	m.sizes[k] = n
}
