package meter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/funcs"
)

// The calls instrument adds print nothing and change no value: each
// template gives the same output, or the same error, with and without
// them.
func TestInstrumentChangesNothing(t *testing.T) {
	type inner struct{ S string }
	data := map[string]any{
		"Nil":    nil,
		"Str":    "abc",
		"Int":    3,
		"Uint":   uint8(3),
		"Map":    map[string]any{"a": 1, "b": nil, "c": "x"},
		"List":   []any{1, "two", nil},
		"Ptr":    &inner{S: "p"},
		"NilPtr": (*inner)(nil),
		"Struct": inner{S: "s"},
	}
	for _, src := range []string{
		`{{ eq .Str "abc" }} {{ eq .Int 3 }} {{ eq .Uint .Int }} {{ ne .Str "x" }}`,
		`{{ $n := .Nil }}{{ eq $n nil }}`,
		`{{ $s := .Str }}{{ eq $s "abc" "x" }} {{ lt $s "b" }} {{ ge (len $s) 3 }}`,
		`{{ $m := .Map }}{{ eq (index $m "b") nil }}`,
		`{{ eq .Map.b nil }} {{ eq .Nil nil }}`,
		`{{ $b := index .Map "b" }}{{ eq $b nil }}`,
		`{{ $x := 3 }}{{ eq $x .Uint }} {{ lt $x 4.5 }}`,
		`{{ $p := .Ptr }}{{ eq $p.S "p" }} {{ eq $p .Ptr }}`,
		`{{ $p := .NilPtr }}{{ eq $p nil }}`,
		`{{ $l := .List }}{{ index $l 1 }} {{ index $l 2 }} {{ $k := "c" }}{{ index .Map $k }}`,
		`{{ $l := .List }}{{ index $l 5 }}`,
		`{{ $s := .Struct }}{{ eq $s .Struct }}`,
		`{{ $m := .Map }}{{ eq $m $m }}`,
		`{{ range .Nil }}x{{ else }}empty{{ end }}`,
		`{{ range .Map.b }}x{{ else }}empty{{ end }}`,
		`{{ range $k, $v := .Map }}{{ $k }}={{ $v }};{{ end }}`,
		`{{ range $i, $e := .List }}{{ $i }}:{{ $e }};{{ end }}`,
		`{{ range 3 }}{{ . }}{{ end }} {{ range $i := 2 }}{{ $i }}{{ end }}`,
		`{{ range .List }}{{ if eq . "two" }}{{ break }}{{ end }}{{ . }}{{ end }}`,
		`{{ range .List }}{{ if not . }}{{ continue }}{{ end }}{{ . }}{{ end }}`,
		`{{ with $x := .Str }}{{ eq $x "abc" }}{{ end }}`,
		`{{ define "t" }}[{{ . }}]{{ end }}{{ template "t" .Str }}{{ block "b" .Int }}<{{ . }}>{{ end }}`,
		`{{ eq .Struct .Ptr }}`,
		`{{ lt .Map 1 }}`,
		`{{ $m := .Map }}{{ lt $m 1 }}`,
		`{{ eq }}`,
		`{{ define "r" }}{{ if . }}<{{ include "r" false }}>{{ end }}{{ end }}{{ include "r" true }}`,
		`{{ define "c" }}{{ if . }}({{ include (print "c") false }}){{ end }}{{ end }}{{ template "c" true }}`,
	} {
		run := func(instrumented bool) string {
			set := template.Must(template.New("x").Funcs(funcs.New(nil)).Parse(src))
			var buf bytes.Buffer
			m := New(Limits{}, &buf)
			if instrumented {
				Instrument(set)
			}
			set.Funcs(m.Funcs(set))
			m.Start(context.Background())
			m.Section()
			if err := set.Execute(m, data); err != nil {
				// The position is the same; the error names what failed.
				msg := err.Error()
				return "error: " + msg[strings.LastIndex(msg, ": ")+2:]
			}
			return buf.String()
		}
		assert.Equal(t, run(false), run(true), src)
	}
}

// framing lists, for a template set, which templates Instrument frames,
// which count their size when they start, and each one's size.
func framing(t *testing.T, src string) (framed, stepped []string, cost map[string]int) {
	t.Helper()
	g := newGraph(template.Must(template.New("main").Funcs(funcs.New(nil)).Parse(src)))
	for _, name := range g.names {
		switch {
		case g.framed[name]:
			framed = append(framed, name)
		case !g.folded(name):
			stepped = append(stepped, name)
		}
	}
	slices.Sort(framed)
	slices.Sort(stepped)
	return framed, stepped, g.cost
}

