package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/report"
)

// exampleRequests are the flags of a render of every example request.
func exampleRequests(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(exampleDir, "requests", "*.toml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	out := map[string][]string{}
	for _, f := range files {
		out[strings.TrimSuffix(filepath.Base(f), ".toml")] = []string{"-workspace", exampleDir + "/workspace",
			"-config", exampleDir + "/agents.toml", "-request", f}
	}
	return out
}

// For every example, with the estimate and an exact tokenizer, the
// report's parts sum exactly to its headline, and every figure built from
// them agrees: groups, layers (stable + boundary + dynamic), sections,
// files, the catalog and the tools. The parts' characters are the
// rendered text's, every file the prompt prints is a part of its own,
// and the messages count.
func TestReportPartsSumToHeadline(t *testing.T) {
	for name, args := range exampleRequests(t) {
		for _, tok := range []string{"estimate", "cl100k"} {
			t.Run(name+"/"+tok, func(t *testing.T) {
				t.Parallel()
				code, out, errOut := cli(append([]string{"report", "json", "-tokenizer", tok, "-message", "What changed since yesterday?"}, args...)...)
				require.Equal(t, 0, code, errOut)
				var rep report.Report
				require.NoError(t, json.Unmarshal([]byte(out), &rep))
				code, out, errOut = cli(append([]string{"-format", "json"}, args...)...)
				require.Equal(t, 0, code, errOut)
				var doc jsonDoc
				require.NoError(t, json.Unmarshal([]byte(out), &doc))
				checkAccounting(t, rep, doc)
			})
		}
	}
}

func checkAccounting(t *testing.T, rep report.Report, doc jsonDoc) {
	t.Helper()
	var sum, prompt, messages report.Size
	layers := map[string]report.Size{}
	sections := map[string]report.Size{}
	kinds := map[string]report.Size{}
	for _, p := range rep.Parts {
		sum = add(sum, p.Size)
		kinds[p.Kind] = add(kinds[p.Kind], p.Size)
		if p.Layer != "" {
			prompt = add(prompt, p.Size)
			layers[p.Layer] = add(layers[p.Layer], p.Size)
		}
		switch p.Kind {
		case report.KindSection:
			sections[p.Layer+"/"+p.Name] = add(sections[p.Layer+"/"+p.Name], p.Size)
		case report.KindFile, report.KindSkills:
			sections[p.Layer+"/"+p.Section] = add(sections[p.Layer+"/"+p.Section], p.Size)
		case report.KindMessage:
			messages = add(messages, p.Size)
		}
	}
	require.Positive(t, rep.Request.Tokens)
	assert.Equal(t, rep.Request, sum, "the parts sum to the headline")
	assert.Equal(t, rep.Total, prompt, "the system text's parts sum to its total")
	assert.Equal(t, rep.Window.Used, rep.Request.Tokens)
	assert.Equal(t, report.Size{Chars: utf8.RuneCountInString("What changed since yesterday?"), Tokens: messages.Tokens}, messages)
	assert.Positive(t, kinds[report.KindBoundary].Chars, "the boundary marker is named")

	var groups report.Size
	for _, g := range rep.Groups {
		groups = add(groups, g.Size)
	}
	assert.Equal(t, rep.Request, groups, "the groups sum to the headline")

	require.Len(t, rep.Layers, len(doc.Layers))
	for i, l := range rep.Layers {
		assert.Equal(t, layers[l.Name], l.Total, "layer %s: its parts", l.Name)
		assert.Equal(t, l.Total, add(add(l.Stable, l.Boundary), l.Dynamic), "layer %s: stable + boundary + dynamic", l.Name)
		assert.Equal(t, utf8.RuneCountInString(doc.Layers[i].Text), l.Total.Chars, "layer %s: the rendered text", l.Name)
		assert.Equal(t, utf8.RuneCountInString(doc.Layers[i].Stable), l.Stable.Chars, "layer %s: the stable prefix", l.Name)
	}
	for _, s := range rep.Sections {
		assert.Equal(t, sections[s.Layer+"/"+s.ID], s.Size, "section %s/%s", s.Layer, s.ID)
	}
	assert.Equal(t, rep.Skills.CatalogTokens, kinds[report.KindSkills].Tokens)
	assert.Equal(t, report.Size{Chars: rep.Tools.DescriptionChars, Tokens: rep.Tools.DescriptionTokens}, kinds[report.KindToolDesc])
	assert.Equal(t, report.Size{Chars: rep.Tools.SchemaChars, Tokens: rep.Tools.SchemaTokens}, kinds[report.KindToolSchema])

	printed := map[string]bool{}
	for _, p := range rep.Parts {
		if p.Kind == report.KindFile {
			printed[p.Name] = true
		}
	}
	for _, f := range rep.Bootstrap.Files {
		if f.InjectedChars > 0 {
			assert.True(t, printed[f.Name], "%s is injected and has a part of its own", f.Name)
		}
	}
}

func add(a, b report.Size) report.Size {
	return report.Size{Chars: a.Chars + b.Chars, Tokens: a.Tokens + b.Tokens}
}

// The window comes from the pack's table, which a -pack replaces; the
// config's contextTokens overrides it, and -context-window overrides both.
// A request past the window is warned about.
func TestReportWindowSources(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"c.toml":                     "[agents.defaults]\ncontextTokens = 50000\n",
		"pack/templates/models.toml": "[[model]]\nmatch = 'sonnet'\ncontext_window = 90000\noutput_reserve = 1000\n",
		"bad/templates/models.toml":  "[[model]]\nmatch = 'x'\ncontext_window = 10\noutput_reserve = 10\n",
	})
	req := []string{"-workspace", exampleDir + "/workspace", "-request", exampleDir + "/requests/direct.toml"}
	window := func(args ...string) report.WindowReport {
		t.Helper()
		code, out, errOut := cli(append(append([]string{"report", "json"}, args...), req...)...)
		require.Equal(t, 0, code, errOut)
		var rep report.Report
		require.NoError(t, json.Unmarshal([]byte(out), &rep))
		if rep.Window.Free < 0 {
			require.NotEmpty(t, rep.Warnings)
			assert.Equal(t, "over_window", rep.Warnings[len(rep.Warnings)-1].Code)
		}
		return rep.Window
	}
	w := window()
	assert.Equal(t, [3]any{200000, 64000, "templates/models.toml"}, [3]any{w.ContextWindow, w.OutputReserve, w.Source})
	assert.Equal(t, w.ContextWindow-w.OutputReserve-w.Used, w.Free)
	w = window("-pack", filepath.Join(dir, "pack"))
	assert.Equal(t, [3]any{90000, 1000, "templates/models.toml"}, [3]any{w.ContextWindow, w.OutputReserve, w.Source})
	w = window("-config", filepath.Join(dir, "c.toml"))
	assert.Equal(t, [3]any{50000, 25000, "config contextTokens"}, [3]any{w.ContextWindow, w.OutputReserve, w.Source})
	w = window("-config", filepath.Join(dir, "c.toml"), "-context-window", "4000")
	assert.Equal(t, [3]any{4000, 2000, "-context-window"}, [3]any{w.ContextWindow, w.OutputReserve, w.Source})
	assert.Negative(t, w.Free)

	code, _, errOut := cli(append([]string{"report", "json", "-pack", filepath.Join(dir, "bad")}, req...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "templates/models.toml:1:1: [[model]] entry 1: output_reserve 10 must be at least 0 and below context_window 10")
}
