package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/internal/echo"
)

// htmlSource is the page's template. html/template escapes every string
// from the report (file and skill names, section ids, reasons, paths), so
// a hostile workspace cannot put markup on the page.
//
//go:embed html.tmpl
var htmlSource string

// htmlPage is parsed on first use: a plain render links this package but
// never writes a page, and parsing it costs a cold start ~2,500 allocations.
var htmlPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"thousands": Thousands,
	}).Parse(htmlSource))
})

// segmentColour is the i-th segment's colour of a bar: hues 137 degrees
// apart (137 and 360 are coprime, so no two of the first 360 share a
// hue), lightness alternating, so neighbours differ and every segment
// can be told by its legend entry's swatch.
func segmentColour(i int) template.CSS {
	return template.CSS(fmt.Sprintf("hsl(%d, 62%%, %d%%)", i*137%360, 42+i%2*14))
}

// groupLabels name the request's groups for people.
var groupLabels = map[string]string{
	"sections": "system text", "files": "workspace files", "skills": "skills catalog",
	"boundary": "cache boundary", "tools": "tools (descriptions and schemas)", "messages": "messages",
}

// A bar is about barPixels wide on a desktop screen, and an id's label
// takes about labelPixels per character plus labelPadding; narrower
// segments stay unlabelled rather than show a clipped stub.
const (
	barPixels    = 1000
	labelPixels  = 7
	labelPadding = 12
)

// WriteHTML writes the report as one self-contained web page: inline
// style only, no script, nothing fetched (its Content-Security-Policy
// forbids every load). Each layer gets a bar of its sections by tokens,
// split at the cache boundary; then the workspace files, the skills
// catalog, the tools and each layer's stable prefix hash. Elements carry
// data- attributes with the report's numbers for tools that read the
// page. Bidi, zero-width and other invisible format characters in names
// show as \u escapes (\u202e), so a name cannot hide or reorder what the page
// says. The same report gives the same bytes.
func WriteHTML(w io.Writer, r Report) error {
	var b strings.Builder
	if err := htmlPage().Execute(&b, newPageView(r)); err != nil {
		return err
	}
	_, err := io.WriteString(w, echo.Visible(b.String()))
	return err
}

// Thousands formats n with a comma between each group of three digits.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	b.WriteString(sign)
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// pageView is the report plus what the page draws from it: bar
// proportions, CSS widths and display strings, worked out here so the
// template only places them.
type pageView struct {
	Report
	Groups       []groupView // the request by group, each with its colour
	WindowSegs   []groupView // the groups, the output reserve and free space, against the window
	UsedShare    string      // of the window
	Bars         []layerView
	WithSchemas  int    // the prompt's chars plus the tool schemas
	CachedTokens int    // every layer's stable prefix
	CachedShare  string // of the prompt's tokens
	BudgetWidth  string // injected chars against the total budget
	BudgetShare  string
	FileRows     []fileView
	SkillRows    []skillView
	ToolRows     []toolView
	ToolTotal    int // description and schema chars of every tool
	DescWidth    string
	SchemaWidth  string
}

type layerView struct {
	LayerReport
	StableSegs, DynamicSegs []segmentView
	Segs                    []segmentView // StableSegs then DynamicSegs, for the table
	// StableShare and DynamicShare are of the layer's tokens.
	StableShare, DynamicShare string
	// LabelLeft puts the boundary's label to the right of the line, when
	// the stable part is too narrow to hold it.
	LabelLeft bool
}

// groupView is one segment of the request or window bar and its
// legend entry.
type groupView struct {
	Key, Label string
	Colour     template.CSS
	Size
	Share     string // of the request, or of the window
	ShowLabel bool   // wide enough for its label on a full-width page
}

type segmentView struct {
	SectionReport
	Colour template.CSS
	Share  string // of the layer's section tokens
	Label  bool   // wide enough to print its id on a full-width page
}

