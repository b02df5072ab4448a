package report

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/internal/runes"
)

// Diff compares two renders as a provider's prompt cache sees them: are
// the stable prefixes byte-identical layer by layer (and if not, where do
// they first differ), and are the tool definitions the same.
type Diff struct {
	SchemaVersion int `json:"schema_version"` // always SchemaVersion
	// Verdict is VerdictSame when every stable prefix is byte-identical
	// and the tools are defined alike, else VerdictDiffers: what diff's
	// exit status says.
	Verdict string `json:"verdict"`
	// A and B name the two sides (request files); the caller sets them.
	A      string      `json:"a"`
	B      string      `json:"b"`
	Layers []LayerDiff `json:"layers"`
	Tools  ToolsDiff   `json:"tools"`
	// Files are the workspace files injected differently on the two
	// sides, in the order the first side lists them, then the second's.
	Files []FileChange `json:"files_changed"`
}

// ToolsDiff compares the tool definitions the two requests send with
// the prompt. Providers cache them ahead of the system prompt, so a tool
// whose description or schema changed misses the cache even when every
// stable prefix is byte-identical (the prompt names the tools, but does
// not print their schemas).
type ToolsDiff struct {
	Identical bool `json:"identical"`
	// Changed are the tools defined differently, in the order A lists
	// them, then B's.
	Changed []ToolChange `json:"changed"`
	// OrderChanged is set when the tools both sides define come in
	// another order.
	OrderChanged bool `json:"order_changed"`
}

// ToolChange is a tool defined differently on the two sides. Change is
// one of the ToolAdded, ToolRemoved, ToolDescription, ToolSchema and
// ToolDescriptionAndSchema values.
type ToolChange struct {
	Name   string `json:"name"`
	Change string `json:"change"`
}

// The changes a ToolChange names.
const (
	ToolAdded                = "added"   // in B only
	ToolRemoved              = "removed" // in A only
	ToolDescription          = "description"
	ToolSchema               = "schema"
	ToolDescriptionAndSchema = "description and schema"
)

// The verdicts of a diff.
const (
	VerdictSame    = "same"
	VerdictDiffers = "differs"
)

func verdict(same bool) string {
	if same {
		return VerdictSame
	}
	return VerdictDiffers
}

// FileChange is a workspace file whose fate differs between two renders:
// A and B say what each side did with it ("OK, 412 chars", "SKIPPED:
// <reason>", "absent").
type FileChange struct {
	Name string `json:"name"`
	A    string `json:"a"`
	B    string `json:"b"`
}

// Same reports whether a provider's cache sees the two renders alike:
// every stable prefix byte-identical and the tools defined alike.
func (d Diff) Same() bool { return d.StableIdentical() && d.Tools.Identical }

// StableIdentical reports whether every layer's stable prefix matched.
func (d Diff) StableIdentical() bool {
	for _, l := range d.Layers {
		if !l.StableIdentical {
			return false
		}
	}
	return true
}

// LayerDiff is one layer's comparison. When the stable prefixes differ,
// First locates the first differing byte on each side.
type LayerDiff struct {
	Name            string   `json:"name"`
	StableIdentical bool     `json:"stable_identical"`
	First           *DiffAt  `json:"first_difference,omitempty"`
	DynamicChanged  []string `json:"dynamic_sections_changed"` // ids, in order, present on either side
}

// DiffAt is where two stable prefixes first differ.
type DiffAt struct {
	Offset   int    `json:"offset"` // byte offset into the layer text
	Line     int    `json:"line"`
	Col      int    `json:"col"` // in characters, 1-based
	SectionA string `json:"section_a"`
	SectionB string `json:"section_b"`
	// ExcerptA and ExcerptB are each side's text from Offset on, up to
	// 60 characters, "…" added when it goes on; "" where it ends.
	ExcerptA string `json:"excerpt_a"`
	ExcerptB string `json:"excerpt_b"`
}

