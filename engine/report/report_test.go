package report_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/provider"
	"github.com/sysprompt/sysprompt/engine/report"
	"github.com/sysprompt/sysprompt/engine/skills"
	"github.com/sysprompt/sysprompt/internal/packtest"
)

// budgetPack injects AGENTS.md, SOUL.md and TOOLS.md (all required) with
// markers whose lengths are easy to count.
func budgetPack(t *testing.T) engine.Request {
	t.Helper()
	return engine.Request{Workspace: engine.Workspace{Path: "/ws"}}
}

func TestReportFigures(t *testing.T) {
	p := packtest.MinimalPack(t, packtest.Manifest(`"identity", "ctx", "late"`), map[string]string{
		"ctx":  packtest.Section(packtest.Stable, "{{ range .Files.Injected }}{{ .Content }}\n{{ end }}"),
		"late": packtest.Section(packtest.Dynamic, "{{ .Channel.ID }}"),
	})
	packtest.SetDefault(t, p, "files", `["AGENTS.md", "SOUL.md", "TOOLS.md"]`)
	packtest.SetDefault(t, p, "optional", "[]")
	packtest.SetDefault(t, p, "max_chars", "100")
	packtest.SetDefault(t, p, "total_max_chars", "200")
	packtest.AddFile(p, "templates/bootstrap.tmpl", `{{ define "file_block" }}{{ .Content }}{{ end }}`+
		`{{ define "missing_marker" }}[missing {{ .Path }}]{{ end }}`+
		`{{ define "truncation_marker" }}[cut {{ .Kept }}/{{ .Raw }}]{{ end }}`+
		`{{ define "binary_marker" }}[binary]{{ end }}`)
	ws := packtest.Workspace(t, map[string]string{
		"AGENTS.md": strings.Repeat("a", 90),  // OK, 90 >= 85% of 100: near the limit
		"SOUL.md":   strings.Repeat("s", 200), // 110 of the total remain: cut to the per-file 100
		"TOOLS.md":  strings.Repeat("t", 50),  // under 64 remain: no further file starts
	})
	req := budgetPack(t)
	req.Channel.ID = "telegram"
	res := packtest.Render(t, p, req, engine.WithFS(ws))
	rep := report.Build(res, nil)

	assert.Equal(t, "estimate", rep.Tokenizer)
	b := rep.Bootstrap
	assert.Equal(t, 100, b.MaxChars)
	assert.Equal(t, 200, b.TotalMaxChars)
	require.Len(t, b.Files, 3)

	agents, soul, tools := b.Files[0], b.Files[1], b.Files[2]
	assert.Equal(t, report.FileReport{Name: "AGENTS.md", Path: "/ws/AGENTS.md", Status: "OK", RawChars: 90, InjectedChars: 90, InjectedTokens: 23, RawTokens: 23, NearLimit: true}, agents)

	assert.Equal(t, "TRUNCATED", soul.Status)
	assert.Equal(t, 200, soul.RawChars)
	assert.Equal(t, []string{"per-file limit"}, soul.Causes)
	assert.True(t, soul.NearLimit)
	assert.LessOrEqual(t, soul.InjectedChars, 100, "the cut fits the per-file budget, marker included")
	assert.Greater(t, soul.InjectedChars, 90, "and uses most of it")

	assert.Contains(t, res.Layers[0].Stable, "/200]", "the marker names the raw size")

	assert.Equal(t, "SKIPPED", tools.Status)
	assert.Equal(t, []string{"total limit"}, tools.Causes)
	assert.Equal(t, 0, tools.InjectedChars)

	assert.Equal(t, 90+soul.InjectedChars, b.InjectedChars)
	assert.Equal(t, agents.RawChars+soul.RawChars+tools.RawChars, b.RawChars)
	assert.Equal(t, 1, b.Truncated)
	assert.True(t, b.TotalNearLimit, "injected >= 85% of 200")

	// Sections: identity, ctx (packtest.Stable), late (packtest.Dynamic), with estimate tokens.
	require.Len(t, rep.Sections, 3)
	assert.Equal(t, report.SectionReport{Layer: "system", Tier: engine.TierStable, ID: "identity", Size: report.Size{Chars: 15, Tokens: 4}}, rep.Sections[0])
	assert.Equal(t, report.SectionReport{Layer: "system", Tier: engine.TierDynamic, ID: "late", Size: report.Size{Chars: 8, Tokens: 2}}, rep.Sections[2])

	// Layer sizes are computed, not counted: check them against the text.
	l := rep.Layers[0]
	assert.Equal(t, len([]rune(res.Layers[0].Stable)), l.Stable.Chars)
	assert.Equal(t, len([]rune(res.Layers[0].Dynamic))+1, l.Dynamic.Chars, "and the final newline")
	assert.Equal(t, len([]rune(res.Layers[0].Text)), l.Total.Chars)
	stable := 0
	for _, p := range rep.Parts {
		if p.Tier == engine.TierStable {
			stable += p.Tokens
		}
	}
	assert.Equal(t, stable, l.Stable.Tokens, "the stable tier's parts")
	assert.Equal(t, res.Layers[0].StableSHA256(), l.StableSHA256)
	assert.Equal(t, l.Total, rep.Total)
}

