package engine_test

import (
	"context"
	"errors"
	"io/fs"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/internal/pack"
	"github.com/sysprompt/sysprompt/funcs"
)

// The tests in this file feed the engine hostile packs: templates that
// would allocate without end, loop for ever or recurse without limit.
// Each must end in an error naming the section and the bound, quickly
// and in bounded memory, with the default limits.

// hostilePack is a minimal pack whose one dynamic section is body, plus
// any partials.
func hostilePack(t testing.TB, body string, partials string) fs.FS {
	p := minimalPack(t, manifest(`"identity", "hostile"`), map[string]string{"hostile": section(dynamic, body)})
	if partials != "" {
		addFile(p, "templates/hostile.tmpl", partials)
	}
	return p
}

// chain defines t0 … t40, each calling the next twice: 2^41 calls, none
// of them deep and none writing or calling a function.
func chain() string {
	var b strings.Builder
	for i := range 40 {
		b.WriteString(`{{define "t` + itoa(i) + `"}}{{template "t` + itoa(i+1) + `"}}{{template "t` + itoa(i+1) + `"}}{{end}}`)
	}
	b.WriteString(`{{define "t40"}}{{end}}`)
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestHostileTemplatesEndInABoundError(t *testing.T) {
	cases := []struct {
		name     string
		body     string
		partials string
		bound    funcs.Bound
		fn       string // the function named, if any
	}{
		{"repeat from a variable", `{{ $n := 10000000000 }}{{ repeat $n "x" }}`, "", funcs.BoundValue, "repeat"},
		{"until from a variable", `{{ $n := 100000000 }}{{ range until $n }}x{{ end }}`, "", funcs.BoundValue, "until"},
		{"untilStep", `{{ $n := 100000000 }}{{ untilStep 0 $n 1 }}`, "", funcs.BoundValue, "untilStep"},
		{"seq", `{{ $n := 100000000 }}{{ seq $n }}`, "", funcs.BoundValue, "seq"},
		{"long empty loops", `{{ range until 60000 }}{{ range until 10 }}{{ end }}{{ end }}`, "", funcs.BoundSteps, ""},
		{"a template calling a large one many times", `{{ template "many" }}`, `{{ define "many" }}` + strings.Repeat(`{{ template "leaf" }}`, 1000) + `{{ end }}{{ define "leaf" }}` + strings.Repeat(`{{ 1 }}`, 1000) + `{{ end }}`, funcs.BoundSteps, ""},
		{"comparing large strings in a loop", `{{ $a := repeat 1000000 "x" }}{{ $b := repeat 1000000 "x" }}{{ range until 60000 }}{{ if eq $a $b $b $b }}{{ end }}{{ end }}`, "", funcs.BoundWork, "comparison"},
		{"indexing with a large key", `{{ $k := repeat 1000000 "x" }}{{ $m := dict "a" 1 }}{{ range until 60000 }}{{ index $m $k }}{{ end }}`, "", funcs.BoundWork, "comparison"},
		{"a regex with many states over a large string", `{{ regexMatch (print (repeat 5000 "a?") "b") (repeat 1000000 "a") }}`, "", funcs.BoundWork, "regexMatch"},
		{"splitting into a piece per byte", `{{ split "" (repeat 1000000 "x") }}`, "", funcs.BoundValue, "split"},
		{"finding every empty match", `{{ regexFindAll "" (repeat 1000000 "x") -1 }}`, "", funcs.BoundValue, "regexFindAll"},
		{"comparing large lists in a loop", `{{ $a := until 60000 }}{{ $b := until 60000 }}{{ range until 60000 }}{{ if deepEqual (list $a) (list $b) }}{{ end }}{{ end }}`, "", funcs.BoundWork, "deepEqual"},
		{"leaving many values out of a large list", `{{ $a := until 60000 }}{{ range until 1000 }}{{ $x := without $a 1 2 3 4 5 6 7 8 9 10 }}{{ end }}`, "", funcs.BoundWork, "without"},
		{"ranging over a large map again and again", `{{ $m := split "x" (repeat 20000 "x") }}{{ range until 1000 }}{{ range $m }}{{ break }}{{ end }}{{ end }}`, "", funcs.BoundWork, "range"},
		{"range over an integer", `{{ $n := 100000000 }}{{ range $n }}{{ end }}`, "", funcs.BoundSteps, ""},
		{"loops in loops", `{{ range until 1000 }}{{ range until 1000 }}{{ end }}{{ end }}`, "", funcs.BoundSteps, ""},
		{"templates calling each other twice, 41 deep", `{{ template "t0" }}`, chain(), funcs.BoundSteps, ""},
		{"recursion", `{{ template "r" . }}`, `{{define "r"}}{{template "r" .}}{{end}}`, funcs.BoundDepth, ""},
		{"output", `{{ range until 60000 }}0123456789012345678901234567890123456789{{ end }}`, "", funcs.BoundSectionOutput, ""},
		{"output through include", `{{ include "big" . }}`, `{{define "big"}}{{ range until 60000 }}0123456789012345678901234567890123456789{{ end }}{{end}}`, funcs.BoundSectionOutput, ""},
		{"a doubling string", `{{ $s := "x" }}{{ range until 64 }}{{ $s = print $s $s }}{{ end }}`, "", funcs.BoundValue, "print"},
		{"a doubling list", `{{ $l := list 1 }}{{ range until 64 }}{{ $l = list $l $l }}{{ end }}{{ $l }}`, "", funcs.BoundValue, "list"},
		{"a deep list", `{{ $l := list }}{{ range until 1000 }}{{ $l = list $l }}{{ end }}{{ $l }}`, "", funcs.BoundValueDepth, "list"},
		{"printf widths", `{{ $f := repeat 100 "%999999d" }}{{ printf $f 1 }}`, "", funcs.BoundValue, "printf"},
		{"replace", `{{ $s := repeat 1000000 "x" }}{{ $r := repeat 1000 "y" }}{{ replace "x" $r $s }}`, "", funcs.BoundValue, "replace"},
		{"replace the empty string", `{{ $s := repeat 1000000 "x" }}{{ $r := repeat 1000 "y" }}{{ replace "" $r $s }}`, "", funcs.BoundValue, "replace"},
		{"regexReplaceAll", `{{ $s := repeat 1000000 "x" }}{{ $r := repeat 1000 "y" }}{{ regexReplaceAll "" $s $r }}`, "", funcs.BoundValue, "regexReplaceAll"},
		{"regexReplaceAll expanding the match", `{{ $s := repeat 1000000 "x" }}{{ $r := repeat 1000 "$0" }}{{ regexReplaceAll "x+" $s $r }}`, "", funcs.BoundValue, "regexReplaceAll"},
		{"wrapWith", `{{ $s := repeat 100000 "x" }}{{ wrapWith 1 $s $s }}`, "", funcs.BoundValue, "wrapWith"},
		{"join", `{{ $s := repeat 100000 "x" }}{{ join $s (until 60000) }}`, "", funcs.BoundValue, "join"},
		{"uniq", `{{ uniq (until 60000) }}`, "", funcs.BoundWork, "uniq"},
		{"scanning a large string in a loop", `{{ $s := repeat 1000000 "x" }}{{ range until 60000 }}{{ if contains "y" $s }}{{ end }}{{ end }}`, "", funcs.BoundWork, "contains"},
		{"pretty JSON", `{{ $l := until 1000 }}{{ range until 50 }}{{ $l = list $l }}{{ end }}{{ mustToPrettyJson $l }}`, "", funcs.BoundValue, "mustToPrettyJson"},
	}
	worstTime, worstAlloc, worstName := time.Duration(0), uint64(0), ""
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, err := engine.New(hostilePack(t, tc.body, tc.partials))
			require.NoError(t, err, "lint must not refuse a bound it cannot see")
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err = e.Render(context.Background(), directRequest())
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%v, %.1f MiB allocated", took.Round(time.Millisecond), mib(alloc))
			if took > worstTime {
				worstTime = took
			}
			if alloc > worstAlloc {
				worstAlloc, worstName = alloc, tc.name
			}

			require.Error(t, err)
			le, ok := errors.AsType[*engine.LimitError](err)
			require.True(t, ok, "want a LimitError, got %v", err)
			assert.Equal(t, tc.bound, le.Bound, "%v", err)
			if tc.fn != "" {
				assert.Equal(t, tc.fn, le.Func, "%v", err)
			}
			e2, ok := errors.AsType[*engine.Error](err)
			require.True(t, ok)
			assert.Equal(t, "hostile", e2.Section)
			assert.Contains(t, err.Error(), string(tc.bound))
			assert.Less(t, alloc, uint64(256<<20), "a hostile template must not allocate 256 MiB")
		})
	}
	t.Logf("worst case: %v; most allocated: %.1f MiB (%s)", worstTime.Round(time.Millisecond), mib(worstAlloc), worstName)
}

