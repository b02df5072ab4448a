package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/report"
	"github.com/sysprompt/sysprompt/engine/skills"
	"github.com/sysprompt/sysprompt/internal/pagetest"
)

// hostile is text a workspace or pack controls, made to break out of
// every place the page puts text: an element, a quoted attribute, a
// style sheet.
const hostile = `<script>alert(1)</script>"onmouseover="alert(2)'</style><img src=http://example.com/x>`

func hostileReport() report.Report {
	return report.Report{
		Tokenizer: "estimate", Mode: engine.ModeFull, Harness: "embedded", Workspace: "/ws/" + hostile,
		Layers: []report.LayerReport{{Name: "system", Total: report.Size{Chars: 4000, Tokens: 1000},
			Stable: report.Size{Chars: 3600, Tokens: 900}, Dynamic: report.Size{Chars: 400, Tokens: 100}, StableSHA256: "ab12"}},
		Sections: []report.SectionReport{
			{Layer: "system", Tier: engine.TierStable, ID: "big", Size: report.Size{Chars: 3596, Tokens: 899}},
			{Layer: "system", Tier: engine.TierStable, ID: hostile, Size: report.Size{Chars: 4, Tokens: 1}},
			{Layer: "system", Tier: engine.TierDynamic, ID: "late", Size: report.Size{Chars: 400, Tokens: 100}},
		},
		Omitted: []engine.Omission{{ID: hostile, Layer: "system", Reason: hostile}},
		Bootstrap: report.BootstrapReport{MaxChars: 100, TotalMaxChars: 200, RawChars: 300, InjectedChars: 100, Truncated: 1,
			Files: []report.FileReport{{Name: hostile, Path: "/ws/" + hostile, Status: "TRUNCATED", RawChars: 300, InjectedChars: 100,
				Causes: []string{"per-file limit"}, NearLimit: true}}},
		Skills: report.SkillsReport{Found: 2, Eligible: 1, Listed: 1, CatalogChars: 50, Descriptions: true, Note: hostile,
			Entries: []report.SkillBlock{{Name: hostile, Location: hostile, BlockChars: 50}},
			Skipped: []skills.Skipped{{Name: hostile, Location: hostile, Reason: hostile}}},
		Tools: report.ToolsReport{DescriptionChars: 10, SchemaChars: 20,
			Entries: []report.ToolReport{{Name: hostile, DescriptionChars: 10, SchemaChars: 20}}},
		Total:   report.Size{Chars: 4000, Tokens: 1000},
		Request: report.Size{Chars: 4030, Tokens: 1008},
		Groups:  []report.GroupReport{{Name: "sections", Size: report.Size{Chars: 4000, Tokens: 1000}}, {Name: "tools", Size: report.Size{Chars: 30, Tokens: 8}}},
		Window: report.WindowReport{Model: "m-1", ContextWindow: 10000, OutputReserve: 2000, Source: "templates/models.toml",
			Used: 1008, Free: 6992, UsedPermille: 100},
	}
}

func writePage(t *testing.T, r report.Report) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, report.WriteHTML(&buf, r))
	return buf.String()
}

// Names from the workspace and the pack stay text: no element, attribute
// or load comes out of them, and they read back unchanged.
func TestHTMLEscapesUntrustedNames(t *testing.T) {
	page := writePage(t, hostileReport())
	assert.NotContains(t, page, "<script>")
	assert.NotContains(t, page, "<img")
	doc := pagetest.Parse(t, page)
	assert.Empty(t, pagetest.ExternalRefs(doc))
	assert.Empty(t, pagetest.All(doc, pagetest.WithAttr("onmouseover")))

	files := pagetest.All(doc, pagetest.WithAttr("data-file"))
	require.Len(t, files, 1)
	name, _ := pagetest.Attr(files[0], "data-file")
	assert.Equal(t, hostile, name)
	assert.Equal(t, hostile, pagetest.Text(pagetest.All(files[0], func(n *html.Node) bool { return n.Data == "code" })[0]))

	segs := pagetest.All(doc, pagetest.Tag("div", "data-section"))
	require.Len(t, segs, 3)
	id, _ := pagetest.Attr(segs[1], "data-section")
	assert.Equal(t, hostile, id)
	for _, attr := range []string{"data-tool", "data-skill", "data-omitted", "data-skipped-skill"} {
		found := pagetest.All(doc, pagetest.WithAttr(attr))
		require.Len(t, found, 1, attr)
		v, _ := pagetest.Attr(found[0], attr)
		assert.Equal(t, hostile, v, attr)
	}
	title := pagetest.All(doc, func(n *html.Node) bool { return n.Data == "style" })
	require.Len(t, title, 1, "the hostile </style> did not end the style sheet early")
}

