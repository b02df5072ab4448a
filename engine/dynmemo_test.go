package engine

import (
	"context"
	"fmt"
	"os"
	"testing"
	"testing/fstest"
	"unsafe"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dynPack is a pack of one stable identity section plus the given dynamic
// sections (body by id, in id order) and partials.
func dynPack(t *testing.T, sections map[string]string, partials string) fstest.MapFS {
	t.Helper()
	bootstrapTmpl, err := os.ReadFile("../templates/bootstrap.tmpl")
	require.NoError(t, err)
	list := `"identity"`
	m := fstest.MapFS{
		"sections/identity.md.tmpl": {Data: []byte("+++\nmodes = [\"full\", \"minimal\", \"none\"]\ntier = \"stable\"\n+++\nI am the agent.")},
		"templates/bootstrap.tmpl":  {Data: bootstrapTmpl},
		"templates/partials.tmpl":   {Data: []byte(partials)},
	}
	for _, id := range sortedKeys(sections) {
		list += fmt.Sprintf(", %q", id)
		m["sections/"+id+".md.tmpl"] = &fstest.MapFile{Data: []byte("+++\nmodes = [\"full\"]\ntier = \"dynamic\"\n+++\n" + sections[id])}
	}
	m["sections/manifest.toml"] = &fstest.MapFile{Data: []byte("identity_section = \"identity\"\nboundary = \"<!-- B -->\"\n[[layer]]\nname = \"system\"\nsections = [" + list + "]\n")}
	return m
}

// The walk behind the dynamic-section memo: what a section reads, and
// when the view escapes so that what it reads cannot be known.
func TestSectionReads(t *testing.T) {
	partials := `{{ define "chan" }}{{ .Channel.ID }}{{ end }}{{ define "host" }}{{ .Host }}{{ end }}`
	cases := []struct {
		body   string
		reads  []string
		opaque bool
	}{
		{`{{ .Date }} {{ .Runtime.Host }}`, []string{"Date", "Runtime"}, false},
		{`{{ with .Runtime }}{{ .Host }}{{ $.Owners }}{{ end }}`, []string{"Owners", "Runtime"}, false},
		{`{{ range .Owners }}{{ . }}{{ end }}`, []string{"Owners"}, false},
		{`{{ $v := . }}{{ $v.Date }}`, []string{"Date"}, false},
		{`{{ with $ }}{{ .TTSHint }}{{ end }}`, []string{"TTSHint"}, false},
		{`{{ template "chan" . }}`, []string{"Channel"}, false},
		{`{{ include "chan" $ }}`, []string{"Channel"}, false},
		{`{{ template "host" .Runtime }}`, []string{"Runtime"}, false},
		{`{{ if .Tools.Has "read" }}{{ .Config.Workspace }}{{ end }}`, []string{"Config", "Tools"}, false},
		{`static text`, nil, false},
		// The view escapes.
		{`{{ . }}`, nil, true},
		{`{{ printf "%T" $ }}`, nil, true},
		{`{{ if . }}x{{ end }}`, nil, true},
		{`{{ include (print "chan") . }}`, nil, true},
		{`{{ $v := . }}{{ print $v }}`, nil, true},
		// A name bound to the view in one place and to a field in another:
		// the walk does not track scopes, so it gives up.
		{`{{ $x := . }}{{ $x = .Runtime }}{{ $x.Host }}`, nil, true},
		{`{{ with .Runtime }}{{ $ = . }}{{ end }}`, nil, true},
	}
	for _, c := range cases {
		t.Run(c.body, func(t *testing.T) {
			e, err := New(dynPack(t, map[string]string{"d": c.body}, partials))
			require.NoError(t, err)
			sec := e.pack.sections["d"]
			assert.Equal(t, c.opaque, sec.opaque)
			if !c.opaque {
				assert.Equal(t, c.reads, sec.reads)
				require.NotNil(t, sec.memo)
			} else {
				assert.Nil(t, sec.memo)
			}
		})
	}
	e, err := New(dynPack(t, nil, partials))
	require.NoError(t, err)
	assert.Nil(t, e.pack.sections["identity"].memo, "stable sections have the stable-tier memo instead")
}

// Each dynamic section is re-executed exactly when a field it reads
// changes, and every render equals a fresh engine's.
func TestDynamicMemo(t *testing.T) {
	ws := afero.NewMemMapFs()
	require.NoError(t, afero.WriteFile(ws, "/ws/HEARTBEAT.md", []byte("check mail"), 0o644))
	pack := dynPack(t, map[string]string{
		"clock": `{{ .Date }} on {{ .Runtime.Host }}`,
		"owner": `{{ if .Tools.Has "message" }}owners: {{ join ", " .Owners }}{{ end }}`,
		"beat":  `{{ with .DynamicFiles.Get "HEARTBEAT.md" }}{{ .Content }}{{ end }}`,
		"blob":  `{{ $x := . }}{{ $x = .Runtime }}{{ $x.Host }}`, // opaque: runs every time
	}, "")
	e, err := New(pack, WithFS(ws))
	require.NoError(t, err)
	base := Request{Workspace: Workspace{Path: "/ws"}, Date: "2026-11-30T09:00:00Z",
		Runtime: Runtime{Host: "a"}, Owners: []string{"ana"}, Tools: []Tool{{Name: "message"}}}

	entries := func() map[string]int {
		out := map[string]int{}
		for _, id := range []string{"clock", "owner", "beat"} {
			out[id] = e.pack.sections[id].memo.n
		}
		return out
	}
	steps := []struct {
		name string
		edit func(r *Request)
		want map[string]int // memo entries after the render
	}{
		{"first", func(*Request) {}, map[string]int{"clock": 1, "owner": 1, "beat": 1}},
		{"same again", func(*Request) {}, map[string]int{"clock": 1, "owner": 1, "beat": 1}},
		{"date", func(r *Request) { r.Date = "2026-11-30T09:01:00Z" }, map[string]int{"clock": 2, "owner": 1, "beat": 1}},
		{"owners", func(r *Request) { r.Owners = []string{"bo"} }, map[string]int{"clock": 2, "owner": 2, "beat": 1}},
		{"a stable field", func(r *Request) { r.Tools = nil }, map[string]int{"clock": 2, "owner": 3, "beat": 1}},
		{"host", func(r *Request) { r.Runtime.Host = "b" }, map[string]int{"clock": 3, "owner": 3, "beat": 1}},
		{"heartbeat file", func(*Request) {
			require.NoError(t, afero.WriteFile(ws, "/ws/HEARTBEAT.md", []byte("check the calendar"), 0o644))
		}, map[string]int{"clock": 3, "owner": 3, "beat": 2}},
		{"back to the first", func(r *Request) { *r = base }, map[string]int{"clock": 3, "owner": 3, "beat": 2}},
	}
	for _, s := range steps {
		req := base
		s.edit(&req)
		got, err := e.Render(context.Background(), req)
		require.NoError(t, err, s.name)
		fresh, err := New(pack, WithFS(ws))
		require.NoError(t, err)
		want, err := fresh.Render(context.Background(), req)
		require.NoError(t, err)
		assert.Equal(t, want.Layers, got.Layers, s.name)
		assert.Equal(t, s.want, entries(), s.name)
	}
}

func TestSectionMemoIsBoundedLRU(t *testing.T) {
	m := &sectionMemo{}
	for i := range sectionMemoSize + 3 {
		m.put(memoKey{uint64(i)}, memoOutput{raw: fmt.Sprint(i)})
	}
	assert.Equal(t, sectionMemoSize, m.n)
	_, ok := m.get(memoKey{0})
	assert.False(t, ok, "the oldest entries are dropped")
	oldest := memoKey{3}
	out, ok := m.get(oldest)
	require.True(t, ok)
	assert.Equal(t, "3", out.raw)
	m.put(memoKey{100}, memoOutput{raw: "100"}) // evicts 4, not 3, which was just used
	_, ok = m.get(oldest)
	assert.True(t, ok)
	_, ok = m.get(memoKey{4})
	assert.False(t, ok)
}

// A memoised section whose text has blank lines to fold is tidied again
// on every render: whether a run is folded depends on the injected files
// (their text is printed exactly), which its key does not cover.
func TestDynamicMemoRetidiesAroundInjectedText(t *testing.T) {
	ws := afero.NewMemMapFs()
	same := "keep\n\n\n\nthese"
	require.NoError(t, afero.WriteFile(ws, "/ws/AGENTS.md", []byte(same), 0o644))
	pack := dynPack(t, map[string]string{"gap": `{{ .TTSHint }}keep` + "\n\n\n\n" + `these`}, "")
	e, err := New(pack, WithFS(ws))
	require.NoError(t, err)
	req := Request{Workspace: Workspace{Path: "/ws"}}
	gap := func() string {
		res, err := e.Render(context.Background(), req)
		require.NoError(t, err)
		for _, s := range res.Layers[0].Sections {
			if s.ID == "gap" {
				return res.Layers[0].Text[s.Start:s.End]
			}
		}
		t.Fatal("no gap section")
		return ""
	}
	assert.Equal(t, same, gap(), "the same text as an injected file is left alone")
	require.NoError(t, afero.WriteFile(ws, "/ws/AGENTS.md", []byte("other rules"), 0o644))
	assert.Equal(t, "keep\n\nthese", gap(), "folded once no file holds it")
	assert.Equal(t, 1, e.pack.sections["gap"].memo.n, "from the memo both times")
}

// A turn whose dynamic outcomes all equal the last assembly's shares its
// text (same bytes, no copy) but never its section list, and outcomes
// that only trade places between sections are not mistaken for equal.
func TestLastLayerReuse(t *testing.T) {
	pack := dynPack(t, map[string]string{
		"a": `{{ if .TTSHint }}same{{ end }}`,
		"b": `{{ if not .TTSHint }}same{{ end }}`,
	}, "")
	e, err := New(pack)
	require.NoError(t, err)
	render := func(req Request) Layer {
		res, err := e.Render(context.Background(), req)
		require.NoError(t, err)
		return res.Layers[0]
	}
	render(Request{}) // fills the stable memo; the next render assembles over it
	first := render(Request{})
	second := render(Request{})
	assert.Equal(t, first, second)
	assert.Same(t, unsafe.StringData(first.Text), unsafe.StringData(second.Text), "the text is shared")
	second.Sections[0].ID = "changed by the caller"
	assert.Equal(t, "identity", render(Request{}).Sections[0].ID, "section lists are never shared")

	swapped := render(Request{TTSHint: "speak"})
	assert.Equal(t, first.Text, swapped.Text, "the same bytes")
	assert.Equal(t, "a", swapped.Sections[1].ID, "but from the other section")
	assert.Equal(t, "b", render(Request{}).Sections[1].ID)
}