// New (and so render lint) refuses calls whose constant arguments are
// sure to pass a bound, at the call.
func TestLintRefusesConstantsOverABound(t *testing.T) {
	cases := []struct{ body, want string }{
		{`{{ repeat 10000000000 "x" }}`, `sections/hostile.md.tmpl:5:4: section hostile: repeat: the result would take about 10000000000 bytes, over the value size bound of 1048576`},
		{`{{ "x" | repeat 10000000000 }}`, `sections/hostile.md.tmpl:5:10: section hostile: repeat: the result would take about 10000000000 bytes, over the value size bound of 1048576`},
		{"\n{{ range until 100000000 }}{{ end }}", `sections/hostile.md.tmpl:6:10: section hostile: until: the result would take about 1600000000 bytes, over the value size bound of 1048576`},
		{`{{ seq 1 10000000000 }}`, `sections/hostile.md.tmpl:5:4: section hostile: seq: the result would take about 160000000000 bytes, over the value size bound of 1048576`},
		{`{{ range 100000000 }}{{ end }}`, `sections/hostile.md.tmpl:5:10: section hostile: more than 500000 template nodes executed in one render, counting each call and each range iteration (the steps bound)`},
		{`{{ printf "%999999d%999999d" 1 2 }}`, `sections/hostile.md.tmpl:5:4: section hostile: printf: the result would take about 2000014 bytes, over the value size bound of 1048576`},
	}
	for _, tc := range cases {
		_, err := engine.New(hostilePack(t, tc.body, ""))
		assert.EqualError(t, err, tc.want, tc.body)
	}
	for _, ok := range []string{`{{ repeat 10 "x" }}`, `{{ range until 100 }}{{ end }}`, `{{ seq 5 }}`, `{{ printf "%5d" 1 }}`, `{{ range 10 }}{{ end }}`} {
		_, err := engine.New(hostilePack(t, ok, ""))
		assert.NoError(t, err, ok)
	}
	// Bounds set by the embedder are the ones lint checks.
	_, err := engine.New(hostilePack(t, `{{ repeat 2000 "x" }}`, ""), engine.WithLimits(engine.Limits{Value: 1000}))
	assert.ErrorContains(t, err, "over the value size bound of 1000")
}

