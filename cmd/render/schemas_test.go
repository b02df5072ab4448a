package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/report"
)

const (
	schemaDir   = "schemas"
	exampleDir  = "../../examples"
	scenarioDir = "../../golden/scenarios"
	draft202012 = "https://json-schema.org/draft/2020-12/schema"
)

// output is one JSON document the CLI printed, and the schema it must
// satisfy.
type output struct {
	schema, label, json string
}

// compileSchemas compiles every file in schemas/, which must be exactly
// one per output document, each a draft 2020-12 schema with a
// description. Each is compiled from its file by the library's default
// loader, which reads files and nothing else: a schema that named
// another by URL would fail here, so they validate offline as shipped.
// The compiler checks each against the draft's meta-schema.
func compileSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	entries, err := os.ReadDir(schemaDir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := slices.Sorted(func(yield func(string) bool) {
		for name := range outputDocuments {
			if !yield(name) {
				return
			}
		}
	})
	require.Equal(t, want, names, "one schema per JSON output")

	c := jsonschema.NewCompiler()
	compiled := map[string]*jsonschema.Schema{}
	for _, name := range names {
		src, err := os.ReadFile(filepath.Join(schemaDir, name))
		require.NoError(t, err)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
		require.NoError(t, err, name)
		top, ok := doc.(map[string]any)
		require.True(t, ok, "%s is an object", name)
		assert.Equal(t, draft202012, top["$schema"], name)
		assert.NotEmpty(t, top["description"], name)
		assert.NotContains(t, top, "$id", "%s: an absolute $id would make its relative references URLs", name)
		assert.NotRegexp(t, `"\$ref": "[a-z]+:`, string(src), "%s refers to other schemas by relative path", name)
		path, err := filepath.Abs(filepath.Join(schemaDir, name))
		require.NoError(t, err)
		compiled[name], err = c.Compile(path)
		require.NoError(t, err, name)
	}
	return compiled
}

// validate checks one output against its schema.
func validate(t *testing.T, schemas map[string]*jsonschema.Schema, out output) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out.json))
	require.NoError(t, err, "%s: %s", out.label, out.json)
	return schemas[out.schema].Validate(inst)
}

// Every JSON output of the CLI, over the shipped examples and the golden
// scenarios, satisfies its schema, and every harness of the built-in
// pack is among them.
func TestOutputsMatchSchemas(t *testing.T) {
	schemas := compileSchemas(t)
	outputs := slices.Concat(exampleOutputs(t), roughOutputs(t), diffOutputs(t), packDiffOutputs(t), scenarioOutputs(t), serveOutputs(t))
	harnesses, keys := map[string]map[string]bool{}, map[string]map[string]bool{} // by schema
	for name := range outputDocuments {
		harnesses[name], keys[name] = map[string]bool{}, map[string]bool{}
	}
	for _, out := range outputs {
		assert.NoError(t, validate(t, schemas, out), out.label)
		var doc map[string]any
		require.NoError(t, json.Unmarshal([]byte(out.json), &doc))
		instanceKeys(doc, "", keys[out.schema])
		if h, ok := doc["harness"].(string); ok {
			harnesses[out.schema][h] = true
		}
	}
	e, err := engine.New(packFS(""))
	require.NoError(t, err)
	for _, schema := range []string{"render.schema.json", "report.schema.json", "explain.schema.json"} {
		for _, h := range e.Harnesses() {
			assert.True(t, harnesses[schema][h], "%s: no output of the %s harness was checked", schema, h)
		}
	}
	// Every key a schema describes, optional ones included, was in some
	// output checked above, so no part of a schema goes untried.
	for name := range outputDocuments {
		described := map[string]bool{}
		schemaKeys(t, name, described)
		for key := range described {
			assert.True(t, keys[name][key], "%s: no checked output has %s", name, key)
		}
	}
}

// instanceKeys records the key paths of a JSON value: /layers/*/name.
func instanceKeys(v any, path string, seen map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			seen[path+"/"+k] = true
			instanceKeys(child, path+"/"+k, seen)
		}
	case []any:
		for _, child := range v {
			instanceKeys(child, path+"/*", seen)
		}
	}
}

