// Package report holds the tools over a rendered result: the context
// report (where the characters and tokens go) and its web page
// (WriteHTML), Explain (what happened to each section of the pack) and
// Compare (where two prompts' stable prefixes part). They read only an engine.Result, never the renderer's
// internals, and never parse the prompt text: the catalog's figures come
// from the catalog build, and the prompt is only asked whether it holds
// that exact catalog.
package report

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/skills"
)

// Tokenizer counts tokens for the context report.
type Tokenizer interface {
	Name() string
	Count(text string) int
}

// EstimateTokens is the default tokenizer: ceil(chars/4), chars being code
// points. It is what every report uses unless given an exact tokenizer.
type EstimateTokens struct{}

// Name reports "estimate".
func (EstimateTokens) Name() string { return "estimate" }

// Count returns ceil(chars/4).
func (EstimateTokens) Count(text string) int { return (utf8.RuneCountInString(text) + 3) / 4 }

// NearLimitRatio is the share of a budget from which a file or the total
// counts as near its limit.
const NearLimitRatio = 0.85

// Report is the context report of one render: where the
// characters and tokens go, what was cut, skipped or left out, and the
// stable prefix that caching depends on. JSON keys are part of the
// documented interface.
type Report struct {
	SchemaVersion int               `json:"schema_version"` // always SchemaVersion
	Tokenizer     string            `json:"tokenizer"`
	Mode          engine.Mode       `json:"mode"`
	Harness       string            `json:"harness"`
	Workspace     string            `json:"workspace"`
	Bootstrap     BootstrapReport   `json:"bootstrap"`
	Layers        []LayerReport     `json:"layers"`
	Sections      []SectionReport   `json:"sections"`
	Omitted       []engine.Omission `json:"omitted"`
	Skills        SkillsReport      `json:"skills"`
	Tools         ToolsReport       `json:"tools"`
	Total         Size              `json:"total"` // every layer's text
	// Request is the headline: the system text, the tools and the
	// messages, the sum of Parts.
	Request  Size          `json:"request"`
	Parts    []Part        `json:"parts"`
	Groups   []GroupReport `json:"groups"`
	Window   WindowReport  `json:"window"`
	Warnings []Warning     `json:"warnings"`
}

// Size is a character count and its token count.
type Size struct {
	Chars  int `json:"chars"`
	Tokens int `json:"tokens"`
}

// BootstrapReport covers the workspace files and their budgets.
type BootstrapReport struct {
	MaxChars         int          `json:"max_chars"`
	TotalMaxChars    int          `json:"total_max_chars"`
	RawChars         int          `json:"raw_chars"`
	InjectedChars    int          `json:"injected_chars"`
	TotalNearLimit   bool         `json:"total_near_limit"`
	Truncated        int          `json:"truncated"`
	NearLimit        int          `json:"near_limit"`
	WarningMode      string       `json:"warning_mode"`
	WarningShown     bool         `json:"warning_shown"`
	WarningSignature string       `json:"warning_signature,omitempty"`
	Files            []FileReport `json:"files"`
}

// FileReport is one bootstrap file's fate.
type FileReport struct {
	Name          string `json:"name"`
	Path          string `json:"path"`
	Status        string `json:"status"`
	RawChars      int    `json:"raw_chars"`
	InjectedChars int    `json:"injected_chars"`
	// InjectedTokens counts the injected text once, as printed; RawTokens
	// counts the whole file when it was injected whole, and is scaled from
	// the characters otherwise (the report keeps only the injected text).
	InjectedTokens int `json:"injected_tokens"`
	RawTokens      int `json:"raw_tokens"`
	// Causes are the budgets that cut the file: "per-file limit", "total
	// limit", or both.
	Causes    []string `json:"causes,omitempty"`
	NearLimit bool     `json:"near_limit"`
	Reason    string   `json:"reason,omitempty"`
	Dynamic   bool     `json:"dynamic"`
	// BoundaryMarkers counts the cache boundary markers in the file's
	// injected text. Each is printed as "[cache boundary marker
	// removed]", since a marker there would split the prompt in the
	// wrong place.
	BoundaryMarkers int `json:"boundary_markers,omitempty"`
}

// ShowNearLimit says whether a view notes that the file is near its
// limit: only when it was not cut, since a truncated file's cause
// already names the limit it reached.
func (f FileReport) ShowNearLimit() bool { return f.NearLimit && f.Status != "TRUNCATED" }

// LayerReport sizes one layer and its stable prefix: Stable, Boundary
// and Dynamic sum to Total, each the sum of the layer's parts.
type LayerReport struct {
	Name         string `json:"name"`
	Total        Size   `json:"total"`
	Stable       Size   `json:"stable"`
	Dynamic      Size   `json:"dynamic"`
	Boundary     Size   `json:"boundary"` // the marker and the blank lines around it
	StableSHA256 string `json:"stable_sha256"`
}