// The context's deadline stops a render inside a section, not only
// between sections.
func TestRenderHonoursTheDeadlineWithinASection(t *testing.T) {
	e, err := engine.New(hostilePack(t, `{{ range until 60000 }}{{ range until 60000 }}{{ end }}{{ end }}`, ""),
		engine.WithLimits(engine.Limits{Steps: 1 << 40}))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = e.Render(ctx, directRequest())
	require.ErrorIs(t, err, context.DeadlineExceeded)
	var ee *engine.Error
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, "hostile", ee.Section)
}

// The prompt bound counts every section, cached or not, so a render's
// verdict does not depend on what the engine rendered before.
func TestPromptOutputBound(t *testing.T) {
	text := strings.Repeat("x", 800)
	p := minimalPack(t, manifest(`"identity", "one", "two"`), map[string]string{
		"one": section(stable, text),
		"two": section(dynamic, `{{ if .Channel.ID }}`+text+`{{ end }}`),
	})
	e, err := engine.New(p, engine.WithLimits(engine.Limits{SectionOutput: 1000, PromptOutput: 1500}))
	require.NoError(t, err)
	small := directRequest()
	small.Channel.ID = ""
	_, err = e.Render(context.Background(), small) // fills the stable memo
	require.NoError(t, err)
	for range 2 {
		_, err = e.Render(context.Background(), directRequest())
		le, ok := errors.AsType[*engine.LimitError](err)
		require.True(t, ok, "%v", err)
		assert.Equal(t, funcs.BoundPromptOutput, le.Bound)
		assert.ErrorContains(t, err, "section two: output exceeds the prompt output bound of 1500 bytes")
	}
}

// The marker partials New runs once with sample values are held to the
// output bound like every other execution.
func TestNewBoundsTheMarkerCheck(t *testing.T) {
	p := packWith(t, nil)
	text, err := fs.ReadFile(p, "templates/bootstrap.tmpl")
	require.NoError(t, err)
	hostile := `{{- define "missing_marker" -}}{{ $s := repeat 1000000 "x" }}{{ range until 2000 }}{{ $s }}{{ end }}{{end}}` +
		"\n" + `{{- define "unused_marker" -}}`
	addFile(p, "templates/bootstrap.tmpl", strings.Replace(string(text), `{{- define "missing_marker" -}}`, hostile, 1))
	_, err = engine.New(p)
	le, ok := errors.AsType[*engine.LimitError](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, funcs.BoundSectionOutput, le.Bound)
}

// A partial nested deep enough to overflow text/template's recursive
// parser (a fatal error, not a panic) is refused by its size before it
// is parsed.
func TestDeeplyNestedPartialIsRefusedBeforeParsing(t *testing.T) {
	const depth = 2_000_000
	nested := strings.Repeat("{{if 1}}", depth) + strings.Repeat("{{end}}", depth)
	_, err := engine.New(hostilePack(t, "x", nested))
	require.Error(t, err)
	assert.ErrorContains(t, err, "templates/hostile.tmpl")
	assert.ErrorContains(t, err, "is larger than 1048576 bytes")
}

// Every kind of file a pack is read from is refused one byte over the
// bound, by name; a partial of exactly the bound is read.
func TestPackFilesOverTheSizeBoundAreRefused(t *testing.T) {
	over := strings.Repeat("#", pack.MaxFileBytes+1)
	for _, file := range []string{
		"sections/manifest.toml",
		"sections/hostile.md.tmpl",
		"templates/hostile.tmpl",
		"templates/defaults.toml",
		"templates/tools.toml",
		"templates/channels.toml",
		"templates/overlays/big.toml",
	} {
		p := hostilePack(t, "x", "")
		addFile(p, file, over)
		_, err := engine.New(p)
		require.Error(t, err, file)
		assert.ErrorContains(t, err, file+": ", file)
		assert.ErrorContains(t, err, "is larger than 1048576 bytes", file)
	}
	_, err := engine.New(hostilePack(t, "x", strings.Repeat("#", pack.MaxFileBytes)))
	assert.NoError(t, err, "a partial of exactly the bound")
}
