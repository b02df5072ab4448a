package pack

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sysprompt/sysprompt/engine/internal/diag"
	"github.com/sysprompt/sysprompt/engine/internal/strict"
	"github.com/sysprompt/sysprompt/internal/hint"
)

// Manifest is the decoded sections/manifest.toml.
type Manifest struct {
	Product         string            `toml:"product"`
	IdentitySection string            `toml:"identity_section"`
	Boundary        string            `toml:"boundary"`
	Layers          []layerDecl       `toml:"layer"`
	Harnesses       []harnessDecl     `toml:"harness"`
	Vars            map[string]string `toml:"vars"`
}

// layerDecl is a [[layer]] of the default harness: its sections in order.
type layerDecl struct {
	Name     string   `toml:"name"`
	Sections []string `toml:"sections"`
}

// harnessLayerDecl is a [[harness.layer]]: it lists its sections like a
// [[layer]], or starts from the default harness's layer named Base and
// edits that list (see layeredit.go).
type harnessLayerDecl struct {
	layerDecl
	Base   string   `toml:"base"`
	Remove []string `toml:"remove"`
	Add    []string `toml:"add"`
	After  string   `toml:"after"`
	Before string   `toml:"before"`
}

type harnessDecl struct {
	Name   string                 `toml:"name"`
	Layers []harnessLayerDecl     `toml:"layer"`
	Files  map[string]harnessFile `toml:"files"`
}

// harnessFile routes one bootstrap file in a harness: Omit keeps it out
// of the prompt (with the reason the report shows), either always or only
// when every condition given holds: WhenTools, one of those tools is
// available; WhenAgentWorkspace, the turn reads the agent's own workspace
// (a file that stands for the agent's memory is only replaceable there).
type harnessFile struct {
	Omit               string   `toml:"omit"`
	WhenTools          []string `toml:"when_tools"`
	WhenAgentWorkspace bool     `toml:"when_agent_workspace"`
}

// validateManifest checks the manifest against the section files and
// builds the harnesses.
func (p *Pack) validateManifest(src string) diag.ErrorList {
	c := &manifestCheck{p: p, m: &p.Manifest, doc: strict.LazyScan(src), listed: map[string]bool{}}
	c.checkBoundary()
	if c.m.Product == "" {
		c.m.Product = "OpenClaw"
	}
	for _, d := range c.harnesses() {
		p.Harnesses[d.name] = c.buildHarness(d)
	}
	c.checkIdentity()
	c.warnUnrendered()
	return c.errs
}

// manifestCheck is the state of validating the manifest: its text, for
// positions, the errors so far and the sections some layer lists.
type manifestCheck struct {
	p            *Pack
	m            *Manifest
	doc          *strict.Scan // positions, for errors only
	harnessLines []int        // the line of each [[harness]] header; nil until an error asks
	listed       map[string]bool
	errs         diag.ErrorList
}

func (c *manifestCheck) fail(line, col int, format string, args ...any) {
	c.errs = append(c.errs, &diag.Error{Phase: diag.PhaseManifest, File: manifestPath, Line: line, Col: col, Err: fmt.Errorf(format, args...)})
}

// at is where a top-level key is written.
func (c *manifestCheck) at(key string) (int, int) { return c.doc.Doc().Locate(key, 1) }

// harnessLine is the line of the i-th [[harness]] header, 0 if unknown.
func (c *manifestCheck) harnessLine(i int) int {
	if c.harnessLines == nil {
		c.harnessLines = c.doc.Doc().Headers("harness")
	}
	if i < len(c.harnessLines) {
		return c.harnessLines[i]
	}
	return 0
}

func (c *manifestCheck) checkBoundary() {
	if strings.TrimSpace(c.m.Boundary) == "" {
		c.fail(1, 1, "boundary is required: the marker line between the stable and dynamic tiers")
	} else if strings.Contains(c.m.Boundary, "\n") {
		l, col := c.at("boundary")
		c.fail(l, col, "boundary must be a single line")
	}
}

// declared is one harness as the manifest declares it: index is its
// place among the [[harness]] tables, -1 for the default harness.
type declared struct {
	name   string
	layers []harnessLayerDecl
	index  int
}