type fileView struct {
	FileReport
	RawWidth      string // against the largest file
	InjectedWidth string // against the file's own raw size
	Cause         string
}

type skillView struct {
	SkillBlock
	Width string // against the largest block
}

type toolView struct {
	ToolReport
	DescWidth, SchemaWidth string // against the largest tool
}

func newPageView(r Report) pageView {
	v := pageView{Report: r}
	v.Groups, v.WindowSegs = groupViews(r)
	v.UsedShare = share(r.Window.Used, r.Window.ContextWindow)
	for _, l := range r.Layers {
		v.Bars = append(v.Bars, newLayerView(l, r.Sections))
		v.CachedTokens += l.Stable.Tokens
	}
	v.CachedShare = share(v.CachedTokens, r.Total.Tokens)
	v.WithSchemas = r.Total.Chars + r.Tools.SchemaChars
	b := r.Bootstrap
	v.BudgetWidth = cssWidth(b.InjectedChars, b.TotalMaxChars)
	v.BudgetShare = share(b.InjectedChars, b.TotalMaxChars)
	v.FileRows = fileViews(b.Files)
	v.SkillRows = skillViews(r.Skills.Entries)
	v.ToolRows = toolViews(r.Tools.Entries)
	v.ToolTotal = r.Tools.DescriptionChars + r.Tools.SchemaChars
	v.DescWidth = cssWidth(r.Tools.DescriptionChars, v.ToolTotal)
	v.SchemaWidth = cssWidth(r.Tools.SchemaChars, v.ToolTotal)
	return v
}

func newLayerView(l LayerReport, sections []SectionReport) layerView {
	v := layerView{LayerReport: l}
	stable, total := 0, 0 // the sections' tokens, which set the bar's proportions
	for _, s := range sections {
		if s.Layer != l.Name {
			continue
		}
		v.Segs = append(v.Segs, segmentView{SectionReport: s, Colour: segmentColour(len(v.Segs))})
		total += s.Tokens
		if s.Tier == engine.TierStable {
			stable += s.Tokens
		}
	}
	for i := range v.Segs {
		seg := &v.Segs[i]
		seg.Share = share(seg.Tokens, total)
		seg.Label = fits(seg.Tokens, total, seg.ID)
		if seg.Tier == engine.TierStable {
			v.StableSegs = append(v.StableSegs, *seg)
		} else {
			v.DynamicSegs = append(v.DynamicSegs, *seg)
		}
	}
	v.StableShare = share(l.Stable.Tokens, l.Total.Tokens)
	v.DynamicShare = share(l.Dynamic.Tokens, l.Total.Tokens)
	v.LabelLeft = stable*4 < total
	return v
}

// groupColours are the groups' colours; the reserve and free space are
// drawn apart, hatched and plain.
var groupColours = map[string]template.CSS{
	"sections": "#4e79a7", "files": "#59a14f", "skills": "#b07aa1",
	"boundary": "#555b66", "tools": "#f28e2b", "messages": "#e15759",
	"reserve": "#9aa2b0", "free": "#d5d9e0",
}

// groupViews are the request's groups, with their share of the request,
// and the window bar: the groups, the output reserve and the free space,
// with their share of the window (none when the window is unknown).
func groupViews(r Report) (groups, window []groupView) {
	for _, g := range r.Groups {
		gv := groupView{Key: g.Name, Label: groupLabels[g.Name], Colour: groupColours[g.Name], Size: g.Size, Share: share(g.Tokens, r.Request.Tokens)}
		gv.ShowLabel = fits(g.Tokens, max(1, r.Request.Tokens), gv.Label)
		groups = append(groups, gv)
	}
	w := r.Window
	if w.ContextWindow <= 0 {
		return groups, nil
	}
	for _, g := range groups {
		g.Share = share(g.Tokens, w.ContextWindow)
		g.ShowLabel = false
		window = append(window, g)
	}
	window = append(window,
		groupView{Key: "reserve", Label: "output reserve", Colour: groupColours["reserve"], Size: Size{Tokens: w.OutputReserve}, Share: share(w.OutputReserve, w.ContextWindow)},
		groupView{Key: "free", Label: "free", Colour: groupColours["free"], Size: Size{Tokens: max(0, w.Free)}, Share: share(max(0, w.Free), w.ContextWindow)})
	for i := range window[len(window)-2:] {
		g := &window[len(window)-2+i]
		g.ShowLabel = fits(g.Tokens, w.ContextWindow, g.Label)
	}
	return groups, window
}

