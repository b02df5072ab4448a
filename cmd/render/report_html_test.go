package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/report"
	"github.com/sysprompt/sysprompt/internal/pagetest"
)

// examplePages are the flags of the pages checked: a one-layer harness
// with both tiers, the codex harness's developer and collaboration layers,
// and a workspace whose files are cut and missing.
func examplePages(t *testing.T) map[string][]string {
	t.Helper()
	dir := writeFiles(t, map[string]string{
		"ws/AGENTS.md": strings.Repeat("Be kind. ", 200),
		"ws/SOUL.md":   "Calm.\n",
		"c.toml":       "[agents.defaults]\nbootstrapMaxChars = 1000\n",
	})
	examples := func(request string) []string {
		return []string{"-workspace", "../../examples/workspace", "-config", "../../examples/agents.toml", "-request", "../../examples/requests/" + request}
	}
	return map[string][]string{
		"direct":    examples("direct.toml"),
		"codex":     examples("codex.toml"),
		"truncated": {"-workspace", filepath.Join(dir, "ws"), "-config", filepath.Join(dir, "c.toml"), "-request", "../../examples/requests/direct.toml"},
	}
}

// reportAndPage runs report json and report html with the same flags.
func reportAndPage(t *testing.T, args []string) (report.Report, *html.Node) {
	t.Helper()
	code, out, errOut := cli(append([]string{"report", "json"}, args...)...)
	require.Equal(t, 0, code, errOut)
	var rep report.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	code, page, errOut := cli(append([]string{"report", "html"}, args...)...)
	require.Equal(t, 0, code, errOut)
	return rep, pagetest.Parse(t, page)
}

// attrInt reads an integer attribute, failing the test when it is not one.
func attrInt(t *testing.T, n *html.Node, key string) int {
	t.Helper()
	v, ok := pagetest.Attr(n, key)
	require.True(t, ok, "<%s> has no %s", n.Data, key)
	i, err := strconv.Atoi(v)
	require.NoError(t, err, "%s=%q", key, v)
	return i
}

func attrStr(n *html.Node, key string) string {
	v, _ := pagetest.Attr(n, key)
	return v
}

// The page shows the numbers report json gives, for every example: in
// its data- attributes, and in the text people read, formatted as the
// page formats them (report.Thousands), since a template can fill the
// two from different fields.
func TestReportHTMLMatchesJSON(t *testing.T) {
	for name, args := range examplePages(t) {
		t.Run(name, func(t *testing.T) {
			rep, doc := reportAndPage(t, args)
			if name == "truncated" {
				statuses := map[string]string{}
				for _, f := range rep.Bootstrap.Files {
					statuses[f.Name] = f.Status
				}
				require.Equal(t, "TRUNCATED", statuses["AGENTS.md"])
				require.Equal(t, "MISSING", statuses["TOOLS.md"])
			}
			assert.Empty(t, pagetest.ExternalRefs(doc))
			checkTotals(t, rep, doc)
			checkRequest(t, rep, doc)
			checkBars(t, rep, doc)
			checkSectionTable(t, rep, doc)
			checkFiles(t, rep, doc)
			checkSkills(t, rep, doc)
			checkTools(t, rep, doc)
			checkPrefixes(t, rep, doc)
		})
	}
}

func checkTotals(t *testing.T, rep report.Report, doc *html.Node) {
	totals := pagetest.ByID(t, doc, "totals")
	assert.Equal(t, rep.Total.Chars, attrInt(t, totals, "data-total-chars"))
	assert.Equal(t, rep.Total.Tokens, attrInt(t, totals, "data-total-tokens"))
	cached := 0
	for _, l := range rep.Layers {
		cached += l.Stable.Tokens
	}
	assert.Equal(t, cached, attrInt(t, totals, "data-cached-tokens"))
	w := rep.Window
	assert.Equal(t, rep.Request.Tokens, attrInt(t, totals, "data-request-tokens"))
	assert.Equal(t, rep.Request.Chars, attrInt(t, totals, "data-request-chars"))
	assert.Equal(t, w.ContextWindow, attrInt(t, totals, "data-context-window"))
	assert.Equal(t, w.OutputReserve, attrInt(t, totals, "data-output-reserve"))
	assert.Equal(t, w.Free, attrInt(t, totals, "data-free"))
	cards := pagetest.Cards(t, totals)
	assert.Len(t, cards, 5)
	require.Positive(t, w.ContextWindow, "every example names a model the pack's table knows")
	assert.Equal(t, num(rep.Request.Tokens)+" tokens · "+num(rep.Request.Chars)+" chars", cards["Request"])
	assert.Equal(t, num(w.ContextWindow)+" tokens · "+w.Model, cards["Context window"])
	assert.Equal(t, fmt.Sprintf("%d.%d%% of the window", w.UsedPermille/10, w.UsedPermille%10), cards["Used"])
	assert.Equal(t, num(w.Free)+" tokens after a "+num(w.OutputReserve)+"-token output reserve", cards["Free"])
	assert.True(t, strings.HasPrefix(cards["Cacheable prefix"], num(cached)+" tokens · "), cards["Cacheable prefix"])
}

