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

// LayerReport sizes one layer and its stable prefix.
type LayerReport struct {
	Name         string `json:"name"`
	Total        Size   `json:"total"`
	Stable       Size   `json:"stable"`
	Dynamic      Size   `json:"dynamic"`
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
	Found        int              `json:"found"`
	Eligible     int              `json:"eligible"`
	Listed       int              `json:"listed"`
	CatalogChars int              `json:"catalog_chars"`
	Descriptions bool             `json:"descriptions"`
	Note         string           `json:"note,omitempty"`
	Entries      []SkillBlock     `json:"entries"`
	Skipped      []skills.Skipped `json:"skipped"`
	Problems     []skills.Problem `json:"problems"`
	Warnings     []skills.Problem `json:"warnings"`
	Cuts         []SkillsCut      `json:"cuts"`
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
	DescriptionChars int          `json:"description_chars"`
	SchemaChars      int          `json:"schema_chars"`
	Entries          []ToolReport `json:"entries"`
}

// ToolReport is one tool's description and schema size.
type ToolReport struct {
	Name             string `json:"name"`
	DescriptionChars int    `json:"description_chars"`
	SchemaChars      int    `json:"schema_chars"`
}

// Build builds the context report for a result. tok may be nil for the
// ceil(chars/4) estimate.
func Build(r *engine.Result, tok Tokenizer) Report {
	if tok == nil {
		tok = EstimateTokens{}
	}
	rep := Report{
		SchemaVersion: SchemaVersion,
		Tokenizer:     tok.Name(),
		Mode:          r.Mode,
		Harness:       r.Harness,
		Workspace:     r.Settings.Workspace,
		Omitted:       r.Omitted,
		Sections:      make([]SectionReport, 0, sectionCount(r.Layers)),
		Layers:        make([]LayerReport, 0, len(r.Layers)),
	}
	if rep.Omitted == nil {
		rep.Omitted = []engine.Omission{}
	}
	rep.Bootstrap = bootstrapReport(r)
	_, estimate := tok.(EstimateTokens)
	// Character counts come from the section sizes the render recorded and
	// the known separators, so the report never recounts the prompt; only
	// an exact tokenizer has to read the text.
	size := func(text string, chars int) Size {
		if estimate {
			return Size{Chars: chars, Tokens: (chars + 3) / 4}
		}
		return Size{Chars: chars, Tokens: tok.Count(text)}
	}
	boundaryChars := utf8.RuneCountInString(r.Boundary)
	for _, l := range r.Layers {
		var stableChars, dynamicChars, nStable, nDynamic int
		for _, s := range l.Sections {
			rep.Sections = append(rep.Sections, SectionReport{Layer: l.Name, Tier: s.Tier, ID: s.ID, Overridden: s.Overridden,
				Size: size(l.Text[s.Start:s.End], s.Chars)})
			if s.Tier == engine.TierStable {
				stableChars += s.Chars
				nStable++
			} else {
				dynamicChars += s.Chars
				nDynamic++
			}
		}
		stableChars += 2 * max(0, nStable-1)
		dynamicChars += 2 * max(0, nDynamic-1)
		total := textChars(stableChars, dynamicChars, nStable, nDynamic, boundaryChars, r.Mode != engine.ModeNone)
		lr := LayerReport{Name: l.Name, Total: size(l.Text, total), Stable: size(l.Stable, stableChars),
			Dynamic: size(l.Dynamic, dynamicChars), StableSHA256: l.StableSHA256}
		rep.Layers = append(rep.Layers, lr)
		rep.Total.Chars += lr.Total.Chars
		rep.Total.Tokens += lr.Total.Tokens
	}
	rep.Skills = skillsReport(r)
	rep.Tools = toolsReport(r.Tools)
	return rep
}

// textChars is the length of a layer's text from its parts, the way the
// engine joins them: one blank line between parts, the marker line
// between the tiers (not in mode none), and a final newline.
func textChars(stable, dynamic, nStable, nDynamic, boundary int, marked bool) int {
	if !marked {
		total := stable + dynamic
		if nStable > 0 && nDynamic > 0 {
			total += 2
		}
		if nStable+nDynamic > 0 {
			total++
		}
		return total
	}
	total := stable + boundary + 1 // the marker line
	if nStable > 0 {
		total += 2
	}
	if nDynamic > 0 {
		total += dynamic + 2
	}
	return total
}

func sectionCount(layers []engine.Layer) int {
	n := 0
	for _, l := range layers {
		n += len(l.Sections)
	}
	return n
}

func bootstrapReport(r *engine.Result) BootstrapReport {
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

// skillsReport takes the catalog's figures from the catalog build. They
// count once for every layer that prints the catalog, and not at all
// when no section printed it.
func skillsReport(r *engine.Result) SkillsReport {
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
	if catalog := r.SkillsSize.Text; catalog != "" {
		for _, l := range r.Layers {
			shown += strings.Count(l.Text, catalog)
		}
	}
	s.CatalogChars = shown * r.SkillsSize.Chars
	for i, sk := range c.Skills {
		b := SkillBlock{Name: sk.Name, Location: sk.Location}
		if shown > 0 && i < len(r.SkillsSize.Blocks) {
			b.BlockChars = r.SkillsSize.Blocks[i]
		}
		s.Entries = append(s.Entries, b)
	}
	return s
}

func toolsReport(tools []engine.Tool) ToolsReport {
	t := ToolsReport{Entries: make([]ToolReport, 0, len(tools))}
	for _, tool := range tools {
		schema := 0
		if tool.Schema != nil {
			schema = jsonChars(tool.Schema)
		}
		tr := ToolReport{Name: tool.Name, DescriptionChars: utf8.RuneCountInString(tool.Description), SchemaChars: schema}
		t.Entries = append(t.Entries, tr)
		t.DescriptionChars += tr.DescriptionChars
		t.SchemaChars += tr.SchemaChars
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