func TestReportTools(t *testing.T) {
	req := engine.Request{Tools: []engine.Tool{
		{Name: "read", Description: "Read a file.", Schema: engine.Schema(`{"type": "object", "properties": {"path": {"type": "string"}}}`)},
		{Name: "ping"},
	}}
	res := packtest.Render(t, packtest.MinimalPack(t, packtest.Manifest(`"identity"`), nil), req)
	rep := report.Build(res, nil)
	// {"properties":{"path":{"type":"string"}},"type":"object"} is 57
	// characters; ping is sent with {"type":"object","properties":{}}, 33.
	assert.Equal(t, []report.ToolReport{{Name: "read", DescriptionChars: 12, SchemaChars: 57, DescriptionTokens: 3, SchemaTokens: 15}, {Name: "ping", SchemaChars: 33, SchemaTokens: 9}}, rep.Tools.Entries)
	assert.Equal(t, 12, rep.Tools.DescriptionChars)
	assert.Equal(t, 90, rep.Tools.SchemaChars)
}

// A tool without a name is neither listed in the prompt nor sent (no
// API takes it), so the report leaves it out, as diff does: report json
// gives every tool a name.
func TestReportLeavesOutNamelessTools(t *testing.T) {
	req := engine.Request{Tools: []engine.Tool{{Description: "Nameless."}, {Name: "read", Description: "Read."}, {Name: "  ", Description: "Blank."}}}
	res := packtest.Render(t, packtest.MinimalPack(t, packtest.Manifest(`"identity"`), nil), req)
	rep := report.Build(res, nil)
	require.Len(t, rep.Tools.Entries, 1)
	assert.Equal(t, "read", rep.Tools.Entries[0].Name)
	assert.Equal(t, 5, rep.Tools.DescriptionChars)
	for _, p := range rep.Parts {
		assert.NotEmpty(t, strings.TrimSpace(p.Name), "%+v", p)
	}
}

type wordCounter struct{}

func (wordCounter) Name() string       { return "words" }
func (wordCounter) Count(s string) int { return len(strings.Fields(s)) }

func TestReportUsesTheGivenTokenizer(t *testing.T) {
	res := packtest.Render(t, packtest.MinimalPack(t, packtest.Manifest(`"identity"`), nil), engine.Request{})
	rep := report.Build(res, wordCounter{})
	assert.Equal(t, "words", rep.Tokenizer)
	assert.Equal(t, 4, rep.Sections[0].Tokens, "I am the agent.")
	assert.Equal(t, 7, rep.Layers[0].Total.Tokens, "I am the agent. <!-- B -->")
	for _, tc := range []engine.Request{{}, {Mode: engine.ModeNone}} {
		res := packtest.Render(t, packtest.MinimalPack(t, packtest.Manifest(`"identity", "d"`), map[string]string{"d": packtest.Section(packtest.Dynamic, "{{ if .Channel.ID }}x{{ end }}")}), tc)
		rep := report.Build(res, nil)
		assert.Equal(t, len([]rune(res.Layers[0].Text)), rep.Layers[0].Total.Chars, "no dynamic sections")
	}
}