// checkRequest reads the request bar and the window bar: a segment per
// group with report json's figures, then the output reserve and free
// space, and a legend entry for each.
func checkRequest(t *testing.T, rep report.Report, doc *html.Node) {
	var got []report.GroupReport
	for _, seg := range pagetest.Children(pagetest.ByID(t, doc, "request-bar")) {
		got = append(got, report.GroupReport{Name: attrStr(seg, "data-group"), Size: report.Size{Chars: attrInt(t, seg, "data-chars"), Tokens: attrInt(t, seg, "data-tokens")}})
	}
	assert.Equal(t, rep.Groups, got)
	window := pagetest.Children(pagetest.ByID(t, doc, "window-bar"))
	require.Len(t, window, len(rep.Groups)+2)
	assert.Equal(t, "reserve", attrStr(window[len(window)-2], "data-group"))
	assert.Equal(t, rep.Window.OutputReserve, attrInt(t, window[len(window)-2], "data-tokens"))
	assert.Equal(t, "free", attrStr(window[len(window)-1], "data-group"))
	assert.Equal(t, rep.Window.Free, attrInt(t, window[len(window)-1], "data-tokens"))
	legend := pagetest.All(pagetest.ByID(t, doc, "request"), pagetest.WithAttr("data-legend"))
	assert.Len(t, legend, 2*len(rep.Groups)+2, "a legend entry for every segment of both bars")
}

// checkLayerText reads the figures and the legend shown above a layer's
// bar.
func checkLayerText(t *testing.T, layer report.LayerReport, sections int, article *html.Node) {
	t.Helper()
	figures := pagetest.All(article, pagetest.WithClass("figures"))
	require.Len(t, figures, 1)
	assert.Equal(t, fmt.Sprintf("%s tokens · %s chars · %d sections", num(layer.Total.Tokens), num(layer.Total.Chars), sections), pagetest.Text(figures[0]))
	legends := pagetest.All(article, pagetest.WithClass("legend"))
	require.Len(t, legends, 1)
	keys := pagetest.Children(legends[0])
	require.Len(t, keys, 3)
	assert.True(t, strings.HasPrefix(pagetest.Text(keys[0]), "stable prefix: "+num(layer.Stable.Tokens)+" tokens ("), pagetest.Text(keys[0]))
	assert.Equal(t, "cache boundary: "+num(layer.Boundary.Tokens)+" tokens", pagetest.Text(keys[1]))
	assert.True(t, strings.HasPrefix(pagetest.Text(keys[2]), "dynamic, striped: "+num(layer.Dynamic.Tokens)+" tokens ("), pagetest.Text(keys[2]))
}

// checkBars reads each layer's bar: its sections in order, stable ones
// before the boundary and dynamic ones after it, with their figures.
func checkBars(t *testing.T, rep report.Report, doc *html.Node) {
	bars := pagetest.All(pagetest.ByID(t, doc, "sections"), pagetest.WithClass("bar"))
	require.Len(t, bars, len(rep.Layers), "one bar per layer")
	var got []report.SectionReport
	for i, bar := range bars {
		layer := rep.Layers[i]
		article := bar.Parent
		assert.Equal(t, layer.Name, attrStr(article, "data-layer"))
		assert.Equal(t, layer.Total.Tokens, attrInt(t, article, "data-total-tokens"))
		assert.Equal(t, layer.Stable.Tokens, attrInt(t, article, "data-stable-tokens"))
		assert.Equal(t, layer.Dynamic.Tokens, attrInt(t, article, "data-dynamic-tokens"))
		checkLayerText(t, layer, len(pagetest.All(bar, pagetest.WithClass("seg"))), article)
		boundaries := 0
		for _, child := range pagetest.Children(bar) {
			if pagetest.WithClass("boundary")(child) {
				boundaries++
				assert.Equal(t, layer.Name, attrStr(child, "data-boundary"))
				continue
			}
			s := sectionFrom(t, child)
			assert.Equal(t, layer.Name, s.Layer)
			wantTier := map[bool]string{true: "dynamic", false: "stable"}[boundaries > 0]
			assert.Equal(t, wantTier, string(s.Tier), "%s is on the %s side of the boundary", s.ID, wantTier)
			assert.True(t, strings.HasPrefix(attrStr(child, "style"), "flex-grow: "+strconv.Itoa(s.Tokens)+";"), "%s is as wide as its tokens", s.ID)
			got = append(got, s)
		}
		assert.Equal(t, 1, boundaries, "%s: one cache boundary", layer.Name)
	}
	assert.Equal(t, rep.Sections, got)
}