// SectionReport sizes one rendered section.
type SectionReport struct {
	Layer string      `json:"layer"`
	Tier  engine.Tier `json:"tier"`
	ID    string      `json:"id"`
	Size
	Overridden bool `json:"overridden,omitempty"`
}

// SkillsReport covers the skills catalog.
type SkillsReport struct {
	Found         int              `json:"found"`
	Eligible      int              `json:"eligible"`
	Listed        int              `json:"listed"`
	CatalogChars  int              `json:"catalog_chars"`
	CatalogTokens int              `json:"catalog_tokens"`
	Descriptions  bool             `json:"descriptions"`
	Note          string           `json:"note,omitempty"`
	Entries       []SkillBlock     `json:"entries"`
	Skipped       []skills.Skipped `json:"skipped"`
	Problems      []skills.Problem `json:"problems"`
	Warnings      []skills.Problem `json:"warnings"`
	Cuts          []SkillsCut      `json:"cuts"`
}

// SkillsCut is a discovery bound that stopped the search of a skills
// root: Skipped skill folders were found there but not read, and under
// the entries bound the rest of the root was not listed at all.
type SkillsCut struct {
	Root    string `json:"root"`
	Reason  string `json:"reason"`
	Skipped int    `json:"skipped"`
}

// SkillBlock is one listed skill and the size of its catalog block.
type SkillBlock struct {
	Name       string `json:"name"`
	Location   string `json:"location"`
	BlockChars int    `json:"block_chars"`
}

// ToolsReport covers tool descriptions and schemas, which count toward
// the context even though schemas are not printed as prompt text.
type ToolsReport struct {
	DescriptionChars  int          `json:"description_chars"`
	SchemaChars       int          `json:"schema_chars"`
	DescriptionTokens int          `json:"description_tokens"`
	SchemaTokens      int          `json:"schema_tokens"`
	Entries           []ToolReport `json:"entries"`
}

// ToolReport is one tool's description and schema size.
type ToolReport struct {
	Name              string `json:"name"`
	DescriptionChars  int    `json:"description_chars"`
	SchemaChars       int    `json:"schema_chars"`
	DescriptionTokens int    `json:"description_tokens"`
	SchemaTokens      int    `json:"schema_tokens"`
}

// Build builds the context report for a result. tok may be nil for the
// ceil(chars/4) estimate. Character counts come from the sizes the
// render recorded, so with the estimate the report never reads the
// prompt; an exact tokenizer counts each part's text.
func Build(r *engine.Result, tok Tokenizer, opts ...Option) Report {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if tok == nil {
		tok = EstimateTokens{}
	}
	_, estimate := tok.(EstimateTokens)
	z := sizer{tok: tok, estimate: estimate}
	rep := Report{
		SchemaVersion: SchemaVersion,
		Tokenizer:     tok.Name(),
		Mode:          r.Mode,
		Harness:       r.Harness,
		Workspace:     r.Settings.Workspace,
		Omitted:       r.Omitted,
		Sections:      make([]SectionReport, 0, sectionCount(r.Layers)),
		Layers:        make([]LayerReport, 0, len(r.Layers)),
		Parts:         []Part{},
	}
	if rep.Omitted == nil {
		rep.Omitted = []engine.Omission{}
	}
	items := embeddedTexts(r)
	outline := map[string]map[string]engine.OutlineSection{}
	for _, l := range r.Outline().Layers {
		outline[l.Name] = map[string]engine.OutlineSection{}
		for _, sec := range l.Sections {
			outline[l.Name][sec.ID] = sec
		}
	}
	for _, l := range r.Layers {
		parts, sizes := layerParts(l, r.Boundary, items, outline[l.Name], z)
		for i, s := range l.Sections {
			rep.Sections = append(rep.Sections, SectionReport{Layer: l.Name, Tier: s.Tier, ID: s.ID, Overridden: s.Overridden, Size: sizes[i]})
		}
		lr := LayerReport{Name: l.Name, StableSHA256: l.StableSHA256()}
		for _, p := range parts {
			switch {
			case p.Kind == KindBoundary:
				lr.Boundary = lr.Boundary.plus(p.Size)
			case p.Tier == engine.TierStable:
				lr.Stable = lr.Stable.plus(p.Size)
			default:
				lr.Dynamic = lr.Dynamic.plus(p.Size)
			}
		}
		lr.Total = lr.Stable.plus(lr.Boundary).plus(lr.Dynamic)
		rep.Layers = append(rep.Layers, lr)
		rep.Total = rep.Total.plus(lr.Total)
		rep.Parts = append(rep.Parts, parts...)
	}
	rep.Bootstrap = bootstrapReport(r, z)
	rep.Skills = skillsReport(r, rep.Parts)
	tools := toolParts(r.Tools, z)
	rep.Tools = toolsReport(tools)
	rep.Parts = append(append(rep.Parts, tools...), messageParts(o.messages, z)...)
	for _, p := range rep.Parts {
		rep.Request = rep.Request.plus(p.Size)
	}
	rep.Groups = groups(rep.Parts)
	rep.Window = windowReport(r.Window(o.window), rep.Request.Tokens)
	rep.Warnings = warnings(rep, r.Settings.MaxSkillsPromptChars)
	return rep
}