func TestCompare(t *testing.T) {
	e, err := engine.New(packtest.PackWith(t, sysprompt.Pack, nil), engine.WithFS(packtest.Workspace(t, packtest.SmallWorkspace())))
	require.NoError(t, err)
	a, err := e.Render(context.Background(), packtest.DirectRequest())
	require.NoError(t, err)

	volatile := packtest.DirectRequest()
	volatile.Date = "2027-01-01T00:00:00Z"
	volatile.Runtime.Host = "elsewhere"
	b, err := e.Render(context.Background(), volatile)
	require.NoError(t, err)
	d, err := report.Compare(a, b)
	require.NoError(t, err)
	assert.True(t, d.StableIdentical())
	assert.Contains(t, d.Layers[0].DynamicChanged, "runtime")

	stable := packtest.DirectRequest()
	stable.Workspace.Path = "/ws2"
	c, err := e.Render(context.Background(), stable)
	require.NoError(t, err)
	d, err = report.Compare(a, c)
	require.NoError(t, err)
	require.False(t, d.StableIdentical())
	f := d.Layers[0].First
	require.NotNil(t, f)
	assert.Equal(t, "workspace", f.SectionA)
	assert.Equal(t, "workspace", f.SectionB)
	assert.Equal(t, a.Layers[0].Text[:f.Offset], c.Layers[0].Text[:f.Offset])
	assert.NotEqual(t, a.Layers[0].Text[f.Offset], c.Layers[0].Text[f.Offset])
	line := strings.Count(a.Layers[0].Text[:f.Offset], "\n") + 1
	assert.Equal(t, line, f.Line)
	// The excerpts are each side's raw text from the difference on, cut
	// at 60 characters: newlines stay newlines.
	assert.Equal(t, wantExcerpt(a.Layers[0].Stable[f.Offset:]), f.ExcerptA)
	assert.Equal(t, wantExcerpt(c.Layers[0].Stable[f.Offset:]), f.ExcerptB)
	assert.Contains(t, f.ExcerptA+f.ExcerptB, "\n")
	assert.NotContains(t, f.ExcerptA+f.ExcerptB, `\n`)
}

func wantExcerpt(rest string) string {
	r := []rune(rest)
	if len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return rest
}

// A prefix that ends where the other goes on has an empty excerpt.
func TestCompareExcerptAtTheEnd(t *testing.T) {
	m := packtest.Manifest(`"identity", "more"`)
	p := packtest.MinimalPack(t, m, map[string]string{
		"more": packtest.Section(packtest.Stable, `{{ if .Workspace.Path }}more{{ end }}`),
	})
	e, err := engine.New(p)
	require.NoError(t, err)
	a, err := e.Render(context.Background(), engine.Request{})
	require.NoError(t, err)
	b, err := e.Render(context.Background(), engine.Request{Workspace: engine.Workspace{Path: "/ws"}})
	require.NoError(t, err)
	d, err := report.Compare(a, b)
	require.NoError(t, err)
	f := d.Layers[0].First
	require.NotNil(t, f)
	assert.Equal(t, "", f.ExcerptA)
	assert.Equal(t, "\n\nmore", f.ExcerptB)
}

func TestExplain(t *testing.T) {
	m := packtest.Manifest(`"identity", "full", "blank", "style"`) + `
[[harness]]
name = "other"
[[harness.layer]]
name = "system"
sections = ["identity", "extra"]
`
	p := packtest.MinimalPack(t, m, map[string]string{
		"full":  packtest.Section("modes = [\"full\"]\ntier = \"stable\"", "full text"),
		"blank": packtest.Section(packtest.Stable, " "),
		"style": packtest.Section(packtest.Stable+"\noverride = \"tool_call_style\"", "default style"),
		"extra": packtest.Section(packtest.Dynamic, "x"),
	})
	e, err := engine.New(p)
	require.NoError(t, err)
	res, err := e.Render(context.Background(), engine.Request{Mode: engine.ModeMinimal, Contributions: []engine.Contribution{{SectionOverrides: map[string]string{"tool_call_style": "provider style"}}}})
	require.NoError(t, err)
	got := report.Explain(res)
	assert.Equal(t, []report.Explanation{
		{ID: "identity", Layer: "system", Tier: engine.TierStable, Rendered: true, Chars: 15},
		{ID: "full", Layer: "system", Tier: engine.TierStable, Reason: "mode not declared"},
		{ID: "blank", Layer: "system", Tier: engine.TierStable, Reason: "rendered empty"},
		{ID: "style", Layer: "system", Tier: engine.TierStable, Rendered: true, Chars: 14, Reason: "replaced by a provider override"},
		{ID: "extra", Tier: engine.TierDynamic, Reason: "not in a layer of this harness"},
	}, got)
}

