package engine

import (
	"context"
	"reflect"
	"testing"
	"testing/fstest"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func memoPack() fstest.MapFS {
	return fstest.MapFS{
		"sections/manifest.toml":    {Data: []byte("identity_section = \"identity\"\nboundary = \"<!-- B -->\"\n[[layer]]\nname = \"system\"\nsections = [\"identity\", \"files\", \"tools\", \"late\"]\n")},
		"sections/identity.md.tmpl": {Data: []byte("+++\nmodes = [\"full\", \"minimal\", \"none\"]\ntier = \"stable\"\n+++\nI am the agent.")},
		"sections/files.md.tmpl":    {Data: []byte("+++\nmodes = [\"full\"]\ntier = \"stable\"\n+++\n{{ range .Files.Injected }}{{ .Content }}\n{{ end }}")},
		"sections/tools.md.tmpl":    {Data: []byte("+++\nmodes = [\"full\"]\ntier = \"stable\"\n+++\n{{ range .Tools }}{{ .Name }}: {{ .Description }}\n{{ end }}")},
		"sections/late.md.tmpl":     {Data: []byte("+++\nmodes = [\"full\"]\ntier = \"dynamic\"\n+++\n{{ .Date }} {{ .Runtime.Host }}")},
		"templates/bootstrap.tmpl": {Data: []byte(`{{ define "file_block" }}{{ .Content }}{{ end }}{{ define "missing_marker" }}[missing {{ .Path }}]{{ end }}` +
			`{{ define "truncation_marker" }}[cut]{{ end }}{{ define "binary_marker" }}[binary]{{ end }}`)},
	}
}

// The memo must never change what a render produces: every render is
// compared with a fresh engine's, and the memo size says whether the
// stable tier was reused.
func TestStableMemo(t *testing.T) {
	ws := afero.NewMemMapFs()
	require.NoError(t, afero.WriteFile(ws, "/ws/AGENTS.md", []byte("rules v1"), 0o644))
	e, err := New(memoPack(), WithFS(ws))
	require.NoError(t, err)
	base := Request{Workspace: Workspace{Path: "/ws"}, Date: "2026-11-30T09:00:00Z",
		Tools: []Tool{{Name: "read", Schema: map[string]any{"type": "object", "n": int64(1)}}}}

	check := func(req Request, wantEntries int) {
		t.Helper()
		got, err := e.Render(context.Background(), req)
		require.NoError(t, err)
		fresh, err := New(memoPack(), WithFS(ws))
		require.NoError(t, err)
		want, err := fresh.Render(context.Background(), req)
		require.NoError(t, err)
		assert.Equal(t, want.Layers, got.Layers)
		assert.Equal(t, want.Omitted, got.Omitted)
		assert.Equal(t, wantEntries, e.memo.lru.Len())
	}
	check(base, 1)

	turn := base
	turn.Date = "2026-12-01T10:00:00Z"
	turn.Runtime.Host = "elsewhere"
	check(turn, 1) // volatile change: reused

	schema := base
	schema.Tools = []Tool{{Name: "read", Schema: map[string]any{"type": "object", "n": "1"}}}
	check(schema, 1) // schemas are not template data, so not a stable input

	described := base
	described.Tools = []Tool{{Name: "read", Description: "Read a file.", Schema: base.Tools[0].Schema}}
	check(described, 2)

	require.NoError(t, afero.WriteFile(ws, "/ws/AGENTS.md", []byte("rules v2"), 0o644))
	check(base, 3) // workspace file edited

	mode := base
	mode.Mode = ModeMinimal
	check(mode, 4)
}

// nil and empty lists and maps print differently, so they must not share
// a memo entry (found in review: the key wrote only their length).
func TestMemoKeepsNilAndEmptyApart(t *testing.T) {
	pack := dynPack(t, map[string]string{"d": `tools={{ mustToJson .Tools }} aliases={{ mustToJson .ModelAliases }}`}, "")
	e, err := New(pack)
	require.NoError(t, err)
	for _, req := range []Request{{}, {Tools: []Tool{}}, {ModelAliases: map[string]string{}}, {}} {
		got, err := e.Render(context.Background(), req)
		require.NoError(t, err)
		fresh, err := New(pack)
		require.NoError(t, err)
		want, err := fresh.Render(context.Background(), req)
		require.NoError(t, err)
		assert.Equal(t, want.Layers[0].Dynamic, got.Layers[0].Dynamic)
	}
}

func TestStableMemoIsBounded(t *testing.T) {
	e, err := New(memoPack())
	require.NoError(t, err)
	for i := range memoSize + 10 {
		req := Request{Tools: []Tool{{Name: "t", Description: string(rune('a' + i))}}}
		_, err := e.Render(context.Background(), req)
		require.NoError(t, err)
	}
	assert.Equal(t, memoSize, e.memo.lru.Len())
	assert.Len(t, e.memo.items, memoSize)
}

func TestKeyHasherSeparatesValues(t *testing.T) {
	key := func(vs ...any) memoKey {
		k := &keyHasher{}
		for _, v := range vs {
			k.value(reflect.ValueOf(&v).Elem())
		}
		return k.sum()
	}
	pairs := [][2][]any{
		{{"ab", "c"}, {"a", "bc"}},
		{{[]string(nil)}, {[]string{}}},
		{{map[string]any{"n": int64(1)}}, {map[string]any{"n": "1"}}},
		{{map[string]any{"a": "b"}}, {map[string]any{"b": "a"}}},
		{{[]any{"x", nil}}, {[]any{nil, "x"}}},
		{{true}, {false}},
		{{1.5}, {2.5}},
		{{map[string]string(nil)}, {map[string]string{}}},
		{{map[string]bool(nil)}, {map[string]bool{}}},
		{{map[string]any(nil)}, {map[string]any{}}},
		{{[]any(nil)}, {[]any{}}},
		{{[]any{"xyz", nil}}, {[]any{1, struct {
			S string
			Z int64
		}{"xyz", 0}}}},
	}
	for _, p := range pairs {
		assert.NotEqual(t, key(p[0]...), key(p[1]...), "%v vs %v", p[0], p[1])
	}
	// Map iteration order never matters.
	m1 := map[string]any{"a": 1.0, "b": []any{"x"}, "c": map[string]any{"d": true}}
	m2 := map[string]any{"c": map[string]any{"d": true}, "b": []any{"x"}, "a": 1.0}
	assert.Equal(t, key(m1), key(m2))
}