// schemaKeys records the key paths a schema file describes, following
// its local $refs, in the form instanceKeys uses.
func schemaKeys(t *testing.T, name string, described map[string]bool) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(schemaDir, name))
	require.NoError(t, err)
	var root map[string]any
	require.NoError(t, json.Unmarshal(raw, &root))
	defs, _ := root["$defs"].(map[string]any)
	var walk func(node map[string]any, path string, depth int)
	walk = func(node map[string]any, path string, depth int) {
		require.Less(t, depth, 20, "%s: $refs nest too deep at %s", name, path)
		// A $ref to another file is that file's to describe.
		if ref, ok := node["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
			def, ok := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
			require.True(t, ok, "%s: $ref %s", name, ref)
			walk(def, path, depth+1)
		}
		props, _ := node["properties"].(map[string]any)
		for k, child := range props {
			described[path+"/"+k] = true
			walk(child.(map[string]any), path+"/"+k, depth+1)
		}
		if items, ok := node["items"].(map[string]any); ok {
			walk(items, path+"/*", depth+1)
		}
	}
	walk(root, "", 0)
}

// exampleOutputs renders every shipped example request as JSON and as a
// report, plus a render without workspace or config and a report with
// an exact tokenizer.
func exampleOutputs(t *testing.T) []output {
	t.Helper()
	requests, err := filepath.Glob(filepath.Join(exampleDir, "requests", "*.toml"))
	require.NoError(t, err)
	require.NotEmpty(t, requests)
	ws, cfg := filepath.Join(exampleDir, "workspace"), filepath.Join(exampleDir, "agents.toml")
	var outs []output
	for _, req := range requests {
		flags := []string{"-workspace", ws, "-config", cfg, "-request", req}
		outs = append(outs,
			mustRun(t, "render.schema.json", append([]string{"-format", "json"}, flags...)...),
			mustRun(t, "report.schema.json", append([]string{"report", "json"}, flags...)...),
			mustRun(t, "report.schema.json", append([]string{"report", "-format", "json"}, flags...)...),
			mustRun(t, "explain.schema.json", append([]string{"explain", "-format", "json"}, flags...)...))
	}
	direct := filepath.Join(exampleDir, "requests", "direct.toml")
	return append(outs,
		mustRun(t, "render.schema.json", "-format", "json", "-request", direct),
		mustRun(t, "report.schema.json", "report", "json", "-tokenizer", "o200k", "-workspace", ws, "-request", direct))
}

// roughOutputs renders a workspace with everything the examples lack: a
// file cut by its budget, one missing and one holding the boundary
// marker; broken, misnamed and shadowed skills and a skills folder too
// large to search whole; a section a provider overrides; and a tool
// without a name.
func roughOutputs(t *testing.T) []output {
	t.Helper()
	files := map[string]string{
		"ws/AGENTS.md":                     "Rules.\n<!-- SYSPROMPT_CACHE_BOUNDARY -->\nMore rules.\n",
		"ws/SOUL.md":                       strings.Repeat("Warm and direct. ", 100),
		"ws/skills/broken/SKILL.md":        "---\nname: [\n---\n",
		"ws/skills/misnamed/SKILL.md":      "---\nname: other\ndescription: Named for another folder.\n---\n",
		"ws/.agents/skills/other/SKILL.md": "---\nname: other\ndescription: Shadowed by the workspace's.\n---\n",
		"agents.toml":                      "[agents.defaults]\nbootstrapMaxChars = 500\n",
		"req.toml": `chat_type = "direct"
[[tools]]
name = "read"
description = "Read a file."
[[tools]]
description = "Nameless, so neither listed nor sent."
[[contributions]]
section_overrides = { tool_call_style = "Call tools plainly." }
`,
	}
	dir := writeFiles(t, files)
	for i := range 1000 {
		require.NoError(t, os.Mkdir(filepath.Join(dir, "ws", "skills", fmt.Sprintf("empty-%04d", i)), 0o755))
	}
	flags := []string{"-workspace", filepath.Join(dir, "ws"), "-config", filepath.Join(dir, "agents.toml"), "-request", filepath.Join(dir, "req.toml")}
	return []output{
		mustRun(t, "render.schema.json", append([]string{"-format", "json"}, flags...)...),
		mustRun(t, "report.schema.json", append([]string{"report", "json"}, flags...)...),
	}
}

func mustRun(t *testing.T, schema string, args ...string) output {
	t.Helper()
	res := runCLI("", args...)
	require.Equal(t, exitOK, res.code, "render %s: %s", strings.Join(args, " "), res.stderr)
	return output{schema, "render " + strings.Join(args, " "), res.stdout}
}

