// Package pack loads a template pack: the manifest, the section files and
// their front matter, partials, the core tool table and model overlays.
// It validates them with file, line and column, parses every template
// once into one set, and checks statically that no stable section reads
// a volatile field. A loaded Pack is read-only.
package pack

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/internal/diag"
	"github.com/sysprompt/sysprompt/engine/internal/strict"
)

// Mode is a prompt mode: full for the main agent, minimal for sub-agents,
// none for the bare identity line.
type Mode string

// The prompt modes.
const (
	ModeFull    Mode = "full"
	ModeMinimal Mode = "minimal"
	ModeNone    Mode = "none"
)

// Tier says on which side of the cache boundary a section renders.
type Tier string

// The cache tiers.
const (
	TierStable  Tier = "stable"
	TierDynamic Tier = "dynamic"
)

// The names a section may declare in its override key: the three core
// sections a provider contribution may replace.
var OverrideKeys = []string{"execution_bias", "interaction_style", "tool_call_style"}

const (
	manifestPath = "sections/manifest.toml"
	sectionsDir  = "sections"
	// TemplatesDir holds partials, overlays and the core tool table.
	TemplatesDir   = "templates"
	sectionSuffix  = ".md.tmpl"
	partialSuffix  = ".tmpl"
	frontMatterSep = "+++"
	defaultLayer   = "system"
	// DefaultHarness is the harness used when a request names none.
	DefaultHarness = "embedded"
)

// frontMatter is the TOML head of a section file.
type frontMatter struct {
	Modes    []string `toml:"modes"`
	Tier     string   `toml:"tier"`
	Layer    string   `toml:"layer"`
	Override string   `toml:"override"`
}

// section is one parsed section file.
type Section struct {
	ID, File string
	Modes    []Mode
	Tier     Tier
	Layer    string
	Override string
	Body     string // template text; front matter lines kept as blank lines so positions match the file
}

func (s *Section) HasMode(m Mode) bool { return slices.Contains(s.Modes, m) }

// manifest is the decoded sections/manifest.toml.
type Manifest struct {
	Product         string            `toml:"product"`
	IdentitySection string            `toml:"identity_section"`
	Boundary        string            `toml:"boundary"`
	Layers          []layerDecl       `toml:"layer"`
	Harnesses       []harnessDecl     `toml:"harness"`
	Bootstrap       bootstrapDecl     `toml:"bootstrap"`
	Vars            map[string]string `toml:"vars"`
}

type layerDecl struct {
	Name     string   `toml:"name"`
	Sections []string `toml:"sections"`
}

type harnessDecl struct {
	Name   string                 `toml:"name"`
	Layers []layerDecl            `toml:"layer"`
	Files  map[string]harnessFile `toml:"files"`
}

// harnessFile routes one bootstrap file in a harness: Omit keeps it out
// of the prompt (with the reason the report shows), either always or, with
// WhenTools, only when one of those tools is available.
type harnessFile struct {
	Omit      string   `toml:"omit"`
	WhenTools []string `toml:"when_tools"`
}

type bootstrapDecl struct {
	Files    []string `toml:"files"`
	Optional []string `toml:"optional"`
	Dynamic  []string `toml:"dynamic"`
	Subagent []string `toml:"subagent"`
}

// harness is a resolved harness: its layers with their sections in order.
type Harness struct {
	Name   string
	Layers []*Layer
	files  map[string]harnessFile
}

// Omit returns the bootstrap files this harness keeps out of the prompt,
// with the reason, for a request whose tools hasAnyTool reports.
func (h *Harness) Omit(hasAnyTool func(names ...string) bool) map[string]string {
	if len(h.files) == 0 {
		return nil
	}
	out := map[string]string{}
	for name, f := range h.files {
		if f.Omit != "" && (len(f.WhenTools) == 0 || hasAnyTool(f.WhenTools...)) {
			out[name] = f.Omit
		}
	}
	return out
}

type Layer struct {
	Name     string
	Sections []*Section
}

// Pack is a loaded, validated template pack, before template parsing.
type Pack struct {
	Manifest  Manifest
	Sections  map[string]*Section
	Harnesses map[string]*Harness
	partials  []partialFile
	Defaults  config.Defaults // templates/defaults.toml
	Tools     []ToolEntry     // the core tool table, in order
	Overlays  []*Overlay      // sorted by file name
	Warnings  []*diag.Error
	broken    map[string]bool // section files that failed to load (already reported)
}