// excerptChars is how much text a diff shows on each side.
const excerptChars = 60

// Compare compares a and b, which must come from the same harness.
func Compare(a, b *engine.Result) (Diff, error) {
	if a.Harness != b.Harness {
		return Diff{}, fmt.Errorf("cannot compare harness %q with harness %q", a.Harness, b.Harness)
	}
	d := Diff{SchemaVersion: SchemaVersion, Layers: []LayerDiff{}}
	for i := range max(len(a.Layers), len(b.Layers)) {
		la, lb := layerAt(a.Layers, i), layerAt(b.Layers, i)
		ld := LayerDiff{Name: la.Name, StableIdentical: la.Stable == lb.Stable, DynamicChanged: []string{}}
		if ld.Name == "" {
			ld.Name = lb.Name
		}
		if !ld.StableIdentical {
			off := commonPrefix(la.Stable, lb.Stable)
			// Back up to the start of a code point so the excerpt is whole.
			for off > 0 && !utf8.RuneStart(la.Stable[min(off, len(la.Stable)-1)]) {
				off--
			}
			line, col := lineCol(la.Text, off)
			ld.First = &DiffAt{Offset: off, Line: line, Col: col,
				SectionA: sectionAt(la, off), SectionB: sectionAt(lb, off),
				ExcerptA: excerpt(la.Stable, off), ExcerptB: excerpt(lb.Stable, off)}
		}
		ld.DynamicChanged = dynamicChanges(la, lb)
		d.Layers = append(d.Layers, ld)
	}
	d.Tools = compareTools(a.Tools, b.Tools)
	d.Files = fileChanges(a.Files, b.Files)
	d.Verdict = verdict(d.Same())
	return d, nil
}

// compareTools compares two requests' tool lists as a provider receives
// them: by name (unique in a request), description and schema, compared
// as the JSON value it holds, as provider bodies carry it. A tool with
// no name is never listed nor sent, and a request may hold several.
func compareTools(a, b []engine.Tool) ToolsDiff {
	named := func(tools []engine.Tool) []engine.Tool {
		return slices.DeleteFunc(slices.Clone(tools), func(t engine.Tool) bool { return strings.TrimSpace(t.Name) == "" })
	}
	a, b = named(a), named(b)
	index := func(tools []engine.Tool) map[string]*engine.Tool {
		m := make(map[string]*engine.Tool, len(tools))
		for i := range tools {
			m[tools[i].Name] = &tools[i]
		}
		return m
	}
	inA, inB := index(a), index(b)
	d := ToolsDiff{Changed: []ToolChange{}}
	var commonA, commonB []string
	for _, ta := range a {
		tb := inB[ta.Name]
		if tb == nil {
			d.Changed = append(d.Changed, ToolChange{ta.Name, ToolRemoved})
			continue
		}
		commonA = append(commonA, ta.Name)
		description, schema := ta.Description != tb.Description, !sameSchema(ta.Schema, tb.Schema)
		switch {
		case description && schema:
			d.Changed = append(d.Changed, ToolChange{ta.Name, ToolDescriptionAndSchema})
		case description:
			d.Changed = append(d.Changed, ToolChange{ta.Name, ToolDescription})
		case schema:
			d.Changed = append(d.Changed, ToolChange{ta.Name, ToolSchema})
		}
	}
	for _, tb := range b {
		if inA[tb.Name] == nil {
			d.Changed = append(d.Changed, ToolChange{tb.Name, ToolAdded})
		} else {
			commonB = append(commonB, tb.Name)
		}
	}
	d.OrderChanged = !slices.Equal(commonA, commonB)
	d.Identical = len(d.Changed) == 0 && !d.OrderChanged
	return d
}

