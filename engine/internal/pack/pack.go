// Package pack loads a template pack: the manifest, the section files and
// their front matter, partials, the core tool table, the channel catalog,
// model overlays and model context windows.
// It validates them with file, line and column, parses every template
// once into one set, and checks statically that no stable section reads
// a volatile field. A loaded Pack is read-only.
package pack

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/internal/diag"
	"github.com/sysprompt/sysprompt/engine/internal/strict"
	"github.com/sysprompt/sysprompt/engine/view"
	"github.com/sysprompt/sysprompt/vfs"
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
	// DefaultHarness is the harness used when a request names none.
	DefaultHarness = "embedded"
)

// Harness is a resolved harness: its layers with their sections in order.
type Harness struct {
	Name   string
	Layers []*Layer
	files  map[string]harnessFile
}

// Turn is what a harness's file routing needs to know about one turn.
type Turn struct {
	// HasAnyTool reports whether any of the named tools is available.
	HasAnyTool func(names ...string) bool
	// OtherWorkspace is true when the turn's workspace is not the one the
	// agent config gives the agent (both set, and different).
	OtherWorkspace bool
}

// Omit returns the bootstrap files this harness keeps out of the prompt
// on turn t, with the reason.
func (h *Harness) Omit(t Turn) map[string]string {
	if len(h.files) == 0 {
		return nil
	}
	out := map[string]string{}
	for name, f := range h.files {
		switch {
		case f.Omit == "":
		case len(f.WhenTools) > 0 && !t.HasAnyTool(f.WhenTools...):
		case f.WhenAgentWorkspace && t.OtherWorkspace:
		default:
			out[name] = f.Omit
		}
	}
	return out
}

// Layer is one layer of a harness: its name and its sections in order.
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
	Defaults  config.Defaults     // templates/defaults.toml
	Bootstrap BootstrapFiles      // templates/defaults.toml's [bootstrap] lists
	Tools     []ToolEntry         // the core tool table, in order
	Overlays  []*Overlay          // sorted by file name
	Channels  view.ChannelCatalog // templates/channels.toml, in file order
	Models    []ModelWindow       // templates/models.toml, in file order
	Warnings  []*diag.Error
	broken    map[string]bool // section files that failed to load (already reported)
}

// MaxFileBytes bounds every file read from a pack. The built-in pack's
// largest file is a few KB; without a bound a hostile file costs memory
// without end.
const MaxFileBytes = 1 << 20

// MaxNesting bounds how deeply a template's control structures (if,
// range, with, block, define) nest. Real templates nest a few levels;
// text/template's parser recurses once per level, so tens of thousands
// take it seconds, and a few million overflow the stack, which no
// recover catches.
const MaxNesting = 1000

// checkNesting refuses a template nesting past MaxNesting, before it is
// parsed, at the action that passes the bound. It counts the actions
// that open and end a structure, which only overcounts when a string
// constant inside an action spells one.
func checkNesting(file, text string) *diag.Error {
	depth := 0
	for i := 0; ; {
		j := strings.Index(text[i:], "{{")
		if j < 0 {
			return nil
		}
		i += j + 2
		rest := strings.TrimLeft(text[i:min(i+16, len(text))], "- \t\r\n")
		switch rest[:len(rest)-len(strings.TrimLeft(rest, "abcdefghijklmnopqrstuvwxyz"))] {
		case "if", "range", "with", "block", "define":
			depth++
		case "end":
			depth--
		}
		if depth > MaxNesting {
			line := strings.Count(text[:i], "\n") + 1
			col := i - 1 - strings.LastIndexByte(text[:i-2], '\n') - 1
			return &diag.Error{Phase: diag.PhaseParse, File: file, Line: line, Col: col,
				Err: fmt.Errorf("control structures nest more than %d deep", MaxNesting)}
		}
	}
}

// readFile reads one file of the pack, refusing one over MaxFileBytes
// without reading it all.
func readFile(fsys fs.FS, name string) ([]byte, error) {
	data, err := vfs.ReadFSFile(fsys, name, MaxFileBytes)
	if errors.Is(err, vfs.ErrTooLarge) {
		return nil, fmt.Errorf("the file is larger than %d bytes", MaxFileBytes)
	}
	return data, err
}

type partialFile struct {
	file, text string
}

