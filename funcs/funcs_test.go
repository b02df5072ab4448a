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

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/names.golden: the names, and each example's output")

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

// testdata/names.golden documents the map, one file per function: a
// summary line, an example template needing no data (one line), and what
// executing it yields.
func TestNamesGolden(t *testing.T) {
	golden := filepath.Join("testdata", "names.golden")
	a, err := txtar.ParseFile(golden)
	require.NoError(t, err)
	docs := map[string][]string{}
	var documented []string
	for _, f := range a.Files {
		documented = append(documented, f.Name)
		docs[f.Name] = strings.SplitN(strings.TrimSuffix(string(f.Data), "\n"), "\n", 3)
	}
	if *update {
		a.Files = nil
		for _, name := range Names() {
			d := append(docs[name], "", "", "")[:3]
			if d[1] != "" {
				d[2], _ = execute(t, d[1], nil)
			}
			a.Files = append(a.Files, txtar.File{Name: name, Data: []byte(strings.Join(d, "\n") + "\n")})
		}
		require.NoError(t, os.WriteFile(golden, txtar.Format(a), 0o644))
	}
	assert.Equal(t, Names(), documented,
		"the function list changed; review, then regenerate with: go test ./funcs -run TestNamesGolden -update, and document the new names")
	for _, name := range documented {
		t.Run(name, func(t *testing.T) {
			d := docs[name]
			require.Len(t, d, 3, "want a summary, an example and its output")
			assert.NotEmpty(t, d[0], "summary")
			require.Contains(t, d[1], name, "the example should use the function it documents")
			got, err := execute(t, d[1], nil)
			require.NoError(t, err)
			assert.Equal(t, d[2], got)
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
	asked  []int // every size asked for, in order: the first is a call's estimate
}

func (l *ledger) Want(fn string, n int) {
	l.wanted[fn] = max(l.wanted[fn], n)
	l.asked = append(l.asked, n)
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
		// A width pads every element of a list, and a '*' may take the
		// largest integer argument.
		{`{{ printf "%1000000d" (until 300) }}`, "printf", 300*1000000 + 9 + 300*(ElementSize+1)},
		{`{{ printf "%*d" 1000000 (until 600) }}`, "printf", 600*1000000 + 3 + 1 + 600*(ElementSize+1)},
		{`{{ printf "%[2]*[1]d" (until 3) 5 }}`, "printf", 3*5 + 9 + 3*(ElementSize+1) + 1},
		{`{{ printf "%5.3f|%%|%d" (list 1.0 2.0) 7 }}`, "printf", 2*8 + 11 + 2*(ElementSize+1) + 1},
		{`{{ replace "a" "bbbb" "aaaa" }}`, "replace", 16},
		{`{{ splitList "" "abc" }}`, "splitList", 3 + 3*ElementSize},
		{`{{ join "--" (list "a" "b" "c") }}`, "join", 7},
		{`{{ indent 10 "a\nb" }}`, "indent", 3 + 1 + 20},
		{`{{ print "ab" "cd" }}`, "print", 4},
		// Printing a list prints what it holds.
		{`{{ $l := list (repeat 1000 "x") }}{{ print $l $l }}`, "print", 2 * (ElementSize + 1000)},
		{`{{ html "<" (list "<<") }}`, "html", 5 * (1 + ElementSize + 2)},
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

// unweighed is what printing an argument may add that sizes do not
// count (a number's digits, the text of a verb that does not fit its
// value, a struct's braces): the estimate may be short by that much per
// argument, never by a width or an escape per value, which only the
// estimate can stop before fmt builds the result.
const unweighed = 64

// printf's estimate, asked before fmt builds anything, is never below
// what fmt builds, whatever the widths, precisions, argument indexes and
// values, but for what its arguments print unweighed.
func TestPrintfEstimateBoundsItsResult(t *testing.T) {
	formats := []string{"%50d", "%-80v", "%*d", "%-*.*f", "%[2]*[1]d", "%38.30f %v", "% 60x", "%#90v", "%+v", "%60q", "%[3]50v %[1]30v", "%.*s", "%50%%30d", "%!", "%[x]50d", "%90"}
	values := []any{7, -3, 2.5, "abc", []int{1, 2, 3}, []any{[]any{1, "x"}, map[string]any{"k": 1.5}}, map[string]any{"a": []any{1, 2}}, []byte("hey"), make([]int, 40), struct{ A, B int }{1, 2}, &struct{ S []string }{[]string{"a", "b"}}, nil}
	for _, f := range formats {
		for _, a := range values {
			for _, args := range [][]any{{a}, {40, a}, {a, 30, a}, {30, 20, a, a}} {
				l := &ledger{limit: 1 << 30, wanted: map[string]int{}}
				out := New(l)["printf"].(func(string, ...any) string)(f, args...)
				assert.LessOrEqual(t, len(out), l.asked[0]+unweighed*len(args), "%q %#v", f, args)
			}
		}
	}
}

// The printing functions' estimates, asked before they build anything,
// are never below what they build, escaping included, but for what their
// arguments print unweighed.
func TestPrintEstimatesBoundTheirResults(t *testing.T) {
	hostile := strings.Repeat("<>&\"'\x00\u2028\xff é\n\t=?", 8)
	values := []any{hostile, []any{hostile, 1.5e300, -9223372036854775807}, map[string]any{hostile: []string{hostile}}, 7, nil}
	for _, fn := range []string{"print", "println", "html", "js", "urlquery"} {
		for _, v := range values {
			l := &ledger{limit: 1 << 30, wanted: map[string]int{}}
			out := New(l)[fn].(func(...any) string)(v, v)
			assert.LessOrEqual(t, len(out), l.asked[0]+unweighed*2, "%s %#v", fn, v)
		}
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