func fileViews(files []FileReport) []fileView {
	largest := 0
	for _, f := range files {
		largest = max(largest, f.RawChars)
	}
	out := make([]fileView, 0, len(files))
	for _, f := range files {
		out = append(out, fileView{FileReport: f, RawWidth: cssWidth(f.RawChars, largest),
			InjectedWidth: cssWidth(f.InjectedChars, f.RawChars), Cause: fileCause(f)})
	}
	return out
}

// fileCause says why a file was cut or left out, and whether it is near
// its limit.
func fileCause(f FileReport) string {
	var parts []string
	if f.Reason != "" && f.Status != "OK" && f.Status != "TRUNCATED" {
		parts = append(parts, f.Reason)
	} else if len(f.Causes) > 0 {
		parts = append(parts, strings.Join(f.Causes, " and "))
	}
	if f.ShowNearLimit() {
		parts = append(parts, "near the per-file limit")
	}
	if f.BoundaryMarkers > 0 {
		parts = append(parts, fmt.Sprintf("held %d cache boundary marker(s), shown as %q", f.BoundaryMarkers, engine.BoundaryRemoved))
	}
	return strings.Join(parts, "; ")
}

func skillViews(entries []SkillBlock) []skillView {
	largest := 0
	for _, e := range entries {
		largest = max(largest, e.BlockChars)
	}
	out := make([]skillView, 0, len(entries))
	for _, e := range entries {
		out = append(out, skillView{SkillBlock: e, Width: cssWidth(e.BlockChars, largest)})
	}
	return out
}

func toolViews(entries []ToolReport) []toolView {
	largest := 0
	for _, e := range entries {
		largest = max(largest, e.DescriptionChars+e.SchemaChars)
	}
	out := make([]toolView, 0, len(entries))
	for _, e := range entries {
		out = append(out, toolView{ToolReport: e, DescWidth: cssWidth(e.DescriptionChars, largest),
			SchemaWidth: cssWidth(e.SchemaChars, largest)})
	}
	return out
}

// fits says whether a segment of part tokens, in a bar of whole, is wide
// enough for its label on a full-width page.
func fits(part, whole int, label string) bool {
	return scaled(part, whole, barPixels) >= labelPixels*utf8.RuneCountInString(label)+labelPadding
}

// scaled is part*scale/whole rounded down (a negative part counts as 0,
// and a quotient past an int, or whole 0, as math.MaxInt), in integer
// arithmetic so every machine prints the same bytes, and in 128 bits: a
// window may be as large as an int (-context-window takes any), where
// part*scale would overflow.
func scaled(part, whole, scale int) int {
	hi, lo := bits.Mul64(uint64(max(part, 0)), uint64(scale))
	if hi >= uint64(whole) {
		return math.MaxInt
	}
	q, _ := bits.Div64(hi, lo, uint64(whole))
	return int(min(q, math.MaxInt))
}

// cssWidth is part of whole as a CSS percentage with two decimals.
func cssWidth(part, whole int) string {
	if whole <= 0 || part <= 0 {
		return "0%"
	}
	p := scaled(min(part, whole), whole, 10000)
	return fmt.Sprintf("%d.%02d%%", p/100, p%100)
}

// share is part of whole as a percentage with one decimal, for people.
func share(part, whole int) string {
	if whole <= 0 {
		return "0%"
	}
	p := scaled(part, whole, 1000)
	return fmt.Sprintf("%d.%d%%", p/10, p%10)
}