// The catalog figures come from the catalog build, so they hold whatever
// the partial's layout: the built-in XML, a restyled list, or a pack that
// never prints the catalog.
func TestReportSkillSizesFollowTheCatalogPartial(t *testing.T) {
	ws := packtest.Workspace(t, map[string]string{
		"AGENTS.md":           "rules",
		"skills/a/SKILL.md":   "---\nname: a\ndescription: Short.\n---\nBody.\n",
		"skills/b/SKILL.md":   "---\nname: b\ndescription: A much longer description of what b does.\n---\nBody.\n",
		"skills/c&d/SKILL.md": "---\nname: c-d\ndescription: Escaped & located.\n---\nBody.\n",
	})
	req := engine.Request{Workspace: engine.Workspace{Path: "/ws"}, Tools: []engine.Tool{{Name: "read"}}}
	chars := utf8.RuneCountInString
	between := func(text, first, last string) string {
		i, j := strings.Index(text, first), strings.LastIndex(text, last)
		require.True(t, i >= 0 && j > i, "%q…%q is in the prompt", first, last)
		return text[i : j+len(last)]
	}

	t.Run("built-in", func(t *testing.T) {
		res := packtest.Render(t, packtest.PackWith(t, sysprompt.Pack, nil), req, engine.WithFS(ws))
		rep := report.Build(res, nil)
		catalog := between(res.Layers[0].Text, "<available_skills>", "</available_skills>")
		assert.Equal(t, chars(catalog), rep.Skills.CatalogChars)
		require.Len(t, rep.Skills.Entries, 3)
		for _, b := range rep.Skills.Entries {
			// A skill adds its <skill> element and the line break and
			// indent before it.
			element := between(catalog, "<skill>\n    <name>"+b.Name+"<", "</skill>")
			element = element[:strings.Index(element, "</skill>")+len("</skill>")]
			assert.Equal(t, chars(element)+3, b.BlockChars, b.Name)
		}
	})

	t.Run("restyled", func(t *testing.T) {
		restyled := `{{ define "skills_catalog" }}{{ range .Listed }}* {{ .Name }}: {{ .Description }}
{{ end }}{{ end }}{{ define "skills_section" }}{{ if .Skills.Listed }}## Skills
{{ .Skills.Catalog }}{{ end }}{{ end }}`
		res := packtest.Render(t, packtest.PackWith(t, sysprompt.Pack, map[string]string{"templates/skills.tmpl": restyled}), req, engine.WithFS(ws))
		rep := report.Build(res, nil)
		assert.Equal(t, chars(between(res.Layers[0].Text, "* a: Short.", "* c-d: Escaped & located.")), rep.Skills.CatalogChars)
		want := map[string]string{"a": "* a: Short.\n", "b": "* b: A much longer description of what b does.\n", "c-d": "* c-d: Escaped & located.\n"}
		for _, b := range rep.Skills.Entries {
			assert.Equal(t, chars(want[b.Name]), b.BlockChars, b.Name)
		}
	})

	t.Run("not printed", func(t *testing.T) {
		silent := `{{ define "skills_catalog" }}{{ range .Listed }}{{ .Name }}{{ end }}{{ end }}{{ define "skills_section" }}{{ if .Skills.Listed }}## Skills{{ end }}{{ end }}`
		res := packtest.Render(t, packtest.PackWith(t, sysprompt.Pack, map[string]string{"templates/skills.tmpl": silent}), req, engine.WithFS(ws))
		rep := report.Build(res, nil)
		assert.Equal(t, 3, rep.Skills.Listed)
		assert.Zero(t, rep.Skills.CatalogChars, "a catalog no section prints costs nothing")
		for _, b := range rep.Skills.Entries {
			assert.Zero(t, b.BlockChars, b.Name)
		}
	})
}

