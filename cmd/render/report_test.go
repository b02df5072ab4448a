package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/sysprompt/sysprompt/engine/report"
)

// Known token counts, from the tokenizers' reference implementation.
func TestExactTokenizers(t *testing.T) {
	cases := []struct {
		enc, text string
		want      int
	}{
		{"cl100k", "hello world", 2},
		{"cl100k", "tiktoken is great!", 6},
		{"o200k", "hello world", 2},
		{"cl100k", "", 0},
	}
	for _, tc := range cases {
		tok, err := newTokenizer(tc.enc)
		require.NoError(t, err)
		assert.Equal(t, tc.want, tok.Count(tc.text), "%s %q", tc.enc, tc.text)
	}
	_, err := newTokenizer("p50k")
	var ue *usageError
	require.ErrorAs(t, err, &ue)
	est, err := newTokenizer("estimate")
	require.NoError(t, err)
	assert.Equal(t, 3, est.Count("hello world"), "ceil(11/4)")
}

func TestNum(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 60000: "60,000", 1234567: "1,234,567", -4200: "-4,200"} {
		assert.Equal(t, want, num(n))
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	return dir
}

func cli(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestDiffExitCodes(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.toml":         "date = \"2026-11-30T09:00:00Z\"\n[runtime]\nhost = \"one\"\n",
		"volatile.toml":  "date = \"2026-12-01T09:00:00Z\"\n[runtime]\nhost = \"two\"\n",
		"stable.toml":    "date = \"2026-11-30T09:00:00Z\"\ntimezone = \"Asia/Kolkata\"\n[runtime]\nhost = \"one\"\n",
		"ws/AGENTS.md":   "Be kind.\n",
		"ws/SOUL.md":     "Calm.\n",
		"ws/TOOLS.md":    "None.\n",
		"ws/IDENTITY.md": "Wren.\n",
		"ws/USER.md":     "Ana.\n",
	})
	p := func(name string) string { return filepath.Join(dir, name) }

	code, out, errOut := cli("diff", "-workspace", p("ws"), p("a.toml"), p("volatile.toml"))
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "system: stable prefix identical")
	assert.Contains(t, out, "dynamic sections that differ:")

	code, out, errOut = cli("diff", "-workspace", p("ws"), p("a.toml"), p("stable.toml"))
	assert.Equal(t, 1, code)
	assert.Empty(t, errOut, "the difference is the report, not an error")
	assert.Contains(t, out, "system: stable prefix differs at line")
	assert.Contains(t, out, "in current_time:")

	code, out, _ = cli("diff", "-json", "-workspace", p("ws"), p("a.toml"), p("stable.toml"))
	assert.Equal(t, 1, code)
	var d report.Diff
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	assert.Equal(t, "current_time", d.Layers[0].First.SectionB, "B gains the time zone section")
	assert.Equal(t, report.SchemaVersion, d.SchemaVersion)

	code, _, errOut = cli("diff", p("a.toml"))
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "diff takes two request files")
}

func TestReportCommand(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"r.toml":       "[[tools]]\nname = \"read\"\ndescription = \"Read a file.\"\nschema = { type = \"object\" }\n",
		"ws/AGENTS.md": strings.Repeat("x", 900) + "\n",
		"c.toml":       "[agents.defaults]\nbootstrapMaxChars = 1000\n",
	})
	p := func(name string) string { return filepath.Join(dir, name) }
	code, out, errOut := cli("report", "list", "-workspace", p("ws"), "-request", p("r.toml"), "-config", p("c.toml"))
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Bootstrap budget: 1,000 chars per file, 60,000 total")
	assert.Regexp(t, `AGENTS\.md\s+OK\s+225\s+225\s+900\s+900\s+\(near limit\)`, out)
	assert.Regexp(t, `SOUL\.md\s+MISSING`, out)
	assert.Regexp(t, `read\s+3\s+5\s+12\s+17`, out)

	// A file cut to the limit is past it: its cause names the limit and
	// says nothing of being near it, in the list as on the page.
	require.NoError(t, os.WriteFile(p("ws/SOUL.md"), []byte(strings.Repeat("y", 1500)), 0o644))
	code, out, errOut = cli("report", "list", "-workspace", p("ws"), "-request", p("r.toml"), "-config", p("c.toml"))
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `SOUL\.md\s+TRUNCATED\s+[0-9,]+\s+[0-9,]+\s+1,500\s+[0-9,]+\s+per-file limit\n`, out)
	code, out, errOut = cli("report", "html", "-workspace", p("ws"), "-request", p("r.toml"), "-config", p("c.toml"))
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `<td class="cause">per-file limit</td>`, out)
	require.NoError(t, os.Remove(p("ws/SOUL.md")))

	code, out, _ = cli("report", "json", "-tokenizer", "cl100k", "-workspace", p("ws"), "-request", p("r.toml"))
	require.Equal(t, 0, code)
	var rep report.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, report.SchemaVersion, rep.SchemaVersion)
	assert.Equal(t, "cl100k", rep.Tokenizer)
	assert.Equal(t, 900, rep.Bootstrap.Files[0].RawChars)

	code, out, _ = cli("report", "detail", "-workspace", p("ws"), "-request", p("r.toml"))
	require.Equal(t, 0, code)
	assert.Contains(t, out, "Top tools by schema size:")
	assert.Contains(t, out, "Sections left out:")

	code, _, errOut = cli("report", "pie")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `report "pie": want list, detail, json or html`)
}