func sectionFrom(t *testing.T, n *html.Node) report.SectionReport {
	t.Helper()
	s := report.SectionReport{Layer: attrStr(n, "data-layer"), ID: attrStr(n, "data-section"), Tier: engine.Tier(attrStr(n, "data-tier"))}
	s.Chars = attrInt(t, n, "data-chars")
	s.Tokens = attrInt(t, n, "data-tokens")
	return s
}

func checkSectionTable(t *testing.T, rep report.Report, doc *html.Node) {
	rows := pagetest.All(doc, pagetest.Tag("tr", "data-section"))
	require.Len(t, rows, len(rep.Sections))
	for i, row := range rows {
		want := rep.Sections[i]
		got := sectionFrom(t, row)
		got.Overridden = want.Overridden // shown as a tag, checked below
		assert.Equal(t, want, got)
		c := pagetest.Cells(row)
		require.Len(t, c, 6)
		assert.Equal(t, want.ID+map[bool]string{true: "override", false: ""}[want.Overridden], c[1])
		assert.Equal(t, []string{string(want.Tier), num(want.Tokens), num(want.Chars)}, c[2:5])
	}
}

func checkFiles(t *testing.T, rep report.Report, doc *html.Node) {
	b := rep.Bootstrap
	sec := pagetest.ByID(t, doc, "files")
	assert.Equal(t, b.MaxChars, attrInt(t, sec, "data-max-chars"))
	assert.Equal(t, b.TotalMaxChars, attrInt(t, sec, "data-total-max-chars"))
	assert.Equal(t, b.RawChars, attrInt(t, sec, "data-raw-chars"))
	assert.Equal(t, b.InjectedChars, attrInt(t, sec, "data-injected-chars"))
	assert.Equal(t, b.Truncated, attrInt(t, sec, "data-truncated"))
	hint := pagetest.All(sec, pagetest.WithClass("hint"))
	require.Len(t, hint, 1)
	assert.Contains(t, pagetest.Text(hint[0]), fmt.Sprintf("Budget: %s chars per file, %s in total. Injected %s of %s raw chars",
		num(b.MaxChars), num(b.TotalMaxChars), num(b.InjectedChars), num(b.RawChars)))
	rows := pagetest.All(doc, pagetest.WithAttr("data-file"))
	require.Len(t, rows, len(b.Files))
	for i, row := range rows {
		f := b.Files[i]
		assert.Equal(t, f.Name, attrStr(row, "data-file"))
		assert.Equal(t, f.Status, attrStr(row, "data-status"))
		assert.Equal(t, f.RawChars, attrInt(t, row, "data-raw-chars"))
		assert.Equal(t, f.InjectedChars, attrInt(t, row, "data-injected-chars"))
		c := pagetest.Cells(row)
		require.Len(t, c, 6)
		assert.Equal(t, []string{f.Status, num(f.RawChars), num(f.InjectedChars)}, c[1:4], f.Name)
		if f.Reason != "" && f.Status != "OK" {
			assert.Contains(t, c[5], f.Reason, f.Name)
		}
		for _, cause := range f.Causes {
			assert.Contains(t, c[5], cause, f.Name)
		}
	}
}