// sameSchema reports whether two schemas hold the same JSON value:
// provider bodies sort the keys and send no schema as an empty one.
func sameSchema(a, b engine.Schema) bool {
	if bytes.Equal(a, b) {
		return true
	}
	va, errA := a.Value()
	vb, errB := b.Value()
	empty := func(v any) any {
		if m, ok := v.(map[string]any); v == nil || ok && len(m) == 0 {
			return map[string]any{}
		}
		return v
	}
	return errA == nil && errB == nil && reflect.DeepEqual(empty(va), empty(vb))
}

// fileChanges lists the files whose status, reason or injected text
// differ between the two sides.
func fileChanges(a, b []bootstrap.File) []FileChange {
	index := func(files []bootstrap.File) map[string]*bootstrap.File {
		m := make(map[string]*bootstrap.File, len(files))
		for i := range files {
			if _, ok := m[files[i].Name]; !ok {
				m[files[i].Name] = &files[i]
			}
		}
		return m
	}
	inA, inB := index(a), index(b)
	out := []FileChange{}
	seen := map[string]bool{}
	for _, f := range slices.Concat(a, b) {
		if seen[f.Name] {
			continue
		}
		seen[f.Name] = true
		fa, fb := inA[f.Name], inB[f.Name]
		if fa != nil && fb != nil && fa.Status == fb.Status && fa.Reason == fb.Reason && fa.Content == fb.Content {
			continue
		}
		out = append(out, FileChange{Name: f.Name, A: fileFate(fa), B: fileFate(fb)})
	}
	return out
}