// harnesses returns the default harness and every well-named [[harness]].
func (c *manifestCheck) harnesses() []declared {
	all := []declared{{name: DefaultHarness, index: -1}}
	for _, l := range c.m.Layers {
		all[0].layers = append(all[0].layers, harnessLayerDecl{layerDecl: l})
	}
	seen := map[string]bool{DefaultHarness: true}
	for i, h := range c.m.Harnesses {
		switch {
		case h.Name == "":
			c.fail(c.harnessLine(i), 1, "harness needs a name")
		case seen[h.Name]:
			c.fail(c.harnessLine(i), 1, "harness %q is declared twice", h.Name)
		default:
			seen[h.Name] = true
			all = append(all, declared{name: h.Name, layers: h.Layers, index: i})
		}
	}
	if len(c.m.Layers) == 0 {
		c.fail(1, 1, "the manifest declares no [[layer]] for the %s harness", DefaultHarness)
	}
	return all
}

// harnessBuild is one harness while its layers are checked.
type harnessBuild struct {
	declared
	inHarness  map[string]string // section id -> layer
	overrides  map[string]string // override key -> section id
	layerNames map[string]bool
}

func (c *manifestCheck) buildHarness(d declared) *Harness {
	h := &Harness{Name: d.name}
	if d.index >= 0 {
		h.files = c.m.Harnesses[d.index].Files
		c.checkHarnessFiles(d)
		if len(d.layers) == 0 {
			c.fail(c.harnessLine(d.index), 1, "harness %q declares no [[harness.layer]], so it would render nothing", d.name)
		}
	}
	b := &harnessBuild{declared: d, inHarness: map[string]string{}, overrides: map[string]string{}, layerNames: map[string]bool{}}
	for li, ld := range d.layers {
		if ly := c.buildLayer(b, li, ld); ly != nil {
			h.Layers = append(h.Layers, ly)
		}
	}
	return h
}

// buildLayer checks one layer's name and sections; nil when the layer
// cannot be built at all.
func (c *manifestCheck) buildLayer(b *harnessBuild, li int, ld harnessLayerDecl) *Layer {
	lp := c.layerPos(b, li)
	switch {
	case ld.Name == "":
		l, col := lp.header()
		c.fail(l, col, "a layer of harness %q has no name", b.name)
		return nil
	case b.layerNames[ld.Name]:
		l, col := lp.header()
		c.fail(l, col, "harness %q declares layer %q twice", b.name, ld.Name)
		return nil
	}
	b.layerNames[ld.Name] = true
	ly := &Layer{Name: ld.Name}
	var lastDynamic *listed
	for _, e := range c.layerList(lp, ld) {
		sec := c.listSection(b, ld.Name, e)
		if sec == nil {
			continue
		}
		if sec.Tier == TierStable && lastDynamic != nil {
			c.checkTierOrder(ld.Name, e, *lastDynamic)
		}
		if sec.Tier == TierDynamic {
			lastDynamic = &e
		}
		ly.Sections = append(ly.Sections, sec)
	}
	return ly
}

// listed is one id of a layer's resolved list and where the manifest puts
// it: its place in a sections or add array, or, for an id a base layer
// brings in, the base key of the layer that edits it.
type listed struct {
	id       string
	fromBase bool
	// Where, found only for an error: element i of the layer's key array,
	// or the value of its base key (fromBase).
	lp  layerPos
	key string
	i   int
}

// at is where the manifest puts l.
func (l listed) at() (line, col int) {
	if l.fromBase {
		return l.lp.value("base")
	}
	return l.lp.elem(l.key, l.i)
}

// checkTierOrder reports stable section e listed after dynamic section
// dyn. The error points at the stable one, or at the dynamic one when only
// that one was written in this layer (added to a base). Two ids that both
// come from the base are the base layer's problem, reported there.
func (c *manifestCheck) checkTierOrder(layer string, e, dyn listed) {
	if e.fromBase && dyn.fromBase {
		return
	}
	at := e
	if e.fromBase {
		at = dyn
	}
	line, col := at.at()
	c.fail(line, col, "stable section %q is listed after dynamic section %q in layer %q: every stable section must come before the cache boundary", e.id, dyn.id, layer)
}