// Load reads and validates a pack. It collects every problem it can
// find rather than stopping at the first, so lint can list them all.
// A pack over MaxPackBytes or MaxPackEntries is refused whole.
func Load(fsys fs.FS) (*Pack, diag.ErrorList) {
	budget := newBudgetFS(fsys)
	p, errs := load(budget)
	if err := budget.spent(); err != nil { // what else went wrong may follow from it
		return nil, diag.ErrorList{{Phase: diag.PhaseManifest, Err: err}}
	}
	return p, errs
}

func load(fsys fs.FS) (*Pack, diag.ErrorList) {
	var errs diag.ErrorList
	p := &Pack{Sections: map[string]*Section{}, Harnesses: map[string]*Harness{}, broken: map[string]bool{}}

	src, err := readFile(fsys, manifestPath)
	if err != nil {
		return nil, diag.ErrorList{{Phase: diag.PhaseManifest, File: manifestPath, Err: fmt.Errorf("cannot read the manifest: %w", err)}}
	}
	if err := strict.TOML(string(src), &p.Manifest); err != nil {
		return nil, diag.ErrorList{diag.Decode(diag.PhaseManifest, manifestPath, hintMoved(err, movedManifestKeys))}
	}

	files, err := fs.ReadDir(fsys, sectionsDir)
	if err != nil {
		return nil, diag.ErrorList{{Phase: diag.PhaseManifest, File: sectionsDir, Err: err}}
	}
	var names []string
	for _, f := range files {
		if !f.IsDir() && strings.HasSuffix(f.Name(), sectionSuffix) {
			names = append(names, f.Name())
		}
	}
	// The section files and the others are read side by side, the others
	// queued first as the larger jobs; outcomes are kept by index and
	// merged in the order a serial read reports them.
	others := []func() diag.ErrorList{
		func() (errs diag.ErrorList) { p.partials, errs = readPartials(fsys); return errs },
		func() (errs diag.ErrorList) { p.Defaults, p.Bootstrap, errs = readDefaults(fsys); return errs },
		func() (errs diag.ErrorList) { p.Tools, errs = readTools(fsys); return errs },
		func() (errs diag.ErrorList) { p.Overlays, errs = readOverlays(fsys); return errs },
		func() (errs diag.ErrorList) { p.Channels, errs = readChannels(fsys); return errs },
		func() (errs diag.ErrorList) { p.Models, errs = readModels(fsys); return errs },
	}
	sections := make([]loadedSection, len(names))
	jobErrs := make([]diag.ErrorList, len(others))
	each(len(others)+len(names), func(i int) {
		if i < len(others) {
			jobErrs[i] = others[i]()
		} else {
			sections[i-len(others)] = loadSection(fsys, names[i-len(others)])
		}
	})
	for i, ls := range sections {
		switch {
		case ls.err == nil:
			p.Sections[ls.sec.ID] = ls.sec
		case ls.broken:
			p.broken[strings.TrimSuffix(names[i], sectionSuffix)] = true
			fallthrough
		default:
			errs = append(errs, ls.err)
		}
	}
	for _, perrs := range jobErrs {
		errs = append(errs, perrs...)
	}
	errs = append(errs, p.validateManifest(string(src))...)
	if len(errs) > 0 {
		return nil, errs
	}
	return p, nil
}

// loadedSection is the outcome of loading one section file.
type loadedSection struct {
	sec    *Section
	err    *diag.Error
	broken bool // read but not valid: the manifest does not call it missing
}

// loadSection reads and parses the section file name in sections/.
func loadSection(fsys fs.FS, name string) loadedSection {
	file := path.Join(sectionsDir, name)
	text, err := readFile(fsys, file)
	if err != nil {
		return loadedSection{err: &diag.Error{Phase: diag.PhaseFrontMatter, File: file, Err: err}}
	}
	src := string(text)
	sec, perr := parseSection(file, src)
	if perr == nil {
		perr = checkNesting(file, src)
	}
	if perr != nil {
		return loadedSection{err: perr, broken: true}
	}
	return loadedSection{sec: sec}
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
		text, err := readFile(fsys, p)
		if err != nil {
			errs = append(errs, &diag.Error{Phase: diag.PhaseParse, File: p, Err: err})
			return nil
		}
		src := string(text)
		if err := checkNesting(p, src); err != nil {
			errs = append(errs, err)
			return nil
		}
		out = append(out, partialFile{file: p, text: strings.ReplaceAll(src, "\r\n", "\n")})
		return nil
	})
	if err != nil {
		errs = append(errs, &diag.Error{Phase: diag.PhaseParse, File: TemplatesDir, Err: err})
	}
	return out, errs
}