type partialFile struct {
	file, text string
}

// Load reads and validates a pack. It collects every problem it can
// find rather than stopping at the first, so lint can list them all.
func Load(fsys fs.FS) (*Pack, diag.ErrorList) {
	var errs diag.ErrorList
	p := &Pack{Sections: map[string]*Section{}, Harnesses: map[string]*Harness{}, broken: map[string]bool{}}

	src, err := fs.ReadFile(fsys, manifestPath)
	if err != nil {
		return nil, diag.ErrorList{{Phase: diag.PhaseManifest, File: manifestPath, Err: fmt.Errorf("cannot read the manifest: %w", err)}}
	}
	if err := strict.TOML(string(src), &p.Manifest); err != nil {
		return nil, diag.ErrorList{diag.Decode(diag.PhaseManifest, manifestPath, err)}
	}

	files, err := fs.ReadDir(fsys, sectionsDir)
	if err != nil {
		return nil, diag.ErrorList{{Phase: diag.PhaseManifest, File: sectionsDir, Err: err}}
	}
	for _, f := range files {
		name := f.Name()
		if f.IsDir() || !strings.HasSuffix(name, sectionSuffix) {
			continue
		}
		file := path.Join(sectionsDir, name)
		text, err := fs.ReadFile(fsys, file)
		if err != nil {
			errs = append(errs, &diag.Error{Phase: diag.PhaseFrontMatter, File: file, Err: err})
			continue
		}
		sec, err := parseSection(file, string(text))
		if err != nil {
			errs = append(errs, err.(*diag.Error))
			p.broken[strings.TrimSuffix(name, sectionSuffix)] = true
			continue
		}
		p.Sections[sec.ID] = sec
	}

	partials, perrs := readPartials(fsys)
	p.partials = partials
	errs = append(errs, perrs...)
	p.Defaults, perrs = readDefaults(fsys)
	errs = append(errs, perrs...)
	p.Tools, perrs = readTools(fsys)
	errs = append(errs, perrs...)
	p.Overlays, perrs = readOverlays(fsys)
	errs = append(errs, perrs...)
	errs = append(errs, p.validateManifest(string(src))...)
	if len(errs) > 0 {
		return nil, errs
	}
	return p, nil
}

// parseSection splits a section file into front matter and body.
func parseSection(file, text string) (*Section, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	id := strings.TrimSuffix(path.Base(file), sectionSuffix)
	fail := func(line, col int, format string, args ...any) error {
		return &diag.Error{Phase: diag.PhaseFrontMatter, File: file, Line: line, Col: col, Section: id, Err: fmt.Errorf(format, args...)}
	}
	lines := strings.SplitAfter(text, "\n")
	if len(lines) == 0 || strings.TrimRight(lines[0], "\n") != frontMatterSep {
		return nil, fail(1, 1, "a section file starts with a %q line, then TOML front matter, then %q", frontMatterSep, frontMatterSep)
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], "\n") == frontMatterSep {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, fail(1, 1, "front matter is not closed by a %q line", frontMatterSep)
	}
	head := strings.Join(lines[1:end], "")
	var fm frontMatter
	if err := strict.TOML(head, &fm); err != nil {
		e := diag.Decode(diag.PhaseFrontMatter, file, err)
		if e.Line > 0 {
			e.Line++ // front matter starts on the file's second line
		}
		e.Section = id
		return nil, e
	}
	locate := func(key string) (int, int) {
		l, c := strict.LocateKey(head, key)
		if l == 0 {
			return 1, 1
		}
		return l + 1, c
	}
	sec := &Section{ID: id, File: file, Tier: Tier(fm.Tier), Layer: fm.Layer, Override: fm.Override}
	if fm.Modes == nil {
		return nil, fail(1, 1, "front matter needs modes (a subset of full, minimal, none)")
	}
	for _, m := range fm.Modes {
		switch Mode(m) {
		case ModeFull, ModeMinimal, ModeNone:
			if sec.HasMode(Mode(m)) {
				l, c := locate("modes")
				return nil, fail(l, c, "mode %q is listed twice", m)
			}
			sec.Modes = append(sec.Modes, Mode(m))
		default:
			l, c := locate("modes")
			return nil, fail(l, c, "unknown mode %q (want full, minimal or none)", m)
		}
	}
	switch sec.Tier {
	case TierStable, TierDynamic:
	case "":
		return nil, fail(1, 1, "front matter needs tier (stable or dynamic)")
	default:
		l, c := locate("tier")
		return nil, fail(l, c, "unknown tier %q (want stable or dynamic)", fm.Tier)
	}
	if sec.Layer == "" {
		sec.Layer = defaultLayer
	}
	if sec.Override != "" && !slices.Contains(OverrideKeys, sec.Override) {
		l, c := locate("override")
		return nil, fail(l, c, "unknown override %q (want one of %s)", sec.Override, strings.Join(OverrideKeys, ", "))
	}
	// Keep the front matter as blank lines so template positions are file positions.
	sec.Body = strings.Repeat("\n", end+1) + strings.Join(lines[end+1:], "")
	return sec, nil
}

