package funcs

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/names.golden")

// execute parses src with the function map, binds a plain include, and
// executes it against data.
func execute(t *testing.T, src string, data any) (string, error) {
	t.Helper()
	tmpl, err := template.New("test").Funcs(New(nil)).Option("missingkey=error").Parse(src)
	require.NoError(t, err)
	tmpl.Funcs(template.FuncMap{"include": func(name string, data any) (string, error) {
		var b strings.Builder
		err := tmpl.ExecuteTemplate(&b, name, data)
		return b.String(), err
	}})
	var b strings.Builder
	err = tmpl.Execute(&b, data)
	return b.String(), err
}

func TestNamesGolden(t *testing.T) {
	golden := filepath.Join("testdata", "names.golden")
	got := strings.Join(Names(), "\n") + "\n"
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "regenerate with: go test ./funcs -run TestNamesGolden -update")
	assert.Equal(t, string(want), got,
		"the function list changed; review, then regenerate with: go test ./funcs -run TestNamesGolden -update")
}

// Every function is documented, and nothing else is.
func TestDocsMatchTheMap(t *testing.T) {
	var documented []string
	for _, d := range Docs() {
		documented = append(documented, d.Name)
	}
	assert.Equal(t, Names(), documented, "docs must list every function of the map, sorted")
}

func TestDocExamples(t *testing.T) {
	for _, d := range Docs() {
		t.Run(d.Name, func(t *testing.T) {
			assert.NotEmpty(t, d.Summary)
			require.Contains(t, d.Example, d.Name, "the example should use the function it documents")
			got, err := execute(t, d.Example, nil)
			require.NoError(t, err)
			assert.Equal(t, d.Output, got)
		})
	}
}

func TestIncludeUnboundFails(t *testing.T) {
	tmpl, err := template.New("main").Funcs(New(nil)).Parse(`{{ define "p" }}x{{ end }}{{ include "p" . }}`)
	require.NoError(t, err, "templates using include must parse before include is bound")
	err = tmpl.Execute(new(strings.Builder), nil)
	assert.ErrorIs(t, err, errIncludeUnbound)
}

// ledger is a Budget that records what it is asked and refuses sizes
// over limit, as a panic like the engine's.
type ledger struct {
	limit  int
	wanted map[string]int
	work   int
	deep   []string
}

func (l *ledger) Want(fn string, n int) {
	l.wanted[fn] = max(l.wanted[fn], n)
	if n > l.limit {
		panic(fmt.Errorf("%s: %d over %d", fn, n, l.limit))
	}
}
func (l *ledger) Deep(fn string)          { l.deep = append(l.deep, fn); panic(fn + ": too deep") }
func (l *ledger) Charge(fn string, n int) { l.work += n }

// The functions that can build a large value ask for its size first, so
// a refusal comes before the allocation.
func TestBuildersAskFirst(t *testing.T) {
	for _, tc := range []struct {
		src, fn string
		size    int
	}{
		{`{{ repeat 10000000000 "x" }}`, "repeat", 10000000000},
		{`{{ until 100000000 }}`, "until", 1600000000},
		{`{{ printf "%999999d%999999d" 1 2 }}`, "printf", 2000000 + 14 + 2},
		{`{{ replace "a" "bbbb" "aaaa" }}`, "replace", 16},
		{`{{ splitList "" "abc" }}`, "splitList", 3 + 3*ElementSize},
		{`{{ join "--" (list "a" "b" "c") }}`, "join", 7},
		{`{{ indent 10 "a\nb" }}`, "indent", 3 + 1 + 20},
		{`{{ print "ab" "cd" }}`, "print", 4},
		{`{{ list "ab" (list 1) }}`, "list", 2*ElementSize + 2 + ElementSize + 1},
	} {
		l := &ledger{limit: 1 << 20, wanted: map[string]int{}}
		tmpl := template.Must(template.New("x").Funcs(New(l)).Parse(tc.src))
		err := tmpl.Execute(new(strings.Builder), nil)
		if tc.size > l.limit {
			assert.ErrorContains(t, err, fmt.Sprintf("%s: %d over", tc.fn, tc.size), tc.src)
		} else {
			assert.NoError(t, err, tc.src)
		}
		assert.Equal(t, tc.size, l.wanted[tc.fn], tc.src)
	}
}

func TestNestingIsRefused(t *testing.T) {
	l := &ledger{limit: 1 << 30, wanted: map[string]int{}}
	tmpl := template.Must(template.New("x").Funcs(New(l)).Parse(
		`{{ $l := list }}{{ range until 100 }}{{ $l = list $l }}{{ end }}`))
	err := tmpl.Execute(new(strings.Builder), nil)
	assert.ErrorContains(t, err, "list: too deep")
	assert.Equal(t, []string{"list"}, l.deep)
}

func TestCallsAreCharged(t *testing.T) {
	l := &ledger{limit: 1 << 30, wanted: map[string]int{}}
	tmpl := template.Must(template.New("x").Funcs(New(l)).Parse(`{{ contains "y" .S }}{{ has 1 .L }}`))
	require.NoError(t, tmpl.Execute(new(strings.Builder), map[string]any{"S": strings.Repeat("x", 1000), "L": make([]any, 10)}))
	assert.Equal(t, 1001+10*(ElementSize+1), l.work)
}

// The functions the built-in pack calls keep sprig's meaning, which the
// golden snapshots pin; these pin the corners the snapshots do not.
func TestValueFunctions(t *testing.T) {
	for src, want := range map[string]string{
		`{{ default "d" nil }} {{ default "d" 0 }} {{ default "d" (list) }} {{ default "d" "x" }}`: "d d d x",
		`{{ join "," (list "a" nil 2) }} {{ join "," .S }} {{ join "," "one" }}`:                   "a,2 x,y one",
		`{{ has "y" .S }} {{ has "z" .S }} {{ has 1 nil }}`:                                        "true false false",
		`{{ append .S "z" }} {{ .S }}`:                                                             "[x y z] [x y]",
		`{{ dict "a" }}`:                                                                           "map[a:]",
		`{{ trunc 10 "ab" }} {{ trunc -10 "ab" }}`:                                                 "ab ab",
	} {
		got, err := execute(t, src, map[string]any{"S": []string{"x", "y"}})
		require.NoError(t, err, src)
		assert.Equal(t, want, got, src)
	}
	assert.True(t, slices.IsSorted(Names()))
}