// What discovery could not take in is in the report: a search cut by a
// bound, a skill skipped for its name, a name unlike its folder's.
func TestReportSkillsCutsAndNames(t *testing.T) {
	files := map[string]string{
		"AGENTS.md":                 "rules",
		"skills/Bad_Name/SKILL.md":  "---\ndescription: d\n---\n",
		"skills/z-renamed/SKILL.md": "---\nname: new-name\n---\n",
	}
	for i := range 1100 {
		files[fmt.Sprintf("skills/s%04d/SKILL.md", i)] = fmt.Sprintf("---\nname: s%04d\n---\n", i)
	}
	req := engine.Request{Workspace: engine.Workspace{Path: "/ws"}, Tools: []engine.Tool{{Name: "read"}}}
	res := packtest.Render(t, packtest.PackWith(t, sysprompt.Pack, nil), req, engine.WithFS(packtest.Workspace(t, files)))
	rep := report.Build(res, nil).Skills

	// skills/ lists Bad_Name first (MemMapFs lists in byte order),
	// then 999 of the s folders; z-renamed is never read.
	assert.Equal(t, 999, rep.Found)
	assert.Equal(t, []report.SkillsCut{{Root: "/ws/skills", Reason: "search stopped: at most 1000 entries are read per skills folder"}}, rep.Cuts)
	require.NotEmpty(t, rep.Skipped)
	assert.Equal(t, skills.Skipped{Name: "Bad_Name", Location: "/ws/skills/Bad_Name/SKILL.md", Source: skills.Workspace,
		Reason: `invalid name "Bad_Name" (the folder's name): may hold only lowercase letters a-z, digits and hyphens`}, rep.Skipped[0])
	assert.Empty(t, rep.Warnings)

	data, err := json.Marshal(rep)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"cuts":[{"root":"/ws/skills","reason":"search stopped: at most 1000 entries are read per skills folder","skipped":0}]`)

	delete(files, "skills/Bad_Name/SKILL.md")
	for i := range 1100 {
		delete(files, fmt.Sprintf("skills/s%04d/SKILL.md", i))
	}
	res = packtest.Render(t, packtest.PackWith(t, sysprompt.Pack, nil), req, engine.WithFS(packtest.Workspace(t, files)))
	rep = report.Build(res, nil).Skills
	assert.Equal(t, 1, rep.Listed)
	assert.Equal(t, []skills.Problem{{Path: "/ws/skills/z-renamed/SKILL.md", Line: 2, Message: `name "new-name" differs from its folder "z-renamed"`}}, rep.Warnings)
	assert.Equal(t, []report.SkillsCut{}, rep.Cuts, "no cut: an empty list, not null")
}

// A boundary marker in a file is printed as engine.BoundaryRemoved; the
// file's injected size counts what the prompt holds, not the marker.
func TestReportCountsAFileAsPrinted(t *testing.T) {
	p := packtest.MinimalPack(t, packtest.Manifest(`"identity", "ctx"`), map[string]string{
		"ctx": packtest.Section(packtest.Stable, "{{ range .Files.Injected }}{{ .Content }}\n{{ end }}"),
	})
	packtest.SetDefault(t, p, "files", `["AGENTS.md"]`)
	packtest.SetDefault(t, p, "optional", "[]")
	packtest.AddFile(p, "templates/bootstrap.tmpl", `{{ define "file_block" }}{{ .Content }}{{ end }}`+
		`{{ define "missing_marker" }}[missing]{{ end }}{{ define "truncation_marker" }}[cut]{{ end }}{{ define "binary_marker" }}[binary]{{ end }}`)
	marker := packtest.Render(t, p, budgetPack(t)).Boundary
	require.NotEmpty(t, marker)
	text := "before " + marker + " middle " + marker + " after"
	res := packtest.Render(t, p, budgetPack(t), engine.WithFS(packtest.Workspace(t, map[string]string{"AGENTS.md": text})))
	printed := strings.ReplaceAll(text, marker, engine.BoundaryRemoved)
	require.Contains(t, res.Layers[0].Stable, printed, "the prompt shows the file with the markers replaced")

	rep := report.Build(res, nil)
	require.Len(t, rep.Bootstrap.Files, 1)
	f := rep.Bootstrap.Files[0]
	assert.Equal(t, 2, f.BoundaryMarkers)
	assert.Equal(t, utf8.RuneCountInString(text), f.RawChars, "the raw size is the file's own")
	assert.Equal(t, utf8.RuneCountInString(printed), f.InjectedChars)
	assert.Equal(t, f.InjectedChars, rep.Bootstrap.InjectedChars)

	out, err := json.Marshal(rep)
	require.NoError(t, err)
	assert.Contains(t, string(out), fmt.Sprintf(`"injected_chars":%d`, utf8.RuneCountInString(printed)))
}

// CompareRequest names the sections whose text differs and those that
// render with one pack only, and counts the size change with the given
// tokenizer; the same text on both sides is "same".
func TestCompareRequest(t *testing.T) {
	m := packtest.Manifest(`"identity", "kept", "edited", "gone", "late"`)
	render := func(sections map[string]string) *engine.Result {
		t.Helper()
		e, err := engine.New(packtest.MinimalPack(t, m, sections))
		require.NoError(t, err)
		res, err := e.Render(context.Background(), engine.Request{})
		require.NoError(t, err)
		return res
	}
	a := render(map[string]string{
		"kept":   packtest.Section(packtest.Stable, "kept text"),
		"edited": packtest.Section(packtest.Stable, "one two"),
		"gone":   packtest.Section(packtest.Stable, "only in A"),
		"late":   packtest.Section(packtest.Stable, ""),
	})
	b := render(map[string]string{
		"kept":   packtest.Section(packtest.Stable, "kept text"),
		"edited": packtest.Section(packtest.Stable, "one two three"),
		"gone":   packtest.Section(packtest.Stable, ""),
		"late":   packtest.Section(packtest.Stable, "only in B"),
	})
	d := report.CompareRequest("r.toml", a, b, wordCounter{})
	assert.Equal(t, report.VerdictDiffers, d.Verdict)
	assert.True(t, d.StableChange)
	var got []string
	for _, s := range d.Sections {
		got = append(got, fmt.Sprintf("%s/%s %s %+d chars %+d words", s.Layer, s.ID, s.Tier, s.Chars.Delta, s.Tokens.Delta))
	}
	assert.Equal(t, []string{
		"system/edited stable +6 chars +1 words",
		"system/late stable +9 chars +3 words",
		"system/gone stable -9 chars -3 words",
	}, got, "B's order, then A's only")
	assert.Equal(t, report.SizeChange{A: len([]rune(a.Layers[0].Text)), B: len([]rune(b.Layers[0].Text)), Delta: len([]rune(b.Layers[0].Text)) - len([]rune(a.Layers[0].Text))}, d.Chars)

	same := report.CompareRequest("r.toml", a, a, wordCounter{})
	assert.Equal(t, report.VerdictSame, same.Verdict)
	assert.False(t, same.StableChange)
	assert.Empty(t, same.Sections)
	assert.Zero(t, same.Tokens.Delta)
}

// The report sizes each tool schema as the provider bodies send it:
// encoded without HTML escaping, so "<", ">" and "&" are one character
// each, not six ("\u003c"), and an object schema for a tool with none.
func TestReportToolSchemaSizedAsSent(t *testing.T) {
	req := engine.Request{Tools: []engine.Tool{
		{Name: "grep", Description: "Search.", Schema: engine.Schema(`{"type": "object", "properties": {"pattern": {"type": "string", "description": "a <regexp> & flags"}}}`)},
		{Name: "ping"},
		{Name: "pong", Schema: engine.Schema(`{}`)},
	}}
	res := packtest.Render(t, packtest.MinimalPack(t, packtest.Manifest(`"identity"`), nil), req)
	body, err := provider.Anthropic(res, engine.Runtime{}, provider.Model("m"))
	require.NoError(t, err)
	for _, tok := range []report.Tokenizer{nil, wordCounter{}} {
		rep := report.Build(res, tok)
		for i, tool := range body.Tools {
			sent := string(tool.InputSchema)
			assert.Equal(t, utf8.RuneCountInString(sent), rep.Tools.Entries[i].SchemaChars, sent)
			if tok != nil {
				assert.Equal(t, tok.Count(sent), rep.Tools.Entries[i].SchemaTokens, sent)
			}
		}
	}
}

// A layer's stable size is its stable prefix, the text its sha256 covers,
// also when no dynamic text follows it (mode none, or dynamic sections
// that all render empty): the layer's final newline comes after that
// prefix.
func TestReportStableSizeIsTheHashedPrefix(t *testing.T) {
	p := packtest.MinimalPack(t, packtest.Manifest(`"identity", "d"`), map[string]string{"d": packtest.Section(packtest.Dynamic, "{{ if .Channel.ID }}x{{ end }}")})
	for name, req := range map[string]engine.Request{
		"with dynamic text":  {Channel: engine.Channel{ID: "telegram"}},
		"empty dynamic tier": {},
		"mode none":          {Mode: engine.ModeNone},
	} {
		res := packtest.Render(t, p, req)
		l := res.Layers[0]
		for _, tok := range []report.Tokenizer{nil, wordCounter{}} {
			rep := report.Build(res, tok)
			lr := rep.Layers[0]
			assert.Equal(t, utf8.RuneCountInString(l.Stable), lr.Stable.Chars, "%s: stable prefix %q", name, l.Stable)
			assert.Equal(t, utf8.RuneCountInString(l.Text), lr.Total.Chars, name)
			assert.Equal(t, lr.Total.Chars, lr.Stable.Chars+lr.Boundary.Chars+lr.Dynamic.Chars, name)
			assert.Equal(t, lr.Total.Tokens, lr.Stable.Tokens+lr.Boundary.Tokens+lr.Dynamic.Tokens, name)
		}
	}
}

// Tools are compared as a provider's cache sees them: by definition and
// by order, with schemas compared as compact JSON.
func TestCompareTools(t *testing.T) {
	tool := func(name, description, schema string) engine.Tool {
		return engine.Tool{Name: name, Description: description, Schema: engine.Schema(schema)}
	}
	compare := func(a, b []engine.Tool) report.ToolsDiff {
		d, err := report.Compare(&engine.Result{Harness: "embedded", Tools: a}, &engine.Result{Harness: "embedded", Tools: b})
		require.NoError(t, err)
		assert.Equal(t, d.Tools.Identical, d.Same(), "with no layers, the tools decide")
		return d.Tools
	}
	read, exec := tool("read", "Read a file.", `{"type":"object"}`), tool("exec", "Run a command.", "")

	same := compare([]engine.Tool{read, exec}, []engine.Tool{tool("read", "Read a file.", "{ \"type\" : \"object\" }\n"), exec})
	assert.Equal(t, report.ToolsDiff{Identical: true, Changed: []report.ToolChange{}}, same)

	reordered := compare([]engine.Tool{read, exec}, []engine.Tool{exec, read})
	assert.Equal(t, report.ToolsDiff{Changed: []report.ToolChange{}, OrderChanged: true}, reordered)

	changed := compare([]engine.Tool{read, exec, tool("gone", "", "")},
		[]engine.Tool{tool("read", "Read a text file.", `{"type":"string"}`), tool("exec", "Run a command.", `{"type":"object"}`), tool("new", "", "")})
	assert.Equal(t, []report.ToolChange{
		{Name: "read", Change: report.ToolDescriptionAndSchema},
		{Name: "exec", Change: report.ToolSchema},
		{Name: "gone", Change: report.ToolRemoved},
		{Name: "new", Change: report.ToolAdded},
	}, changed.Changed)
	assert.False(t, changed.Identical)
	assert.False(t, changed.OrderChanged)
}

// A tool with no name (or only spaces) is neither listed in the prompt
// nor sendable to a provider, and a request may hold several: it is no
// tool a cache sees, so diff names none with an empty name. Schemas are
// compared as the JSON values they hold: no schema and an empty one, or
// keys in another order, are what a provider body sends alike.
func TestCompareToolsAsSent(t *testing.T) {
	compare := func(a, b []engine.Tool) report.ToolsDiff {
		d, err := report.Compare(&engine.Result{Harness: "embedded", Tools: a}, &engine.Result{Harness: "embedded", Tools: b})
		require.NoError(t, err)
		return d.Tools
	}
	read := engine.Tool{Name: "read", Description: "Read a file."}
	nameless := []engine.Tool{{Description: "one"}, {Name: "  ", Description: "two"}}

	d := compare(append([]engine.Tool{read}, nameless...), []engine.Tool{read})
	assert.Equal(t, report.ToolsDiff{Identical: true, Changed: []report.ToolChange{}}, d)
	d = compare([]engine.Tool{nameless[0], read}, []engine.Tool{read, nameless[1]})
	assert.Equal(t, report.ToolsDiff{Identical: true, Changed: []report.ToolChange{}}, d)

	withSchema := func(schema string) engine.Tool {
		t := read
		t.Schema = engine.Schema(schema)
		return t
	}
	for _, pair := range [][2]string{
		{"", "{}"},
		{"{ }", ""},
		{`{"type":"object","properties":{"path":{"type":"string"}}}`, `{"properties": {"path": {"type": "string"}}, "type": "object"}`},
	} {
		d = compare([]engine.Tool{withSchema(pair[0])}, []engine.Tool{withSchema(pair[1])})
		assert.True(t, d.Identical, "%q and %q", pair[0], pair[1])
	}
	for _, pair := range [][2]string{
		{"", `{"type":"object"}`},
		{`{"maxItems":1}`, `{"maxItems":1.0}`}, // sent as written
		{`{"enum":["a","b"]}`, `{"enum":["b","a"]}`},
	} {
		d = compare([]engine.Tool{withSchema(pair[0])}, []engine.Tool{withSchema(pair[1])})
		assert.Equal(t, []report.ToolChange{{Name: "read", Change: report.ToolSchema}}, d.Changed, "%q and %q", pair[0], pair[1])
	}
}

// Two files alike are two parts, one each, where the prompt prints them:
// the first file's text used to claim both places, leaving the second
// injected file without a part.
func TestReportFilesAlikeEachHaveAPart(t *testing.T) {
	req := engine.Request{Workspace: engine.Workspace{Path: "/ws"}}
	files := map[string]string{"AGENTS.md": "Same text.\n", "SOUL.md": "Same text.\n", "USER.md": "Same text.\n"}
	res := packtest.Render(t, packtest.PackWith(t, sysprompt.Pack, nil), req, engine.WithFS(packtest.Workspace(t, files)))
	rep := report.Build(res, nil)
	var printed []string
	for _, p := range rep.Parts {
		if p.Kind == report.KindFile && p.Chars == len("Same text.") {
			printed = append(printed, p.Name)
		}
	}
	assert.Equal(t, []string{"AGENTS.md", "SOUL.md", "USER.md"}, printed)
}

// A file is counted only in sections whose template reads the file list:
// a one-line USER.md equal to a line the safety section prints is the
// file's once, in Project Context, and none of the safety section's.
func TestReportFindsAFileOnlyWhereFilesAreRead(t *testing.T) {
	req := engine.Request{Workspace: engine.Workspace{Path: "/ws"}}
	p := packtest.PackWith(t, sysprompt.Pack, nil)
	safety := func(res *engine.Result) (engine.RenderedSection, string) {
		for _, l := range res.Layers {
			for _, s := range l.Sections {
				if s.ID == "safety" {
					return s, l.Text[s.Start:s.End]
				}
			}
		}
		t.Fatal("no safety section")
		return engine.RenderedSection{}, ""
	}
	_, text := safety(packtest.Render(t, p, req))
	line, _, _ := strings.Cut(text, "\n")
	require.NotEmpty(t, line)

	res := packtest.Render(t, p, req, engine.WithFS(packtest.Workspace(t, map[string]string{"USER.md": line + "\n"})))
	sec, _ := safety(res)
	rep := report.Build(res, nil)
	var in []string
	for _, part := range rep.Parts {
		if part.Kind == report.KindFile && part.Name == "USER.md" {
			in = append(in, part.Section)
		}
	}
	assert.Equal(t, []string{"project_context"}, in)
	for _, s := range rep.Sections {
		if s.ID == "safety" {
			assert.Equal(t, sec.Chars, s.Chars, "the safety section keeps all of its text")
		}
	}
}