func sectionCount(layers []engine.Layer) int {
	n := 0
	for _, l := range layers {
		n += len(l.Sections)
	}
	return n
}

func bootstrapReport(r *engine.Result, z sizer) BootstrapReport {
	b := BootstrapReport{
		MaxChars:         r.Settings.BootstrapMaxChars,
		TotalMaxChars:    r.Settings.BootstrapTotalMaxChars,
		WarningMode:      r.Settings.TruncationWarning,
		WarningShown:     r.TruncationWarned,
		WarningSignature: r.TruncationSignature,
		Files:            make([]FileReport, 0, len(r.Files)),
	}
	for _, f := range r.Files {
		b.RawChars += f.RawChars
		b.InjectedChars += f.InjectedChars
		if f.Status == bootstrap.StatusTruncated {
			b.Truncated++
		}
		if f.NearLimit {
			b.NearLimit++
		}
		fr := FileReport{Name: f.Name, Path: f.Display, Status: string(f.Status), RawChars: f.RawChars,
			InjectedChars: f.InjectedChars, NearLimit: f.NearLimit, Reason: f.Reason, Dynamic: f.Dynamic}
		fr.InjectedTokens = z.text(printedText(f.Content, r.Boundary)).Tokens
		fr.RawTokens = (f.RawChars + 3) / 4
		if f.InjectedChars > 0 {
			fr.RawTokens = (fr.InjectedTokens*f.RawChars + f.InjectedChars - 1) / f.InjectedChars
		}
		for _, c := range f.Causes {
			fr.Causes = append(fr.Causes, string(c))
		}
		if r.Boundary != "" {
			fr.BoundaryMarkers = strings.Count(f.Content, r.Boundary)
		}
		b.Files = append(b.Files, fr)
	}
	b.TotalNearLimit = b.TotalMaxChars > 0 && float64(b.InjectedChars) >= NearLimitRatio*float64(b.TotalMaxChars)
	return b
}

// skillsReport takes the catalog's figures from the catalog build and
// the catalog parts: they count once for every place the prompt prints
// the catalog, and not at all when no section printed it.
func skillsReport(r *engine.Result, parts []Part) SkillsReport {
	c := r.Skills
	s := SkillsReport{Found: c.Found, Eligible: c.Eligible, Listed: c.Listed, Descriptions: c.Descriptions, Note: c.Note,
		Entries: make([]SkillBlock, 0, len(c.Skills)), Skipped: c.Skipped, Problems: c.Problems}
	if s.Skipped == nil {
		s.Skipped = []skills.Skipped{}
	}
	if s.Problems == nil {
		s.Problems = []skills.Problem{}
	}
	s.Warnings = c.Warnings
	if s.Warnings == nil {
		s.Warnings = []skills.Problem{}
	}
	s.Cuts = make([]SkillsCut, 0, len(c.Cuts))
	for _, cut := range c.Cuts {
		s.Cuts = append(s.Cuts, SkillsCut{Root: cut.Root, Reason: cut.Reason, Skipped: cut.Skipped})
	}
	shown := 0
	for _, p := range parts {
		if p.Kind == KindSkills {
			shown++
			s.CatalogChars += p.Chars
			s.CatalogTokens += p.Tokens
		}
	}
	for i, sk := range c.Skills {
		b := SkillBlock{Name: sk.Name, Location: sk.Location}
		if shown > 0 && i < len(r.SkillsSize.Blocks) {
			b.BlockChars = r.SkillsSize.Blocks[i]
		}
		s.Entries = append(s.Entries, b)
	}
	return s
}

// toolsReport gathers each tool's description and schema parts.
func toolsReport(parts []Part) ToolsReport {
	t := ToolsReport{Entries: []ToolReport{}}
	for _, p := range parts {
		if p.Kind == KindToolDesc {
			t.Entries = append(t.Entries, ToolReport{Name: p.Name})
		}
		e := &t.Entries[len(t.Entries)-1]
		if p.Kind == KindToolDesc {
			e.DescriptionChars, e.DescriptionTokens = p.Chars, p.Tokens
			t.DescriptionChars += p.Chars
			t.DescriptionTokens += p.Tokens
		} else {
			e.SchemaChars, e.SchemaTokens = p.Chars, p.Tokens
			t.SchemaChars += p.Chars
			t.SchemaTokens += p.Tokens
		}
	}
	return t
}

// TopSkills returns up to n listed skills, largest catalog block first.
func (s SkillsReport) TopSkills(n int) []SkillBlock {
	out := append([]SkillBlock(nil), s.Entries...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].BlockChars > out[j].BlockChars })
	return out[:min(n, len(out))]
}

// TopSchemas returns up to n tools, largest schema first.
func (t ToolsReport) TopSchemas(n int) []ToolReport {
	out := append([]ToolReport(nil), t.Entries...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].SchemaChars > out[j].SchemaChars })
	return out[:min(n, len(out))]
}