// Bidi controls, zero-width and other invisible characters in names show
// as escapes: a file named "evil\u202egnp.md" must not read as
// "evildm.png".
func TestHTMLShowsInvisibleCharactersEscaped(t *testing.T) {
	r := hostileReport()
	r.Bootstrap.Files[0].Name = "evil\u202egnp.md"
	r.Sections[1].ID = "a\u200bb"
	r.Skills.Entries[0].Name = "\u2066skill\u2069"
	r.Tools.Entries[0].Name = "\ufefftool"
	page := writePage(t, r)
	for _, c := range "\u202e\u200b\u2066\u2069\ufeff" {
		assert.NotContains(t, page, string(c), "%U", c)
	}
	for _, want := range []string{`evil\u202egnp.md`, `a\u200bb`, `\u2066skill\u2069`, `\ufefftool`} {
		assert.Contains(t, page, ">"+want+"<")
	}
}

// The page forbids every load and script itself, so a browser enforces
// what the parse tests check.
func TestHTMLContentSecurityPolicy(t *testing.T) {
	doc := pagetest.Parse(t, writePage(t, hostileReport()))
	metas := pagetest.All(doc, func(n *html.Node) bool {
		v, _ := pagetest.Attr(n, "http-equiv")
		return n.Data == "meta" && strings.EqualFold(v, "Content-Security-Policy")
	})
	require.Len(t, metas, 1)
	policy, _ := pagetest.Attr(metas[0], "content")
	assert.Equal(t, "default-src 'none'; style-src 'unsafe-inline'", policy)
}

// Each segment is labelled only when it is wide enough to hold its id;
// every segment keeps its figures in its title.
func TestHTMLSegmentLabels(t *testing.T) {
	doc := pagetest.Parse(t, writePage(t, hostileReport()))
	segs := pagetest.All(doc, pagetest.Tag("div", "data-section"))
	require.Len(t, segs, 3)
	assert.Equal(t, "big", pagetest.Text(segs[0]), "899 of 1,000 tokens")
	assert.Empty(t, pagetest.Text(segs[1]), "1 of 1,000 tokens")
	title, _ := pagetest.Attr(segs[1], "title")
	assert.Contains(t, title, ": 1 tokens, 4 chars, 0.1%")
	style, _ := pagetest.Attr(segs[0], "style")
	assert.Equal(t, "flex-grow: 899; background-color: hsl(0, 62%, 42%)", style)
}

