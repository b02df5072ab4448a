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
		Total: report.Size{Chars: 4000, Tokens: 1000},
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

	segs := pagetest.All(doc, pagetest.WithClass("seg"))
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
	segs := pagetest.All(doc, pagetest.WithClass("seg"))
	require.Len(t, segs, 3)
	assert.Equal(t, "big", pagetest.Text(segs[0]), "899 of 1,000 tokens")
	assert.Empty(t, pagetest.Text(segs[1]), "1 of 1,000 tokens")
	title, _ := pagetest.Attr(segs[1], "title")
	assert.Contains(t, title, ": 1 tokens, 4 chars, 0.1%")
	style, _ := pagetest.Attr(segs[0], "style")
	assert.Equal(t, "flex-grow: 899", style)
}

// The text people read shows the report's numbers, each from its own
// field: the figures differ, so a cell filled from the wrong one fails.
func TestHTMLShowsTheNumbers(t *testing.T) {
	r := hostileReport()
	r.Skills.Found, r.Tools.SchemaChars = 1200, 2345
	doc := pagetest.Parse(t, writePage(t, r))
	assert.Equal(t, map[string]string{"Prompt": "1,000 tokens", "Cacheable prefix": "900 tokens · 90.0%",
		"Prompt text": "4,000 chars", "With tool schemas": "6,345 chars"}, pagetest.Cards(t, pagetest.ByID(t, doc, "totals")))
	figures := pagetest.All(doc, pagetest.WithClass("figures"))
	require.Len(t, figures, 1)
	assert.Equal(t, "1,000 tokens · 4,000 chars · 3 sections", pagetest.Text(figures[0]))
	legend := pagetest.All(doc, pagetest.WithClass("legend"))
	require.NotEmpty(t, legend)
	assert.Equal(t, "stable prefix: 900 tokens (90.0%)dynamic: 100 tokens (10.0%)", pagetest.Text(legend[0]))
	rows := pagetest.All(doc, pagetest.Tag("tr", "data-section"))
	require.Len(t, rows, 3)
	assert.Equal(t, []string{"", "big", "stable", "3,596", "899", "89.9%"}, pagetest.Cells(rows[0]))
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
	assert.Len(t, pagetest.All(doc, func(n *html.Node) bool { return n.Data == "section" }), 5)
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 60000: "60,000", 1234567: "1,234,567", -4200: "-4,200"} {
		assert.Equal(t, want, report.Thousands(n))
	}
}