func TestOnlyCyclesAreFramed(t *testing.T) {
	for _, tc := range []struct {
		name, src       string
		framed, stepped []string
	}{
		{"acyclic calls fold into the caller", `{{ define "a" }}{{ template "b" }}{{ end }}{{ define "b" }}x{{ end }}{{ template "a" }}`,
			nil, []string{"main"}},
		{"self recursion", `{{ define "r" }}{{ template "r" }}{{ end }}{{ template "r" }}`,
			[]string{"r"}, []string{"main"}},
		{"a cycle of three, and a caller outside it", `{{ define "a" }}{{ template "b" }}{{ end }}{{ define "b" }}{{ include "c" . }}{{ end }}` +
			`{{ define "c" }}{{ template "a" }}{{ end }}{{ define "d" }}{{ end }}{{ template "a" }}{{ template "d" }}`,
			[]string{"a", "b", "c"}, []string{"main"}},
		{"a constant include target counts itself", `{{ define "p" }}x{{ end }}{{ include "p" . }}`,
			nil, []string{"main", "p"}},
		// The computed include may call main, or a, which reaches it.
		{"a computed include", `{{ define "a" }}{{ include (print "b") . }}{{ end }}{{ define "b" }}x{{ end }}{{ define "c" }}{{ end }}{{ template "a" }}`,
			[]string{"a", "main"}, []string{"b", "c"}},
		// Reaching a computed include frames every caller up the chain; a
		// caller of a cycle that reaches none is not framed.
		{"a computed include two calls down, and a cycle below a caller", `{{ define "a" }}{{ template "b" }}{{ end }}` +
			`{{ define "b" }}{{ template "c" }}{{ end }}{{ define "c" }}{{ include (print "x") . }}{{ end }}{{ define "x" }}{{ end }}` +
			`{{ define "e" }}{{ template "f" }}{{ end }}{{ define "f" }}{{ template "g" }}{{ end }}{{ define "g" }}{{ template "f" }}{{ end }}{{ template "a" }}`,
			[]string{"a", "b", "c", "f", "g", "main"}, []string{"e", "x"}},
	} {
		framed, stepped, _ := framing(t, tc.src)
		assert.Equal(t, tc.framed, framed, tc.name)
		assert.Equal(t, tc.stepped, stepped, tc.name)
	}
}

// A folded template's size counts once per call site in its caller; a
// range body counts on its own.
func TestFoldedSizes(t *testing.T) {
	_, _, cost := framing(t, `{{ define "leaf" }}a{{ 1 }}b{{ end }}{{ define "mid" }}{{ template "leaf" }}{{ template "leaf" }}{{ end }}`+
		`{{ template "mid" }}{{ range 3 }}{{ template "leaf" }}{{ end }}`)
	assert.Equal(t, 3, cost["leaf"])
	assert.Equal(t, 2+2*3, cost["mid"])
	assert.Equal(t, 1+8+1, cost["main"], "the call to mid, mid's size and the range")
}

// Sizes of templates calling the next twice, 80 deep, saturate rather
// than wrap round.
func TestChainSizesSaturate(t *testing.T) {
	var b strings.Builder
	for i := range 80 {
		fmt.Fprintf(&b, `{{ define "t%d" }}{{ template "t%d" }}{{ template "t%d" }}{{ end }}`, i, i+1, i+1)
	}
	b.WriteString(`{{ define "t80" }}{{ end }}{{ template "t0" }}`)
	_, stepped, cost := framing(t, b.String())
	assert.Equal(t, []string{"main"}, stepped)
	assert.Equal(t, 1<<40, cost["main"])
}

func TestMeterBounds(t *testing.T) {
	run := func(l Limits, src string, ctx context.Context) error {
		var buf bytes.Buffer
		m := New(l, &buf)
		tmpl := template.Must(template.New("x").Funcs(funcs.New(nil)).Parse(src))
		Instrument(tmpl)
		tmpl.Funcs(m.Funcs(tmpl))
		m.Start(ctx)
		m.Section()
		return tmpl.Execute(m, nil)
	}
	err := run(Limits{SectionOutput: 10}, strings.Repeat("x", 11), context.Background())
	assert.EqualError(t, err, "output exceeds the section output bound of 10 bytes")
	err = run(Limits{SectionOutput: 100, PromptOutput: 5}, strings.Repeat("x", 6), context.Background())
	assert.EqualError(t, err, "output exceeds the prompt output bound of 5 bytes for all sections together")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = run(Limits{}, strings.Repeat("x", ctxEvery), ctx)
	assert.ErrorIs(t, err, context.Canceled)
	err = run(Limits{Work: 100}, `{{ upper "`+strings.Repeat("x", 60)+`" }}`, context.Background())
	le, ok := errors.AsType[*LimitError](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, LimitError{Bound: BoundWork, Limit: 100, Func: "upper"}, *le)
	err = run(Limits{Steps: 10}, strings.Repeat("{{ 1 }}", 11), context.Background())
	assert.ErrorContains(t, err, "more than 10 template nodes")
	err = run(Limits{Depth: 5}, `{{ define "r" }}{{ include (print "r") . }}{{ end }}{{ include "r" . }}`, context.Background())
	le, ok = errors.AsType[*LimitError](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, BoundDepth, le.Bound)
	assert.Equal(t, 1, strings.Count(err.Error(), "template depth"), "the bound is passed up once, not wrapped per level: %v", err)
	err = run(Limits{}, `{{ include "nope" . }}`, context.Background())
	assert.ErrorContains(t, err, `template "nope" is not defined`)
}

func TestCheckCall(t *testing.T) {
	l := DefaultLimits()
	for call, want := range map[string]Bound{
		`repeat 10000000000 "x"`:    BoundValue,
		`repeat 10000000000`:        BoundValue,
		`repeat 1e10`:               BoundValue,
		`repeat 10 "x"`:             "",
		`repeat "ten" "x"`:          "",
		`until 100000000`:           BoundValue,
		`printf "%999999d%999999d"`: BoundValue,
		`indent 200 "` + strings.Repeat(`x\n`, 10000) + `"`: BoundValue,
		"upper `x`":   "",
		`fail "boom"`: "",
		`include "x"`: "",
	} {
		err := CheckCall(l, call)
		if want == "" {
			assert.NoError(t, err, call)
			continue
		}
		le, ok := errors.AsType[*LimitError](err)
		require.True(t, ok, "%s: %v", call, err)
		assert.Equal(t, want, le.Bound, call)
	}
}
