package funcs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The bounded rewrites of until, untilStep and seq give what sprig's give
// wherever sprig's end.
func TestBoundedRangesMatchSprig(t *testing.T) {
	m := NewMeter(Limits{}, new(bytes.Buffer)).Funcs(New())
	sp := sprig.HermeticTxtFuncMap()
	for _, n := range []int{-7, -1, 0, 1, 2, 10} {
		assert.Equal(t, sp["until"].(func(int) []int)(n), m["until"].(func(int) []int)(n), "until %d", n)
	}
	for _, a := range [][3]int{{0, 10, 3}, {10, 0, -3}, {0, 10, -1}, {10, 0, 1}, {5, 5, 1}, {0, 10, 0}, {-4, 4, 2}} {
		want := sp["untilStep"].(func(int, int, int) []int)(a[0], a[1], a[2])
		assert.Equal(t, want, m["untilStep"].(func(int, int, int) []int)(a[0], a[1], a[2]), "untilStep %v", a)
	}
	for _, p := range [][]int{{}, {5}, {-3}, {0}, {2, 6}, {6, 2}, {1, 2, 9}, {9, -2, 1}, {9, 2, 1}, {1, 2, 3, 4}} {
		want := sp["seq"].(func(...int) string)(p...)
		assert.Equal(t, want, m["seq"].(func(...int) string)(p...), "seq %v", p)
	}
	// sprig's loop never ends here: i += step wraps round past the largest int.
	assert.Equal(t, []int{math.MaxInt - 1}, m["untilStep"].(func(int, int, int) []int)(math.MaxInt-1, math.MaxInt, 5))
}

// A metered template prints what an unmetered one prints.
func TestMeteredFuncsKeepTheirMeaning(t *testing.T) {
	src := `{{ repeat 3 "ab" }}|{{ replace "a" "xy" "banana" }}|{{ regexReplaceAll "a(n)" "banana" "<$1>" }}|` +
		`{{ regexReplaceAllLiteral "a" "banana" "$1" }}|{{ join "," (list 1 "b" 2.5) }}|{{ wrapWith 3 "/" "abcdefg" }}|` +
		`{{ printf "%05d|%s" 42 "x" }}|{{ print 1 "a" }}|{{ upper "é" }}|{{ indent 2 "a\nb" }}|{{ mustToPrettyJson (dict "a" (list 1 2)) }}|` +
		`{{ uniq (list 1 1 2) }}|{{ html "<a>" }}|{{ len (until 4) }}|{{ include "p" "z" }}`
	out := func(metered bool) string {
		t.Helper()
		tmpl := template.New("x").Funcs(New())
		var buf bytes.Buffer
		var w = &buf
		m := NewMeter(Limits{}, w)
		if metered {
			tmpl.Funcs(m.Funcs(New()))
		}
		template.Must(tmpl.Parse(src + `{{ define "p" }}[{{ . }}]{{ end }}`))
		if metered {
			tmpl.Funcs(template.FuncMap{"include": m.Include(tmpl, 0)})
		} else {
			tmpl.Funcs(template.FuncMap{"include": NewIncluder(tmpl, 0).Include})
		}
		m.Partial()
		require.NoError(t, tmpl.Execute(m, nil))
		return buf.String()
	}
	assert.Equal(t, out(false), out(true))
}

func TestWeigh(t *testing.T) {
	cases := []struct {
		v    any
		want int
	}{
		{"abc", 3},
		{[]byte("abcd"), 4},
		{42, 1},
		{[]any{"ab", "c"}, 2*elementSize + 3},
		{map[string]any{"k": []int{1, 2}}, elementSize + 1 + 2*elementSize + 2},
		{[]any{[]any{}}, elementSize},
	}
	for _, tc := range cases {
		n, deep := weigh(tc.v, math.MaxInt)
		assert.Equal(t, tc.want, n, "%#v", tc.v)
		assert.False(t, deep)
	}
	var v any = "x"
	for range maxValueDepth {
		v = []any{v}
	}
	_, deep := weigh(v, math.MaxInt)
	assert.False(t, deep, "exactly maxValueDepth levels are allowed")
	_, deep = weigh([]any{v}, math.MaxInt)
	assert.True(t, deep)
	// Counting stops soon after the limit, however large the value.
	big := make([]any, 1<<20)
	for i := range big {
		big[i] = "xxxxxxxx"
	}
	n, _ := weigh([]any{big, big}, 100)
	assert.Less(t, n, 100+len(big)*elementSize+100)
}

func TestMeterBounds(t *testing.T) {
	run := func(l Limits, src string, ctx context.Context) error {
		var buf bytes.Buffer
		m := NewMeter(l, &buf)
		tmpl := template.New("x").Funcs(m.Funcs(New()))
		template.Must(tmpl.Parse(src))
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
	err = run(Limits{}, strings.Repeat("x", ctxEvery<<8), ctx)
	assert.ErrorIs(t, err, context.Canceled)
	err = run(Limits{Work: 100}, `{{ upper "`+strings.Repeat("x", 60)+`" }}`, context.Background())
	le, ok := errors.AsType[*LimitError](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, LimitError{Bound: BoundWork, Limit: 100, Func: "upper"}, *le)
}

func TestCheckConstantCall(t *testing.T) {
	l := DefaultLimits()
	for _, tc := range []struct {
		name string
		args []any
		want Bound
	}{
		{"repeat", []any{int64(1e10), "x"}, BoundValue},
		{"repeat", []any{int64(1e10)}, BoundValue},
		{"repeat", []any{int64(10), "x"}, ""},
		{"repeat", []any{"ten", "x"}, ""},
		{"until", []any{int64(1e8)}, BoundValue},
		{"untilStep", []any{int64(0), int64(1e8), int64(1)}, BoundValue},
		{"seq", []any{int64(1), int64(1e8)}, BoundValue},
		{"seq", []any{int64(1), int64(2), int64(3), int64(4)}, ""},
		{"printf", []any{"%999999d%999999d"}, BoundValue},
		{"indent", []any{int64(200), strings.Repeat("x\n", 10000)}, BoundValue},
		{"upper", []any{"x"}, ""},
	} {
		err := l.CheckConstantCall(tc.name, tc.args)
		if tc.want == "" {
			assert.NoError(t, err, "%s %v", tc.name, tc.args)
			continue
		}
		le, ok := errors.AsType[*LimitError](err)
		require.True(t, ok, "%s %v: %v", tc.name, tc.args, err)
		assert.Equal(t, tc.want, le.Bound, fmt.Sprint(tc.name, tc.args))
	}
}