// readPartials reads every *.tmpl file under templates/ (sorted walk).
func readPartials(fsys fs.FS) ([]partialFile, diag.ErrorList) {
	var out []partialFile
	var errs diag.ErrorList
	err := fs.WalkDir(fsys, TemplatesDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == TemplatesDir {
				return fs.SkipDir
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, partialSuffix) {
			return nil
		}
		text, err := fs.ReadFile(fsys, p)
		if err != nil {
			errs = append(errs, &diag.Error{Phase: diag.PhaseParse, File: p, Err: err})
			return nil
		}
		out = append(out, partialFile{file: p, text: strings.ReplaceAll(string(text), "\r\n", "\n")})
		return nil
	})
	if err != nil {
		errs = append(errs, &diag.Error{Phase: diag.PhaseParse, File: TemplatesDir, Err: err})
	}
	return out, errs
}

// validateManifest checks the manifest against the section files and
// builds the harnesses.
func (p *Pack) validateManifest(src string) diag.ErrorList {
	var errs diag.ErrorList
	m := &p.Manifest
	at := func(key string) (int, int) { return strict.LocateKey(src, key) }
	fail := func(line, col int, format string, args ...any) {
		errs = append(errs, &diag.Error{Phase: diag.PhaseManifest, File: manifestPath, Line: line, Col: col, Err: fmt.Errorf(format, args...)})
	}
	if strings.TrimSpace(m.Boundary) == "" {
		fail(1, 1, "boundary is required: the marker line between the stable and dynamic tiers")
	} else if strings.Contains(m.Boundary, "\n") {
		l, c := at("boundary")
		fail(l, c, "boundary must be a single line")
	}
	if m.Product == "" {
		m.Product = "OpenClaw"
	}
	doc := strict.ScanTOML(src)

	type declared struct {
		harness string
		layers  []layerDecl
		hIndex  int
	}
	all := []declared{{harness: DefaultHarness, layers: m.Layers, hIndex: -1}}
	seenHarness := map[string]bool{DefaultHarness: true}
	harnessLines := doc.Headers("harness")
	for i, h := range m.Harnesses {
		line := 0
		if i < len(harnessLines) {
			line = harnessLines[i]
		}
		if h.Name == "" {
			fail(line, 1, "harness needs a name")
			continue
		}
		if seenHarness[h.Name] {
			fail(line, 1, "harness %q is declared twice", h.Name)
			continue
		}
		seenHarness[h.Name] = true
		all = append(all, declared{harness: h.Name, layers: h.Layers, hIndex: i})
	}
	if len(m.Layers) == 0 {
		fail(1, 1, "the manifest declares no [[layer]] for the %s harness", DefaultHarness)
	}

	listed := map[string]bool{}
	for _, d := range all {
		h := &Harness{Name: d.harness}
		if d.hIndex >= 0 {
			h.files = m.Harnesses[d.hIndex].Files
		}
		inHarness := map[string]string{} // section id -> layer
		overrides := map[string]string{} // override key -> section id
		layerNames := map[string]bool{}
		if len(d.layers) == 0 && d.hIndex >= 0 {
			line := 0
			if d.hIndex < len(harnessLines) {
				line = harnessLines[d.hIndex]
			}
			fail(line, 1, "harness %q declares no [[harness.layer]], so it would render nothing", d.harness)
		}
		for li, ld := range d.layers {
			pos := func(ei int) (int, int) { return listPos(doc, m, d.hIndex, li, ei) }
			if ld.Name == "" {
				l, c := pos(-1)
				fail(l, c, "a layer of harness %q has no name", d.harness)
				continue
			}
			if layerNames[ld.Name] {
				l, c := pos(-1)
				fail(l, c, "harness %q declares layer %q twice", d.harness, ld.Name)
				continue
			}
			layerNames[ld.Name] = true
			ly := &Layer{Name: ld.Name}
			var lastDynamic *Section
			for ei, id := range ld.Sections {
				l, c := pos(ei)
				sec, ok := p.Sections[id]
				if !ok {
					if !p.broken[id] {
						fail(l, c, "section %q has no file %s/%s%s", id, sectionsDir, id, sectionSuffix)
					}
					continue
				}
				if prev, dup := inHarness[id]; dup {
					fail(l, c, "section %q is listed twice in harness %q (already in layer %q)", id, d.harness, prev)
					continue
				}
				inHarness[id] = ld.Name
				listed[id] = true
				if sec.Override != "" {
					if other, dup := overrides[sec.Override]; dup {
						fail(l, c, "sections %q and %q both declare override %q in harness %q: a provider's text would appear twice", other, id, sec.Override, d.harness)
					}
					overrides[sec.Override] = id
				}
				if sec.Layer != ld.Name {
					fail(l, c, "section %q declares layer %q but is listed in layer %q", id, sec.Layer, ld.Name)
				}
				if sec.Tier == TierStable && lastDynamic != nil {
					fail(l, c, "stable section %q is listed after dynamic section %q in layer %q: every stable section must come before the cache boundary", id, lastDynamic.ID, ld.Name)
				}
				if sec.Tier == TierDynamic {
					lastDynamic = sec
				}
				ly.Sections = append(ly.Sections, sec)
			}
			h.Layers = append(h.Layers, ly)
		}
		p.Harnesses[h.Name] = h
	}

	if id := m.IdentitySection; id == "" {
		fail(1, 1, "identity_section is required: the section mode none renders")
	} else if sec, ok := p.Sections[id]; !ok && !p.broken[id] {
		l, c := at("identity_section")
		fail(l, c, "identity_section %q has no file %s/%s%s", id, sectionsDir, id, sectionSuffix)
	} else if ok && !sec.HasMode(ModeNone) {
		errs = append(errs, &diag.Error{Phase: diag.PhaseFrontMatter, File: sec.File, Line: 2, Col: 1, Section: id,
			Err: fmt.Errorf("the identity section must declare mode none: it is what mode none renders")})
	}
	ids := make([]string, 0, len(p.Sections))
	for id := range p.Sections {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if sec := p.Sections[id]; id != m.IdentitySection && sec.HasMode(ModeNone) {
			p.Warnings = append(p.Warnings, &diag.Error{Phase: diag.PhaseFrontMatter, File: sec.File, Line: 2, Col: 1, Section: id,
				Err: fmt.Errorf("declares mode none, but mode none renders only the identity section %q", m.IdentitySection)})
		}
	}
	for _, id := range ids {
		if !listed[id] {
			p.Warnings = append(p.Warnings, &diag.Error{Phase: diag.PhaseManifest, File: p.Sections[id].File, Line: 1, Col: 1,
				Err: fmt.Errorf("section %q is listed in no layer of %s, so it never renders", id, manifestPath)})
		}
	}
	return errs
}

// listPos places an error on the ei-th string of the sections array of
// layer li of harness hIndex (-1 for the top-level layers), or with ei -1
// on the layer's header. BurntSushi/toml does not expose value positions.
func listPos(doc *strict.TOMLDoc, m *Manifest, hIndex, li, ei int) (line, col int) {
	table, n := "layer", li
	if hIndex >= 0 {
		table = "harness.layer"
		for _, h := range m.Harnesses[:hIndex] {
			n += len(h.Layers)
		}
	}
	if ei < 0 {
		if p, ok := doc.Table(table, n); ok {
			return p.Line, 1
		}
		return 0, 0
	}
	if elems := doc.Elements(table, n, "sections"); ei < len(elems) {
		return elems[ei].Line, elems[ei].Col
	}
	return 0, 0
}
