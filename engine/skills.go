package engine

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/internal/dot"
	"github.com/sysprompt/sysprompt/engine/internal/memo"
	"github.com/sysprompt/sysprompt/engine/internal/pack"
	"github.com/sysprompt/sysprompt/engine/skills"
	"github.com/sysprompt/sysprompt/engine/view"
	"github.com/sysprompt/sysprompt/vfs"
)

// catalogPartial is the pack partial that prints the skills catalog. The
// engine also executes it to measure the catalog against its budget.
const catalogPartial = "skills_catalog"

// sessionSkills is a built catalog: what the report sees, what templates
// see, and the key that stands for the view in the section memo.
type sessionSkills struct {
	catalog skills.Catalog
	size    CatalogSize
	view    view.SkillsView
	key     memo.Key
	dirs    []string // the roots' folders on the real disk
}

// bytes is about what a built catalog holds; skills.Catalog.Bytes says how.
func (s sessionSkills) bytes() int {
	return s.catalog.Bytes() + len(s.size.Text) + len(s.view.Catalog) + 8*len(s.size.Blocks)
}

// CatalogSize is what the skills catalog costs, measured with the pack's
// catalog partial when the catalog is built, so a report never has to
// find the catalog in the prompt text.
type CatalogSize struct {
	Text  string // the catalog as the partial printed it, trimmed
	Chars int    // Text's length in characters
	// Blocks[i] is the characters Result.Skills.Skills[i] adds to the
	// catalog: a catalog listing that skill alone, less an empty one.
	Blocks []int
}

// SkillHost holds the host facts skill discovery and eligibility need.
// The runtime adapter fills it (cmd/render from the real host); tests
// inject them. The engine never looks at the environment or the real home
// on its own.
type SkillHost struct {
	OS       string                // "linux", "darwin", "windows"
	LookPath func(bin string) bool // is the binary on PATH
	Env      map[string]string     // the process environment, explicitly
	// Home is the user's home directory, absolute (New refuses a relative
	// one): ~/.agents/skills is read below it, "~" in
	// skills.load.extraDirs expands to it, and locations under it are
	// shown starting with "~". Empty: none of these.
	Home string
	// FS is where the user's own skills folders are read from:
	// ~/.agents/skills, skills.managedDir and skills.load.extraDirs, each
	// opened as a root no read leaves. Nil means the WithFS filesystem.
	FS afero.Fs
}

// WithSkillHost sets the host facts for skill eligibility (default: no OS,
// no binaries, no environment).
func WithSkillHost(h SkillHost) Option { return func(o *options) { o.skillHost = h } }

// WithBundledSkills adds a bundled skills root: dir inside fsys, shown to
// the model as display (default: none).
func WithBundledSkills(fsys afero.Fs, dir, display string) Option {
	return func(o *options) {
		o.skillRoots = append(o.skillRoots, bundledRoot{fsys: fsys, dir: dir, display: display})
	}
}

// WithPluginSkills adds the skills root of a plugin: dir inside fsys,
// shown as display. Its skills are eligible only while plugins.<plugin>
// .enabled is true in the config.
func WithPluginSkills(plugin string, fsys afero.Fs, dir, display string) Option {
	return func(o *options) {
		o.skillRoots = append(o.skillRoots, bundledRoot{fsys: fsys, dir: dir, display: display, plugin: plugin})
	}
}

// SkillsChanged tells the Engine that skills folders changed on disk:
// every session's catalog is rebuilt on its next render, where otherwise
// a session keeps the one it started with. A watch on Result.SkillDirs
// (engine/host's Watch, say) is what would call it.
func (e *Engine) SkillsChanged() { e.snap.changed.Add(1) }

// bundledRoot is a skills root the embedding program adds.
type bundledRoot struct {
	fsys                 afero.Fs
	dir, display, plugin string
}

// openedRoots are the skills roots of one discovery.
type openedRoots struct {
	roots      []skills.Root
	dirs       []string // the roots' folders on the real disk, for a watch
	workspaces []*vfs.Workspace
}

func (o *openedRoots) close() {
	for _, w := range o.workspaces {
		w.Close()
	}
}

