package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/sysprompt/sysprompt/engine"
)

// The kinds of Part. Every character of the request is in exactly one.
const (
	KindSection    = "section"    // a section's own text, less the files and catalog printed in it
	KindFile       = "file"       // a workspace file's injected text, where the prompt prints it
	KindSkills     = "skills"     // the skills catalog, where the prompt prints it
	KindSeparators = "separators" // the blank lines between sections and the final newline of a layer
	KindBoundary   = "boundary"   // the cache boundary marker with the blank lines around it
	KindToolDesc   = "tool_description"
	KindToolSchema = "tool_schema" // the tool's JSON schema as sent, compact
	KindMessage    = "message"     // a message given to the report (render report -message)
)

// Groups are what the page's request bar and the list view's headline
// split the request into; each Part kind belongs to one.
var Groups = []string{"sections", "files", "skills", "boundary", "tools", "messages"}

// Group returns the group of a part kind.
func Group(kind string) string {
	switch kind {
	case KindFile:
		return "files"
	case KindSkills:
		return "skills"
	case KindBoundary:
		return "boundary"
	case KindToolDesc, KindToolSchema:
		return "tools"
	case KindMessage:
		return "messages"
	}
	return "sections" // sections and the separators between them
}

// Part is one piece of the whole request: the system text by layer,
// section, file and catalog, the tools, the messages. Each piece is
// tokenized on its own, and the parts sum exactly to Report.Request.
type Part struct {
	Kind    string      `json:"kind"`
	Name    string      `json:"name"` // section id, file name, tool name, "message 1", or the kind
	Layer   string      `json:"layer,omitempty"`
	Section string      `json:"section,omitempty"` // the section a file or the catalog is printed in
	Tier    engine.Tier `json:"tier,omitempty"`    // system text only; the boundary has none
	Size
}

// GroupReport is the request's parts summed by group.
type GroupReport struct {
	Name string `json:"name"`
	Size
}

// Option adds to what a report accounts for.
type Option func(*options)

type options struct {
	messages []string
	window   int
}

// Messages counts the texts as user messages sent with the prompt.
func Messages(texts ...string) Option {
	return func(o *options) { o.messages = append(o.messages, texts...) }
}

// ContextWindow sets the model's window in tokens, over the one the
// config or the pack's model table gave the render.
func ContextWindow(tokens int) Option { return func(o *options) { o.window = tokens } }

// sizer counts a text: chars from a count the caller has when it has one,
// tokens by the tokenizer, or ceil(chars/4) without reading the text.
type sizer struct {
	tok      Tokenizer
	estimate bool
}

func (z sizer) size(text string, chars int) Size {
	if z.estimate {
		return Size{Chars: chars, Tokens: (chars + 3) / 4}
	}
	return Size{Chars: chars, Tokens: z.tok.Count(text)}
}

func (z sizer) text(text string) Size { return z.size(text, utf8.RuneCountInString(text)) }

// embedded is a text the report looks for in a section: a file's
// injected text or the skills catalog, as the prompt prints it. field is
// the section data field it comes from ("Files", "DynamicFiles",
// "Skills"): only a section whose template reads it can print it.
type embedded struct {
	kind, name, text, field string
}

// embeddedTexts are the files' printed texts and the catalog, longest
// first so a short file cannot claim part of a longer one.
func embeddedTexts(r *engine.Result) []embedded {
	var out []embedded
	for _, f := range r.Files {
		field := "Files"
		if f.Dynamic {
			field = "DynamicFiles"
		}
		if text := printedText(f.Content, r.Boundary); text != "" {
			out = append(out, embedded{KindFile, f.Name, text, field})
		}
	}
	if text := strings.TrimSpace(r.SkillsSize.Text); text != "" {
		out = append(out, embedded{KindSkills, "skills catalog", text, "Skills"})
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].text) > len(out[j].text) })
	return out
}