// The text people read shows the report's numbers, each from its own
// field: the figures differ, so a cell filled from the wrong one fails.
func TestHTMLShowsTheNumbers(t *testing.T) {
	r := hostileReport()
	r.Skills.Found, r.Tools.SchemaChars = 1200, 2345
	doc := pagetest.Parse(t, writePage(t, r))
	assert.Equal(t, map[string]string{"Request": "1,008 tokens · 4,030 chars", "Context window": "10,000 tokens · m-1",
		"Used": "10.0% of the window", "Free": "6,992 tokens after a 2,000-token output reserve",
		"Cacheable prefix": "900 tokens · 90.0% of the prompt"}, pagetest.Cards(t, pagetest.ByID(t, doc, "totals")))
	keys := pagetest.All(pagetest.ByID(t, doc, "request"), pagetest.WithAttr("data-legend"))
	var legend []string
	for _, k := range keys {
		legend = append(legend, pagetest.Text(k))
	}
	assert.Equal(t, []string{
		"system text: 1,000 tokens (4,000 chars), 10.0%", "tools (descriptions and schemas): 8 tokens (30 chars), 0.0%",
		"output reserve: 2,000 tokens, 20.0%", "free: 6,992 tokens, 69.9%",
		"system text: 1,000 tokens (4,000 chars), 99.2%", "tools (descriptions and schemas): 8 tokens (30 chars), 0.7%",
	}, legend, "the window's legend, then the request's")
	figures := pagetest.All(doc, pagetest.WithClass("figures"))
	require.Len(t, figures, 1)
	assert.Equal(t, "1,000 tokens · 4,000 chars · 3 sections", pagetest.Text(figures[0]))
	layerLegend := pagetest.All(pagetest.ByID(t, doc, "sections"), pagetest.WithClass("legend"))
	require.NotEmpty(t, layerLegend)
	assert.Equal(t, "stable prefix: 900 tokens (90.0%)cache boundary: 0 tokensdynamic, striped: 100 tokens (10.0%)", pagetest.Text(layerLegend[0]))
	rows := pagetest.All(doc, pagetest.Tag("tr", "data-section"))
	require.Len(t, rows, 3)
	assert.Equal(t, []string{"", "big", "stable", "899", "3,596", "89.9%"}, pagetest.Cells(rows[0]))
	files := pagetest.All(doc, pagetest.WithAttr("data-file"))
	require.Len(t, files, 1)
	assert.Equal(t, []string{hostile, "TRUNCATED", "300", "100", "", "per-file limit"}, pagetest.Cells(files[0]),
		"a truncated file is past its limit, not near it")
	skills := pagetest.All(pagetest.ByID(t, doc, "skills"), pagetest.WithClass("cards"))
	require.Len(t, skills, 1)
	assert.Equal(t, map[string]string{"Found": "1,200", "Eligible": "1", "Listed": "1", "Catalog": "50 chars"}, pagetest.Cards(t, skills[0]))
	prefix := pagetest.All(pagetest.ByID(t, doc, "prefix"), pagetest.Tag("tr", "data-layer"))
	require.Len(t, prefix, 1)
	assert.Equal(t, []string{"system", "3,600", "900", "ab12"}, pagetest.Cells(prefix[0]))
}

// A report with nothing in it still makes a whole page.
func TestHTMLEmptyReport(t *testing.T) {
	page := writePage(t, report.Report{})
	doc := pagetest.Parse(t, page)
	assert.Contains(t, page, "No layers were rendered.")
	assert.Contains(t, page, "No workspace files.")
	assert.Empty(t, pagetest.All(doc, pagetest.WithClass("bar")))
	assert.Len(t, pagetest.All(doc, func(n *html.Node) bool { return n.Data == "section" }), 6)
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 60000: "60,000", 1234567: "1,234,567", -4200: "-4,200"} {
		assert.Equal(t, want, report.Thousands(n))
	}
}

// A window as large as -context-window accepts (any positive int) still
// gives shares between 0 and 100 %: part*1000 would overflow an int.
func TestHTMLHugeWindowShares(t *testing.T) {
	r := hostileReport()
	const window = 1 << 62
	r.Window.ContextWindow, r.Window.Free = window, window-r.Window.OutputReserve-r.Window.Used
	doc := pagetest.Parse(t, writePage(t, r))
	var legend []string
	for _, k := range pagetest.All(pagetest.ByID(t, doc, "request"), pagetest.WithAttr("data-legend")) {
		legend = append(legend, pagetest.Text(k))
	}
	require.Len(t, legend, 6)
	assert.Equal(t, "free: 4,611,686,018,427,384,896 tokens, 99.9%", legend[3])
	free := pagetest.All(pagetest.ByID(t, doc, "request"), pagetest.Tag("div", "data-group"))
	require.NotEmpty(t, free)
	assert.Equal(t, "free", pagetest.Text(free[3]), "the free space fills the bar, so it is labelled")
}