// fileFate says in a few words what a render did with a file.
func fileFate(f *bootstrap.File) string {
	switch {
	case f == nil:
		return "absent"
	case f.Status == bootstrap.StatusOK || f.Status == bootstrap.StatusTruncated:
		return fmt.Sprintf("%s, %d chars injected", f.Status, f.InjectedChars)
	}
	return fmt.Sprintf("%s: %s", f.Status, f.Reason)
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func lineCol(text string, off int) (int, int) {
	off = min(off, len(text))
	before := text[:off]
	line := strings.Count(before, "\n") + 1
	col := utf8.RuneCountInString(before[strings.LastIndex(before, "\n")+1:]) + 1
	return line, col
}

// sectionAt names the section holding byte off, or the gap before the
// next one ("between a and b"), or "end of the stable prefix".
func sectionAt(l engine.Layer, off int) string {
	for i, s := range l.Sections {
		if off >= s.Start && off < s.End {
			return s.ID
		}
		if off < s.Start {
			if i == 0 {
				return "before " + s.ID
			}
			return "between " + l.Sections[i-1].ID + " and " + s.ID
		}
	}
	return "end of the stable prefix"
}

// excerpt is up to excerptChars characters of s from off, as they are
// (newlines included), with "…" added when s goes on; "" at the end of s.
// Showing it on one line is the printer's business.
func excerpt(s string, off int) string {
	if off >= len(s) {
		return ""
	}
	rest := s[off:]
	cut := runes.First(rest, excerptChars)
	if len(cut) < len(rest) {
		cut += "…"
	}
	return cut
}

// dynamicChanges lists the dynamic sections whose text differs or that
// exist on one side only, in the order they appear.
func dynamicChanges(a, b engine.Layer) []string {
	text := func(l engine.Layer) (map[string]string, []string) {
		m := map[string]string{}
		var order []string
		for _, s := range l.Sections {
			if s.Tier == engine.TierDynamic {
				m[s.ID] = l.Text[s.Start:s.End]
				order = append(order, s.ID)
			}
		}
		return m, order
	}
	ta, oa := text(a)
	tb, ob := text(b)
	out := []string{}
	seen := map[string]bool{}
	for _, id := range append(oa, ob...) {
		if seen[id] {
			continue
		}
		seen[id] = true
		if ta[id] != tb[id] {
			out = append(out, id)
		}
	}
	return out
}

// PackDiff compares the renders of the same requests with two packs.
type PackDiff struct {
	SchemaVersion int `json:"schema_version"` // always SchemaVersion
	// Verdict is VerdictSame when every request renders the same text
	// with both packs, else VerdictDiffers.
	Verdict string `json:"verdict"`
	// A and B name the packs ("builtin" or a directory); the caller sets them.
	A         string        `json:"a"`
	B         string        `json:"b"`
	Tokenizer string        `json:"tokenizer"`
	Requests  []RequestDiff `json:"requests"`
}

// RequestDiff is one request rendered with pack A and with pack B.
type RequestDiff struct {
	Request      string          `json:"request"`
	Verdict      string          `json:"verdict"`
	StableChange bool            `json:"stable_prefix_changed"`
	Sections     []SectionChange `json:"sections_changed"` // in B's order, then those only A has
	Chars        SizeChange      `json:"chars"`            // the whole prompt, every layer
	Tokens       SizeChange      `json:"tokens"`
}

// SectionChange is a section whose text differs between two renders,
// or that renders on one side only (a size of 0 there).
type SectionChange struct {
	Layer  string      `json:"layer"`
	ID     string      `json:"id"`
	Tier   engine.Tier `json:"tier"`
	Chars  SizeChange  `json:"chars"`
	Tokens SizeChange  `json:"tokens"`
}

// SizeChange is a size on each side and B's less A's.
type SizeChange struct {
	A     int `json:"a"`
	B     int `json:"b"`
	Delta int `json:"delta"`
}

func sizeChange(a, b int) SizeChange { return SizeChange{a, b, b - a} }

// CompareRequest compares two renders of one request (with two packs,
// say): which sections changed, whether any stable prefix did, and how
// the prompt's size moved, counted with tok.
func CompareRequest(name string, a, b *engine.Result, tok Tokenizer) RequestDiff {
	d := RequestDiff{Request: name, Sections: []SectionChange{}}
	type side struct {
		text string
		tier engine.Tier
	}
	sections := func(res *engine.Result) (map[string]side, []SectionChange) {
		m := map[string]side{}
		var order []SectionChange
		for _, l := range res.Layers {
			for _, s := range l.Sections {
				m[l.Name+"/"+s.ID] = side{l.Text[s.Start:s.End], s.Tier}
				order = append(order, SectionChange{Layer: l.Name, ID: s.ID, Tier: s.Tier})
			}
		}
		return m, order
	}
	inA, orderA := sections(a)
	inB, orderB := sections(b)
	seen := map[string]bool{}
	for _, c := range slices.Concat(orderB, orderA) {
		key := c.Layer + "/" + c.ID
		if seen[key] {
			continue
		}
		seen[key] = true
		sa, okA := inA[key]
		sb, okB := inB[key]
		if okA == okB && sa.text == sb.text {
			continue
		}
		c.Chars = sizeChange(utf8.RuneCountInString(sa.text), utf8.RuneCountInString(sb.text))
		c.Tokens = sizeChange(tok.Count(sa.text), tok.Count(sb.text))
		d.Sections = append(d.Sections, c)
	}
	total := func(res *engine.Result) (chars, tokens int) {
		for _, l := range res.Layers {
			chars += utf8.RuneCountInString(l.Text)
			tokens += tok.Count(l.Text)
		}
		return chars, tokens
	}
	ca, ta := total(a)
	cb, tb := total(b)
	d.Chars, d.Tokens = sizeChange(ca, cb), sizeChange(ta, tb)
	same := len(a.Layers) == len(b.Layers)
	for i := range max(len(a.Layers), len(b.Layers)) {
		la, lb := layerAt(a.Layers, i), layerAt(b.Layers, i)
		d.StableChange = d.StableChange || la.Stable != lb.Stable
		same = same && la.Text == lb.Text
	}
	d.Verdict = verdict(same)
	return d
}

// layerAt is layers[i], or an empty layer past the end: the side of a
// comparison that has fewer layers.
func layerAt(layers []engine.Layer, i int) engine.Layer {
	if i < len(layers) {
		return layers[i]
	}
	return engine.Layer{}
}