// printedText is a file's injected text as a section prints it: a
// boundary marker in it shows as engine.BoundaryRemoved, and a section's
// text is trimmed, so trailing space at its end is not found.
func printedText(content, boundary string) string {
	if boundary != "" {
		content = strings.ReplaceAll(content, boundary, engine.BoundaryRemoved)
	}
	return strings.TrimRightFunc(content, func(r rune) bool { return r == ' ' || r == '\n' || r == '\t' || r == '\r' })
}

// span is where an embedded text sits in a section's text.
type span struct {
	start, end int
	item       *embedded
}

// findEmbedded finds each embedded text where it fills whole lines of
// text, never overlapping one found before. The texts come from the
// render's own inputs, so a match on line boundaries is the text itself,
// not a coincidence; a pack that prints a file changed is not split.
// Items come longest first, so a span overlaps an earlier one only if
// its first or last byte is already claimed. Items of the same text (two
// files alike) take its places in turn, so each is a part of its own.
func findEmbedded(text string, items []embedded) []span {
	var spans []span
	var claimed []bool
	for i := range items {
		it := &items[i]
		alike := sameText(items, i)
		if alike[0] != it {
			continue // found with the first of its text
		}
		for from, n := 0, 0; from < len(text); {
			j := strings.Index(text[from:], it.text)
			if j < 0 {
				break
			}
			start := from + j
			end := start + len(it.text)
			from = start + 1
			if start > 0 && text[start-1] != '\n' || end < len(text) && text[end] != '\n' {
				continue
			}
			if claimed == nil {
				claimed = make([]bool, len(text))
			}
			if claimed[start] || claimed[end-1] {
				continue
			}
			for k := start; k < end; k++ {
				claimed[k] = true
			}
			spans = append(spans, span{start, end, alike[n%len(alike)]})
			n++
			from = end
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	return spans
}

// sameText returns the items with the text of items[i], in order. Items
// are sorted by length, so those are among its neighbours of that length.
func sameText(items []embedded, i int) []*embedded {
	lo, hi := i, i+1
	for lo > 0 && len(items[lo-1].text) == len(items[i].text) {
		lo--
	}
	for hi < len(items) && len(items[hi].text) == len(items[i].text) {
		hi++
	}
	var out []*embedded
	for j := lo; j < hi; j++ {
		if items[j].text == items[i].text {
			out = append(out, &items[j])
		}
	}
	return out
}

// printable returns the items sec can print: those of the data fields
// its template reads. Without this a one-line file that matches a line
// of the pack would be found in every section printing that line. An
// overridden section prints the provider's text, not its template's.
func printable(items []embedded, sec engine.OutlineSection, overridden bool) []embedded {
	if overridden {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(items), func(it embedded) bool { return !sec.ReadsField(it.field) })
}

// layerParts splits a layer's text into its parts, in text order, and
// the section sizes as the sum of each section's parts. outline holds
// the layer's sections by id.
func layerParts(l engine.Layer, boundary string, items []embedded, outline map[string]engine.OutlineSection, z sizer) ([]Part, []Size) {
	var parts []Part
	sizes := make([]Size, len(l.Sections))
	seps := map[engine.Tier]*strings.Builder{engine.TierStable: {}, engine.TierDynamic: {}}
	var tiers []engine.Tier // the order the separators' tiers first appear
	addGap := func(gap string, tier engine.Tier) {
		if gap == "" {
			return
		}
		if boundary != "" && strings.Contains(gap, boundary) {
			parts = append(parts, Part{Kind: KindBoundary, Name: "cache boundary", Layer: l.Name, Size: z.text(gap)})
			return
		}
		if seps[tier].Len() == 0 {
			tiers = append(tiers, tier)
		}
		seps[tier].WriteString(gap)
	}
	at := 0
	for i, s := range l.Sections {
		tier := s.Tier
		if i == 0 && at < s.Start {
			addGap(l.Text[:s.Start], tier)
		} else if i > 0 {
			addGap(l.Text[at:s.Start], l.Sections[i-1].Tier)
		}
		text := l.Text[s.Start:s.End]
		own, ownChars, prev := text, s.Chars, 0
		var inside []Part // the files and catalog the section prints
		if spans := findEmbedded(text, printable(items, outline[s.ID], s.Overridden)); len(spans) > 0 {
			var b strings.Builder
			for _, sp := range spans {
				b.WriteString(text[prev:sp.start])
				p := Part{Kind: sp.item.kind, Name: sp.item.name, Layer: l.Name, Section: s.ID, Tier: tier, Size: z.text(sp.item.text)}
				inside = append(inside, p)
				sizes[i] = sizes[i].plus(p.Size)
				ownChars -= p.Chars
				prev = sp.end
			}
			b.WriteString(text[prev:])
			own = b.String()
		}
		p := Part{Kind: KindSection, Name: s.ID, Layer: l.Name, Tier: tier, Size: z.size(own, ownChars)}
		parts = append(append(parts, p), inside...)
		sizes[i] = sizes[i].plus(p.Size)
		at = s.End
	}
	// The text after the last section (the final newline) is past the
	// stable prefix the sha256 covers, also when no dynamic text precedes it.
	tail := engine.TierDynamic
	if at < len(l.Stable) {
		tail = engine.TierStable
	}
	addGap(l.Text[at:], tail)
	for _, tier := range tiers {
		parts = append(parts, Part{Kind: KindSeparators, Name: "blank lines", Layer: l.Name, Tier: tier, Size: z.text(seps[tier].String())})
	}
	return parts, sizes
}

func (s Size) plus(o Size) Size { return Size{Chars: s.Chars + o.Chars, Tokens: s.Tokens + o.Tokens} }

// noArguments is the schema both provider bodies send for a tool
// without one, since both APIs want an object schema for every tool.
const noArguments = `{"type":"object","properties":{}}`

// toolParts are each tool's description and schema as an API sends them.
// A tool without a name is neither listed in the prompt nor sent.
func toolParts(tools []engine.Tool, z sizer) []Part {
	var parts []Part
	for _, t := range tools {
		if strings.TrimSpace(t.Name) == "" {
			continue
		}
		parts = append(parts, Part{Kind: KindToolDesc, Name: t.Name, Size: z.text(t.Description)})
		v, err := t.Schema.Value()
		if err != nil { // one no body could send
			continue
		}
		if m, ok := v.(map[string]any); v == nil || ok && len(m) == 0 {
			parts = append(parts, Part{Kind: KindToolSchema, Name: t.Name, Size: z.text(noArguments)})
			continue
		}
		schema := Size{Chars: jsonChars(v)}
		if z.estimate {
			schema.Tokens = (schema.Chars + 3) / 4
		} else if text, err := marshal(v); err == nil {
			schema.Tokens = z.tok.Count(string(text))
		}
		parts = append(parts, Part{Kind: KindToolSchema, Name: t.Name, Size: schema})
	}
	return parts
}

func messageParts(texts []string, z sizer) []Part {
	parts := make([]Part, 0, len(texts))
	for i, text := range texts {
		parts = append(parts, Part{Kind: KindMessage, Name: fmt.Sprintf("message %d", i+1), Size: z.text(text)})
	}
	return parts
}

// groups sums the parts by group, in the order of Groups, leaving out
// empty ones.
func groups(parts []Part) []GroupReport {
	sums := map[string]Size{}
	for _, p := range parts {
		g := Group(p.Kind)
		sums[g] = sums[g].plus(p.Size)
	}
	out := []GroupReport{}
	for _, g := range Groups {
		if s := sums[g]; s.Chars > 0 || s.Tokens > 0 {
			out = append(out, GroupReport{Name: g, Size: s})
		}
	}
	return out
}