// listSection checks one id of a layer's list and returns its section;
// nil when the id cannot be listed there.
func (c *manifestCheck) listSection(b *harnessBuild, layer string, e listed) *Section {
	sec, ok := c.p.Sections[e.id]
	if !ok {
		// An id a base brings in is reported where the base lists it.
		if !c.p.broken[e.id] && !e.fromBase {
			line, col := e.at()
			c.fail(line, col, "section %q has no file %s/%s%s%s", e.id, sectionsDir, e.id, sectionSuffix, hint.Suffix(e.id, sortedKeys(c.p.Sections)))
		}
		return nil
	}
	if prev, dup := b.inHarness[e.id]; dup {
		line, col := e.at()
		c.fail(line, col, "section %q is listed twice in harness %q (already in layer %q)", e.id, b.name, prev)
		return nil
	}
	b.inHarness[e.id] = layer
	c.listed[e.id] = true
	if sec.Override != "" {
		if other, dup := b.overrides[sec.Override]; dup {
			line, col := e.at()
			c.fail(line, col, "sections %q and %q both declare override %q in harness %q: a provider's text would appear twice", other, e.id, sec.Override, b.name)
		}
		b.overrides[sec.Override] = e.id
	}
	return sec
}

// checkIdentity checks identity_section: set, a section file, mode none.
func (c *manifestCheck) checkIdentity() {
	id := c.m.IdentitySection
	sec, ok := c.p.Sections[id]
	switch {
	case id == "":
		c.fail(1, 1, "identity_section is required: the section mode none renders")
	case !ok && !c.p.broken[id]:
		l, col := c.at("identity_section")
		c.fail(l, col, "identity_section %q has no file %s/%s%s%s", id, sectionsDir, id, sectionSuffix, hint.Suffix(id, sortedKeys(c.p.Sections)))
	case ok && !sec.HasMode(ModeNone):
		c.errs = append(c.errs, &diag.Error{Phase: diag.PhaseFrontMatter, File: sec.File, Line: 2, Col: 1, Section: id,
			Err: fmt.Errorf("the identity section must declare mode none: it is what mode none renders")})
	}
}

// warnUnrendered warns of sections that never render: mode none outside
// the identity section, and sections no layer lists.
func (c *manifestCheck) warnUnrendered() {
	p := c.p
	ids := make([]string, 0, len(p.Sections))
	for id := range p.Sections {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if sec := p.Sections[id]; id != c.m.IdentitySection && sec.HasMode(ModeNone) {
			p.Warnings = append(p.Warnings, &diag.Error{Phase: diag.PhaseFrontMatter, File: sec.File, Line: 2, Col: 1, Section: id,
				Err: fmt.Errorf("declares mode none, but mode none renders only the identity section %q", c.m.IdentitySection)})
		}
	}
	for _, id := range ids {
		if !c.listed[id] {
			p.Warnings = append(p.Warnings, &diag.Error{Phase: diag.PhaseManifest, File: p.Sections[id].File, Line: 1, Col: 1,
				Err: fmt.Errorf("section %q is listed in no layer of %s, so it never renders", id, manifestPath)})
		}
	}
}

// checkHarnessFiles checks a harness's [harness.files]: each entry gives
// the reason its file is left out, with conditions a turn can meet, and
// names a file the pack injects (a warning otherwise).
func (c *manifestCheck) checkHarnessFiles(d declared) {
	files := c.m.Harnesses[d.index].Files
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f := files[name]
		// Located only for a finding: the scan costs a cold start.
		at := func() (int, int) { return c.doc.Doc().Locate("harness.files."+name, c.harnessLine(d.index)) }
		switch {
		case strings.TrimSpace(f.Omit) == "":
			l, col := at()
			c.fail(l, col, "harness %q: %q needs an omit reason: it is what the report shows for the file", d.name, name)
		case slices.ContainsFunc(f.WhenTools, func(t string) bool { return strings.TrimSpace(t) == "" }):
			l, col := at()
			c.fail(l, col, "harness %q: %q has an empty name in when_tools", d.name, name)
		case f.WhenTools != nil && len(f.WhenTools) == 0:
			l, col := at()
			c.fail(l, col, "harness %q: %q has when_tools = [], which no turn meets; leave it out to omit the file always", d.name, name)
		case len(c.p.Bootstrap.Files) > 0 && !slices.Contains(c.p.Bootstrap.Files, name):
			// A hook may add a file under that name, so this is no error.
			l, col := at()
			c.p.Warnings = append(c.p.Warnings, &diag.Error{Phase: diag.PhaseManifest, File: manifestPath, Line: l, Col: col,
				Err: fmt.Errorf("harness %q routes %q, which is not in the bootstrap files of %s; only a hook can add it", d.name, name, defaultsPath)})
		}
	}
}