// diffOutputs compares two pairs of requests whose stable prefixes
// match and two whose prefixes differ, on one-layer and two-layer
// harnesses. A pair's second request may be a variant of an example
// file read from stdin.
func diffOutputs(t *testing.T) []output {
	t.Helper()
	req := func(name string) string { return filepath.Join(exampleDir, "requests", name) }
	codex, err := os.ReadFile(req("codex.toml"))
	require.NoError(t, err)
	laterTurn := strings.Replace(string(codex), `date = "2026-11-30T11:30:00Z"`, `date = "2026-11-30T11:42:00Z"`, 1)
	laterTurn = strings.Replace(laterTurn, `delivery = "automatic"`, `delivery = "message_tool_only"`, 1)
	require.NotEqual(t, string(codex), laterTurn)
	noMemoryTools, _, found := strings.Cut(string(codex), "\n[[tools]]\nname = \"memory_search\"")
	require.True(t, found, "codex.toml lists memory_search last but one")

	cases := []struct {
		a, b, stdin string
		code        int
	}{
		{a: req("group.toml"), b: req("group-next.toml"), code: exitOK},
		{a: req("codex.toml"), b: "-", stdin: laterTurn, code: exitOK},
		{a: req("direct.toml"), b: req("group.toml"), code: exitFail},
		{a: req("codex.toml"), b: "-", stdin: noMemoryTools, code: exitFail},
	}
	var outs []output
	for i, c := range cases {
		// Both spellings of machine output print the same document.
		asJSON := [][]string{{"-json"}, {"-format", "json"}}[i%2]
		args := append(asJSON, "-workspace", filepath.Join(exampleDir, "workspace"), "-config", filepath.Join(exampleDir, "agents.toml"), c.a, c.b)
		res := runCLI(c.stdin, append([]string{"diff"}, args...)...)
		require.Equal(t, c.code, res.code, "%s vs %s: %s", c.a, c.b, res.stderr)
		outs = append(outs, output{"diff.schema.json", "render diff " + c.a + " " + c.b, res.stdout})
	}
	return outs
}

// packDiffOutputs compares the built-in pack with itself over the
// examples, and with a pack that rewrites one stable and one dynamic
// section, over the examples and a request read from stdin.
func packDiffOutputs(t *testing.T) []output {
	t.Helper()
	pack := writeFiles(t, map[string]string{
		"sections/safety.md.tmpl":  "+++\nmodes = [\"full\", \"minimal\"]\ntier = \"stable\"\n+++\n## Safety\nAsk first.\n",
		"sections/runtime.md.tmpl": "+++\nmodes = [\"full\"]\ntier = \"dynamic\"\n+++\n## Runtime\nHost: {{ .Runtime.Host }}\n",
	})
	direct, err := os.ReadFile(filepath.Join(exampleDir, "requests", "direct.toml"))
	require.NoError(t, err)
	examples, err := filepath.Glob(filepath.Join(exampleDir, "requests", "*.toml"))
	require.NoError(t, err)
	cases := []struct {
		args  []string
		stdin string
		code  int
	}{
		{args: append([]string{"-pack-a", "builtin", "-pack-b", "builtin"}, examples...), code: exitOK},
		{args: append([]string{"-pack-b", pack, "-tokenizer", "o200k"}, examples...), code: exitFail},
		{args: []string{"-pack-a", pack, "-pack-b", "builtin", "-", filepath.Join(exampleDir, "requests", "subagent.toml")}, stdin: string(direct), code: exitFail},
	}
	var outs []output
	for _, c := range cases {
		args := append([]string{"diff", "-format", "json", "-workspace", filepath.Join(exampleDir, "workspace")}, c.args...)
		res := runCLI(c.stdin, args...)
		require.Equal(t, c.code, res.code, "%v: %s", c.args, res.stderr)
		outs = append(outs, output{"packdiff.schema.json", "render " + strings.Join(args, " "), res.stdout})
	}
	return outs
}