// report list shows an invisible character in a name as an escape; the
// prompt keeps the name as the request gave it.
func TestReportListShowsInvisibleCharactersEscaped(t *testing.T) {
	dir := writeFiles(t, map[string]string{"r.toml": "[[tools]]\nname = \"evil\u202egnp\"\ndescription = \"d\"\n"})
	code, out, errOut := cli("report", "list", "-request", filepath.Join(dir, "r.toml"))
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `evil\u202egnp`)
	assert.NotContains(t, out, "\u202e")
	code, out, errOut = cli("-request", filepath.Join(dir, "r.toml"))
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "evil\u202egnp", "the prompt is not changed")
}

func TestExplainCommand(t *testing.T) {
	code, out, errOut := cli("explain", "-mode", "minimal")
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?m)^  identity\s+rendered\s+system\s+stable`, out)
	assert.Regexp(t, `(?m)^  runtime\s+omitted\s+system\s+dynamic\s+rendered empty`, out)
}

// BenchmarkExactTokens counts the README example prompt with o200k: the
// cost of -tokenizer o200k on a real prompt (vocabulary already loaded).
func BenchmarkExactTokens(b *testing.B) {
	var out bytes.Buffer
	if code := run([]string{"-workspace", "../../examples/workspace", "-request", "../../examples/requests/direct.toml"}, strings.NewReader(""), &out, &out); code != 0 {
		b.Fatalf("render failed: %s", out.String())
	}
	prompt := out.String()
	tok, err := newTokenizer("o200k")
	require.NoError(b, err)
	tok.Count("warm up the vocabulary")
	b.SetBytes(int64(len(prompt)))
	for b.Loop() {
		tok.Count(prompt)
	}
}

// The report says where a discovery bound stopped the skills search, which
// skills were skipped for their names, and which names are only warned of.
func TestReportSkillsDiscovery(t *testing.T) {
	files := map[string]string{"r.toml": "[[tools]]\nname = \"read\"\n"}
	for i := range 1001 {
		files[fmt.Sprintf("big/skills/s%04d/SKILL.md", i)] = fmt.Sprintf("---\nname: s%04d\n---\n", i)
	}
	files["small/skills/Bad_Name/SKILL.md"] = "---\ndescription: d\n---\n"
	files["small/skills/renamed/SKILL.md"] = "---\nname: new-name\n---\n"
	dir := writeFiles(t, files)
	p := func(name string) string { return filepath.Join(dir, name) }

	code, out, errOut := cli("report", "list", "-workspace", p("big"), "-request", p("r.toml"))
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, " of 1000 eligible, 1000 found;")
	assert.Contains(t, out, "\n  "+p("big/skills")+": search stopped: at most 1000 entries are read per skills folder\n")

	code, out, errOut = cli("report", "detail", "-workspace", p("small"), "-request", p("r.toml"))
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "\n  1 warning (report detail lists them)\n")
	assert.Contains(t, out, "\nSkills not listed:\n  Bad_Name ("+p("small/skills/Bad_Name/SKILL.md")+
		`): invalid name "Bad_Name" (the folder's name): may hold only lowercase letters a-z, digits and hyphens`+"\n")
	assert.Contains(t, out, "\nSkill warnings:\n  "+p("small/skills/renamed/SKILL.md")+`:2: name "new-name" differs from its folder "renamed"`+"\n")
	assert.NotContains(t, out, "search stopped")

	var b strings.Builder
	writeSkills(&b, report.SkillsReport{Cuts: []report.SkillsCut{{Root: "/opt/skills", Reason: "at most 2000 skills are read across all skills folders", Skipped: 1234}}})
	assert.Contains(t, b.String(), "\n  /opt/skills: 1,234 skipped (at most 2000 skills are read across all skills folders)\n")
}

// explain and report give a rendered section the same tokens: the
// report's, which count the files and skills catalog a section prints
// each on its own, as the parts that add up to the headline.
func TestExplainTokensMatchTheReport(t *testing.T) {
	for _, tok := range []string{"estimate", "o200k"} {
		args := []string{"-workspace", "../../examples/workspace", "-request", "../../examples/requests/direct.toml", "-tokenizer", tok, "-format", "json"}
		code, out, errOut := cli(append([]string{"report"}, args...)...)
		require.Equal(t, 0, code, errOut)
		var rep report.Report
		require.NoError(t, json.Unmarshal([]byte(out), &rep))
		code, out, errOut = cli(append([]string{"explain"}, args...)...)
		require.Equal(t, 0, code, errOut)
		var doc explainDoc
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		want := map[string]int{}
		for _, s := range rep.Sections {
			want[s.Layer+"/"+s.ID] = s.Tokens
		}
		n := 0
		for _, x := range doc.Sections {
			if x.Rendered {
				n++
				assert.Equal(t, want[x.Layer+"/"+x.ID], x.Tokens, "%s: %s/%s", tok, x.Layer, x.ID)
			}
		}
		assert.Equal(t, len(rep.Sections), n, tok)
	}
}