// userSkillDirs expands "~" in the config's skills folders once, against
// the host's home.
func (e *Engine) userSkillDirs() (err error) {
	home := e.opts.skillHost.Home
	if home != "" && !path.IsAbs(filepath.ToSlash(home)) && !filepath.IsAbs(home) {
		// A relative one would be read from wherever the process runs.
		return fmt.Errorf("skill host: home %q is not an absolute path", home)
	}
	if e.managedSkillDir, err = e.opts.config.ManagedSkillDir(home); err != nil {
		return err
	}
	e.extraSkillDirs, err = e.opts.config.ExtraSkillDirs(home)
	return err
}

// hostFS is the filesystem the user's own skills folders are read from:
// SkillHost.FS, else the WithFS one, whole (vfs.OSAt would read its
// workspace folder in place of each).
func (e *Engine) hostFS() afero.Fs {
	switch {
	case e.opts.skillHost.FS != nil:
		return e.opts.skillHost.FS
	case vfs.IsOS(e.opts.fs):
		return vfs.OS()
	}
	return e.opts.fs
}

// hostSkillDirs are the folders read through hostFS, by source, in
// precedence order: ~/.agents/skills, the managed folder, the extra ones.
func (e *Engine) hostSkillDirs() (dirs []string, sources []skills.Source) {
	if e.hostFS() == nil {
		return nil, nil
	}
	if home := e.opts.skillHost.Home; home != "" {
		// Trimmed of its separators, a home of "/" still holds .agents.
		dirs, sources = append(dirs, strings.TrimRight(home, `/\`)+"/.agents/skills"), append(sources, skills.PersonalAgents)
	}
	if e.managedSkillDir != "" {
		dirs, sources = append(dirs, e.managedSkillDir), append(sources, skills.Managed)
	}
	for _, d := range e.extraSkillDirs {
		dirs, sources = append(dirs, d), append(sources, skills.Extra)
	}
	return dirs, sources
}

// openSkillRoots opens the roots for one discovery: the workspace's
// skills/ and .agents/skills (read through ws, so they cannot lead out of
// the workspace), the user's folders (see hostSkillDirs), then the bundled
// roots. Discover orders them by source.
func (e *Engine) openSkillRoots(s *config.Settings, ws *vfs.Workspace) *openedRoots {
	o := &openedRoots{}
	if ws != nil {
		for _, r := range []struct {
			src skills.Source
			dir string
		}{{skills.Workspace, "skills"}, {skills.ProjectAgents, ".agents/skills"}} {
			display := path.Join(s.Workspace, r.dir)
			o.roots = append(o.roots, skills.Root{Source: r.src, Files: ws, Dir: r.dir, Display: display})
			// Watched where the files are, which need not be the path shown
			// (vfs.OSAt).
			if disk := ws.DiskDir(); disk != "" {
				o.dirs = append(o.dirs, filepath.Join(filepath.FromSlash(disk), filepath.FromSlash(r.dir)))
			}
		}
	}
	dirs, sources := e.hostSkillDirs()
	// A folder named twice (managedDir = "~/.agents/skills", say) is read
	// once, for the root that wins: read again, its skills would be
	// reported as shadowed by themselves.
	read := map[string]bool{}
	if vfs.IsOS(e.hostFS()) {
		for _, d := range o.dirs {
			read[d] = true
		}
	}
	for i, dir := range dirs {
		disk := filepath.Clean(filepath.FromSlash(dir))
		if read[disk] {
			continue
		}
		read[disk] = true
		o.roots = append(o.roots, skills.Root{Source: sources[i], Files: o.open(e.hostFS(), dir), Dir: ".", Display: dir})
		if vfs.IsOS(e.hostFS()) {
			o.dirs = append(o.dirs, disk)
		}
	}
	for _, b := range e.opts.skillRoots {
		o.roots = append(o.roots, skills.Root{Source: skills.Bundled, Files: o.open(b.fsys, b.dir), Dir: ".", Display: cmp.Or(b.display, b.dir), Plugin: b.plugin})
	}
	return o
}

func (o *openedRoots) open(fsys afero.Fs, dir string) *vfs.Workspace {
	w := vfs.OpenWorkspace(fsys, dir)
	o.workspaces = append(o.workspaces, w)
	return w
}

// hasSkillRoots reports whether a discovery would search any root.
func (e *Engine) hasSkillRoots(ws *vfs.Workspace) bool {
	dirs, _ := e.hostSkillDirs()
	return ws != nil || len(dirs) > 0 || len(e.opts.skillRoots) > 0
}

// buildSkills returns the skills catalog of the render's session (see
// snapshot.go for when it is rebuilt) and the key that stands for its
// view in the section memo.
func (e *Engine) buildSkills(ctx context.Context, set *renderSet, req *Request, s *config.Settings, ws *vfs.Workspace) (sessionSkills, error) {
	if req.Mode == ModeNone || set.t.Lookup(catalogPartial) == nil || !e.hasSkillRoots(ws) {
		return sessionSkills{key: dot.CatalogKey(&set.key, &view.SkillsView{})}, nil
	}
	session, from := sessionKeys(&set.key, req.Session, s)
	return e.snap.skillsFor(session, from, req.Session.Reset, func() (sessionSkills, error) {
		cat, dirs, err := e.discoverSkills(ctx, set, s, ws)
		if err != nil {
			return sessionSkills{}, err
		}
		sv := view.SkillsView{Listed: cat.Skills, Descriptions: cat.Descriptions, Note: cat.Note, Eligible: cat.Eligible}
		if len(sv.Listed) > 0 {
			if err := set.partial(catalogPartial, view.SkillsView{Listed: sv.Listed, Descriptions: sv.Descriptions, Note: sv.Note}); err != nil {
				return sessionSkills{}, &Error{Phase: PhaseExec, File: pack.TemplatesDir, Err: fmt.Errorf("rendering the skills catalog: %w", err)}
			}
			sv.Catalog = set.buf.String()
		}
		size, err := measureCatalog(set, &sv)
		if err != nil {
			return sessionSkills{}, err
		}
		return sessionSkills{catalog: cat, size: size, view: sv, key: dot.CatalogKey(&set.key, &sv), dirs: dirs}, nil
	})
}

// discoverSkills walks the roots and builds the catalog within its
// budget; it also returns the roots' folders on the real disk.
func (e *Engine) discoverSkills(ctx context.Context, set *renderSet, s *config.Settings, ws *vfs.Workspace) (skills.Catalog, []string, error) {
	opened := e.openSkillRoots(s, ws)
	defer opened.close()
	found, err := skills.Discover(ctx, opened.roots, skills.Options{Home: e.opts.skillHost.Home})
	if err != nil {
		return skills.Catalog{}, nil, &Error{Phase: PhaseWorkspace, Err: err}
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
		return catalogChars(set, list, descriptions, note)
	}
	cat, err := skills.Build(found, policy, skills.Limits{MaxChars: s.MaxSkillsPromptChars, MaxSkills: s.MaxSkillsInPrompt}, measure)
	if err != nil {
		return skills.Catalog{}, nil, &Error{Phase: PhaseExec, File: pack.TemplatesDir, Err: fmt.Errorf("measuring the skills catalog: %w", err)}
	}
	return cat, opened.dirs, nil
}

// catalogChars executes the catalog partial for a list and counts its
// characters.
func catalogChars(set *renderSet, list []skills.Skill, descriptions bool, note string) (int, error) {
	sv := view.SkillsView{Listed: list, Descriptions: descriptions, Note: note}
	if err := set.partial(catalogPartial, sv); err != nil {
		return 0, err
	}
	return utf8.RuneCount(set.buf.Bytes()), nil
}

// measureCatalog sizes a built catalog and each listed skill's block.
func measureCatalog(set *renderSet, v *view.SkillsView) (CatalogSize, error) {
	text := strings.TrimSpace(v.Catalog) // as sections print it, tidied
	size := CatalogSize{Text: text, Chars: utf8.RuneCountInString(text)}
	if len(v.Listed) == 0 {
		return size, nil
	}
	empty, err := catalogChars(set, nil, v.Descriptions, "")
	size.Blocks = make([]int, len(v.Listed))
	for i := 0; i < len(v.Listed) && err == nil; i++ {
		var n int
		n, err = catalogChars(set, v.Listed[i:i+1], v.Descriptions, "")
		size.Blocks[i] = n - empty
	}
	if err != nil {
		return CatalogSize{}, &Error{Phase: PhaseExec, File: pack.TemplatesDir, Err: fmt.Errorf("measuring the skills catalog: %w", err)}
	}
	return size, nil
}