// scenarioOutputs renders each golden scenario from a real folder: its
// workspace files, request and config written out as files.
func scenarioOutputs(t *testing.T) []output {
	t.Helper()
	archives, err := filepath.Glob(filepath.Join(scenarioDir, "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, archives)
	var outs []output
	for _, path := range archives {
		ar, err := txtar.ParseFile(path)
		require.NoError(t, err)
		dir := t.TempDir()
		ws := filepath.Join(dir, "ws")
		require.NoError(t, os.Mkdir(ws, 0o755))
		flags := []string{"-workspace", ws}
		for _, f := range ar.Files {
			target := filepath.Join(dir, filepath.FromSlash(f.Name))
			if rel, ok := strings.CutPrefix(f.Name, "workspace/"); ok {
				target = filepath.Join(ws, filepath.FromSlash(rel))
			}
			require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
			require.NoError(t, os.WriteFile(target, f.Data, 0o644))
			switch f.Name {
			case "request.toml":
				flags = append(flags, "-request", target)
			case "config.toml":
				flags = append(flags, "-config", target)
			}
		}
		outs = append(outs,
			mustRun(t, "render.schema.json", append([]string{"-format", "json"}, flags...)...),
			mustRun(t, "report.schema.json", append([]string{"report", "json"}, flags...)...),
			mustRun(t, "explain.schema.json", append([]string{"explain", "-format", "json"}, flags...)...))
	}
	return outs
}

// The schemas are strict: a renamed, missing or extra key, a value
// outside a closed set and a differing prefix without its location all
// fail, so the test above could.
func TestSchemasRejectChangedDocuments(t *testing.T) {
	schemas := compileSchemas(t)
	ws, cfg := filepath.Join(exampleDir, "workspace"), filepath.Join(exampleDir, "agents.toml")
	direct, group := filepath.Join(exampleDir, "requests", "direct.toml"), filepath.Join(exampleDir, "requests", "group.toml")
	rendered := mustRun(t, "render.schema.json", "-format", "json", "-workspace", ws, "-config", cfg, "-request", direct)
	reported := mustRun(t, "report.schema.json", "report", "json", "-workspace", ws, "-config", cfg, "-request", group)
	res := runCLI("", "diff", "-json", "-workspace", ws, "-config", cfg, direct, group)
	require.Equal(t, exitFail, res.code, res.stderr)
	diffed := output{"diff.schema.json", "diff", res.stdout}
	explained := mustRun(t, "explain.schema.json", "explain", "-format", "json", "-workspace", ws, "-config", cfg, "-request", group)
	res = runCLI("", "diff", "-format", "json", "-pack-a", "builtin", "-pack-b", "builtin", direct)
	require.Equal(t, exitOK, res.code, res.stderr)
	packDiffed := output{"packdiff.schema.json", "diff of packs", res.stdout}

	cases := []struct {
		name   string
		out    output
		change func(doc map[string]any)
	}{
		{"camelCase key", rendered, func(doc map[string]any) { rename(layer0(doc), "stable_sha256", "stableSha256") }},
		{"Go field name", reported, func(doc map[string]any) { rename(first(doc["omitted"]), "id", "ID") }},
		{"skipped skill's Go field name", reported, func(doc map[string]any) {
			rename(first(doc["skills"].(map[string]any)["skipped"]), "reason", "Reason")
		}},
		{"no schema_version", diffed, func(doc map[string]any) { delete(doc, "schema_version") }},
		{"another schema_version", rendered, func(doc map[string]any) { doc["schema_version"] = report.SchemaVersion + 1 }},
		{"extra key", reported, func(doc map[string]any) { doc["note"] = "x" }},
		{"unknown tier", rendered, func(doc map[string]any) { first(layer0(doc)["sections"])["tier"] = "volatile" }},
		{"differs without where", diffed, func(doc map[string]any) { delete(layer0(doc), "first_difference") }},
		{"string for a count", reported, func(doc map[string]any) { doc["total"].(map[string]any)["chars"] = "12" }},
		{"no verdict", diffed, func(doc map[string]any) { delete(doc, "verdict") }},
		{"unknown verdict", diffed, func(doc map[string]any) { doc["verdict"] = "maybe" }},
		{"no side names", diffed, func(doc map[string]any) { delete(doc, "a") }},
		{"rendered without size", explained, func(doc map[string]any) { delete(first(doc["sections"]), "tokens") }},
		{"omitted without reason", explained, func(doc map[string]any) {
			for _, s := range doc["sections"].([]any) {
				if s := s.(map[string]any); s["rendered"] == false {
					delete(s, "reason")
					return
				}
			}
			panic("no omitted section")
		}},
		{"same with a changed section", packDiffed, func(doc map[string]any) {
			r := first(doc["requests"])
			r["sections_changed"] = []any{map[string]any{"layer": "system", "id": "safety", "tier": "stable",
				"chars": map[string]any{"a": 1, "b": 2, "delta": 1}, "tokens": map[string]any{"a": 1, "b": 1, "delta": 0}}}
		}},
		{"pack diff without verdict", packDiffed, func(doc map[string]any) { delete(first(doc["requests"]), "verdict") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.NoError(t, validate(t, schemas, c.out), "the unchanged document is valid")
			var doc map[string]any
			require.NoError(t, json.Unmarshal([]byte(c.out.json), &doc))
			c.change(doc)
			changed, err := json.Marshal(doc)
			require.NoError(t, err)
			assert.Error(t, validate(t, schemas, output{c.out.schema, c.name, string(changed)}))
		})
	}
}

func layer0(doc map[string]any) map[string]any { return first(doc["layers"]) }

func first(list any) map[string]any { return list.([]any)[0].(map[string]any) }

func rename(m map[string]any, from, to string) {
	m[to] = m[from]
	delete(m, from)
}

// The diff's JSON carries each excerpt as the prompt's own text, newlines
// and all; only the text output shows them as \n.
func TestDiffJSONExcerptIsRawText(t *testing.T) {
	ws, cfg := filepath.Join(exampleDir, "workspace"), filepath.Join(exampleDir, "agents.toml")
	direct, group := filepath.Join(exampleDir, "requests", "direct.toml"), filepath.Join(exampleDir, "requests", "group.toml")
	res := runCLI("", "diff", "-json", "-workspace", ws, "-config", cfg, direct, group)
	require.Equal(t, exitFail, res.code, res.stderr)
	var d struct {
		Layers []struct {
			First struct {
				Offset   int    `json:"offset"`
				ExcerptA string `json:"excerpt_a"`
			} `json:"first_difference"`
		} `json:"layers"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &d))
	require.Len(t, d.Layers, 1)
	f := d.Layers[0].First
	assert.Contains(t, f.ExcerptA, "\n")
	assert.NotContains(t, res.stdout, `\\n`, "no newline is escaped twice")

	var doc renderDoc
	rendered := mustRun(t, "render.schema.json", "-format", "json", "-workspace", ws, "-config", cfg, "-request", direct)
	require.NoError(t, json.Unmarshal([]byte(rendered.json), &doc))
	stable := []rune(doc.Layers[0].Stable[f.Offset:])
	assert.Equal(t, string(stable[:60])+"…", f.ExcerptA, "the raw text from the difference on")

	text := runCLI("", "diff", "-workspace", ws, "-config", cfg, direct, group)
	require.Equal(t, exitFail, text.code, text.stderr)
	oneLineExcerpt := strings.ReplaceAll(strings.TrimSuffix(f.ExcerptA, "…"), "\n", `\n`)
	assert.Contains(t, text.stdout, ": in tooling: "+oneLineExcerpt+"…\n")
}

// serveOutputs are the lines render serve writes for a good request, one
// whose field is wrong (an error with its position in the input), one
// that is not JSON, and one whose section fails as it renders.
func serveOutputs(t *testing.T) []output {
	pack := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(pack, "sections"), 0o755))
	broken := "+++\nmodes = [\"full\"]\ntier = \"dynamic\"\n+++\n{{ index .Owners 5 }}\n"
	require.NoError(t, os.WriteFile(filepath.Join(pack, "sections", "user_identity.md.tmpl"), []byte(broken), 0o644))
	direct, err := os.ReadFile(filepath.Join(exampleDir, "clients", "direct.json"))
	require.NoError(t, err)
	var compact bytes.Buffer
	require.NoError(t, json.Compact(&compact, direct))
	lines := []string{
		`{"id": 1, "request": ` + compact.String() + `}`,
		`{"id": "two", "request": {"mode": "loud"}}`,
		`not json`,
		`{"id": [3], "request": {"owners": ["a"]}}`,
	}
	var outs []output
	for _, flags := range [][]string{{"-workspace", filepath.Join(exampleDir, "workspace")}, {"-pack", pack}} {
		res := runCLI(strings.Join(lines, "\n")+"\n", append([]string{"serve"}, flags...)...)
		require.Equal(t, 0, res.code, res.stderr)
		replies := strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n")
		require.Len(t, replies, len(lines))
		for i, r := range replies {
			outs = append(outs, output{"serve.schema.json", fmt.Sprintf("serve %v line %d", flags, i+1), r})
		}
	}
	return outs
}