func checkSkills(t *testing.T, rep report.Report, doc *html.Node) {
	sk := rep.Skills
	sec := pagetest.ByID(t, doc, "skills")
	assert.Equal(t, sk.Found, attrInt(t, sec, "data-found"))
	assert.Equal(t, sk.Eligible, attrInt(t, sec, "data-eligible"))
	assert.Equal(t, sk.Listed, attrInt(t, sec, "data-listed"))
	assert.Equal(t, sk.CatalogChars, attrInt(t, sec, "data-catalog-chars"))
	cards := pagetest.All(sec, pagetest.WithClass("cards"))
	require.Len(t, cards, 1)
	assert.Equal(t, map[string]string{"Found": num(sk.Found), "Eligible": num(sk.Eligible), "Listed": num(sk.Listed),
		"Catalog": num(sk.CatalogChars) + " chars"}, pagetest.Cards(t, cards[0]))
	rows := pagetest.All(doc, pagetest.WithAttr("data-skill"))
	require.Len(t, rows, len(sk.Entries))
	for i, row := range rows {
		e := sk.Entries[i]
		assert.Equal(t, e.Name, attrStr(row, "data-skill"))
		assert.Equal(t, e.BlockChars, attrInt(t, row, "data-block-chars"))
		assert.Equal(t, []string{e.Name, e.Location, num(e.BlockChars)}, pagetest.Cells(row)[:3])
	}
	assert.Len(t, pagetest.All(doc, pagetest.WithAttr("data-skipped-skill")), len(sk.Skipped))
}

func checkTools(t *testing.T, rep report.Report, doc *html.Node) {
	tl := rep.Tools
	sec := pagetest.ByID(t, doc, "tools")
	assert.Equal(t, len(tl.Entries), attrInt(t, sec, "data-count"))
	assert.Equal(t, tl.DescriptionChars, attrInt(t, sec, "data-description-chars"))
	assert.Equal(t, tl.SchemaChars, attrInt(t, sec, "data-schema-chars"))
	hint := pagetest.All(sec, pagetest.WithClass("hint"))
	require.Len(t, hint, 1)
	assert.True(t, strings.HasPrefix(pagetest.Text(hint[0]), fmt.Sprintf("%d tools. Descriptions (%s chars) are prompt text; JSON schemas (%s chars)",
		len(tl.Entries), num(tl.DescriptionChars), num(tl.SchemaChars))), pagetest.Text(hint[0]))
	rows := pagetest.All(doc, pagetest.WithAttr("data-tool"))
	require.Len(t, rows, len(tl.Entries))
	for i, row := range rows {
		e := tl.Entries[i]
		assert.Equal(t, e.Name, attrStr(row, "data-tool"))
		assert.Equal(t, e.DescriptionChars, attrInt(t, row, "data-description-chars"))
		assert.Equal(t, e.SchemaChars, attrInt(t, row, "data-schema-chars"))
		assert.Equal(t, []string{e.Name, num(e.DescriptionChars), num(e.SchemaChars)}, pagetest.Cells(row)[:3])
	}
}

func checkPrefixes(t *testing.T, rep report.Report, doc *html.Node) {
	codes := pagetest.All(doc, pagetest.WithAttr("data-sha256"))
	require.Len(t, codes, len(rep.Layers))
	for i, code := range codes {
		l := rep.Layers[i]
		require.Len(t, l.StableSHA256, 64)
		assert.Equal(t, l.StableSHA256, attrStr(code, "data-sha256"))
		assert.Equal(t, l.StableSHA256, pagetest.Text(code), "the hash people read")
		row := code.Parent.Parent
		assert.Equal(t, l.Name, attrStr(row, "data-layer"))
		assert.Equal(t, l.Stable.Chars, attrInt(t, row, "data-stable-chars"))
		assert.Equal(t, l.Stable.Tokens, attrInt(t, row, "data-stable-tokens"))
		assert.Equal(t, []string{l.Name, num(l.Stable.Chars), num(l.Stable.Tokens), l.StableSHA256}, pagetest.Cells(row))
	}
}

// -o writes the same page atomically; other views refuse it, and the page
// is the same bytes each time.
func TestReportHTMLOutputFile(t *testing.T) {
	args := examplePages(t)["direct"]
	code, page, errOut := cli(append([]string{"report", "html"}, args...)...)
	require.Equal(t, 0, code, errOut)
	out := filepath.Join(t.TempDir(), "report.html")
	code, stdout, errOut := cli(append([]string{"report", "html", "-o", out}, args...)...)
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, stdout)
	written, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, page, string(written))

	code, _, errOut = cli("report", "list", "-o", out)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "-o applies to report html only")
	code, _, errOut = cli("report", "-o", out, "json")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "-o applies to report html only")
	code, _, errOut = cli("report", "-o", out, "html")
	assert.Equal(t, 0, code, errOut)
	code, _, errOut = cli("report", "pdf")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "want list, detail, json or html")
}
