package engine_test

import (
	"context"
	"errors"
	"fmt"
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

// longPair sets $a and $b to two long strings that differ only in their
// last byte, so that comparing them reads them whole.
const longPair = `{{ $p := repeat 400000 "x" }}{{ $a := print $p "b" }}{{ $b := print $p "a" }}`

func itoa(i int) string { return strconv.Itoa(i) }

// largeDict is the arguments of a dict of n keys.
func largeDict(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(` "k` + itoa(i) + `" 0`)
	}
	return b.String()
}

func TestHostileTemplatesEndInABoundError(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs templates until they hit their bounds")
	}
	cases := []struct {
		name     string
		body     string
		partials string
		bound    engine.Bound
		fn       string // the function named, if any
	}{
		{"repeat from a variable", `{{ $n := 10000000000 }}{{ repeat $n "x" }}`, "", engine.BoundValue, "repeat"},
		{"until from a variable", `{{ $n := 100000000 }}{{ range until $n }}x{{ end }}`, "", engine.BoundValue, "until"},
		{"long empty loops", `{{ range until 60000 }}{{ range until 10 }}{{ end }}{{ end }}`, "", engine.BoundSteps, ""},
		{"a template calling a large one many times", `{{ template "many" }}`, `{{ define "many" }}` + strings.Repeat(`{{ template "leaf" }}`, 1000) + `{{ end }}{{ define "leaf" }}` + strings.Repeat(`{{ 1 }}`, 1000) + `{{ end }}`, engine.BoundSteps, ""},
		{"comparing large strings in a loop", `{{ $a := repeat 1000000 "x" }}{{ $b := repeat 1000000 "x" }}{{ range until 60000 }}{{ if eq $a $b $b $b }}{{ end }}{{ end }}`, "", engine.BoundWork, "comparison"},
		{"indexing with a large key", `{{ $k := repeat 1000000 "x" }}{{ $m := dict "a" 1 }}{{ range until 60000 }}{{ index $m $k }}{{ end }}`, "", engine.BoundWork, "comparison"},
		{"splitting into a piece per byte", `{{ $s := repeat 1000000 "x" }}{{ splitList "" $s }}`, "", engine.BoundValue, "splitList"},
		{"looking through a large list in a loop", `{{ $a := until 60000 }}{{ range until 60000 }}{{ if has -1 $a }}{{ end }}{{ end }}`, "", engine.BoundWork, "has"},
		{"ranging over a large map again and again", `{{ $m := dict ` + largeDict(20000) + ` }}{{ range until 1000 }}{{ range $m }}{{ break }}{{ end }}{{ end }}`, "", engine.BoundWork, "range"},
		{"range over an integer", `{{ $n := 100000000 }}{{ range $n }}{{ end }}`, "", engine.BoundSteps, ""},
		{"loops in loops", `{{ range until 1000 }}{{ range until 1000 }}{{ end }}{{ end }}`, "", engine.BoundSteps, ""},
		{"templates calling each other twice, 41 deep", `{{ template "t0" }}`, chain(), engine.BoundSteps, ""},
		{"recursion", `{{ template "r" . }}`, `{{define "r"}}{{template "r" .}}{{end}}`, engine.BoundDepth, ""},
		{"recursion through include", `{{ include "r" . }}`, `{{define "r"}}{{include "r" .}}{{end}}`, engine.BoundDepth, ""},
		{"recursion through a computed include", `{{ include "r" . }}`, `{{define "r"}}{{include (print "r") .}}{{end}}`, engine.BoundDepth, ""},
		{"recursion through a computed include and a template", `{{ template "a" . }}`, `{{define "a"}}{{template "b" .}}{{end}}{{define "b"}}{{include (printf "%s" "a") .}}{{end}}`, engine.BoundDepth, ""},
		{"a computed include calling a large template many times", `{{ range until 1000 }}{{ include (print "le" "af") . }}{{ end }}`, `{{ define "leaf" }}` + strings.Repeat(`{{ 1 }}`, 1000) + `{{ end }}`, engine.BoundSteps, ""},
		{"output", `{{ range until 60000 }}0123456789012345678901234567890123456789{{ end }}`, "", engine.BoundSectionOutput, ""},
		{"output through include", `{{ include "big" . }}`, `{{define "big"}}{{ range until 60000 }}0123456789012345678901234567890123456789{{ end }}{{end}}`, engine.BoundSectionOutput, ""},
		{"a doubling string", `{{ $s := "x" }}{{ range until 64 }}{{ $s = print $s $s }}{{ end }}`, "", engine.BoundValue, "print"},
		{"a doubling list", `{{ $l := list 1 }}{{ range until 64 }}{{ $l = list $l $l }}{{ end }}{{ $l }}`, "", engine.BoundValue, "list"},
		{"a deep list", `{{ $l := list }}{{ range until 1000 }}{{ $l = list $l }}{{ end }}{{ $l }}`, "", engine.BoundValueDepth, "list"},
		{"printf widths", `{{ $f := repeat 100 "%999999d" }}{{ printf $f 1 }}`, "", engine.BoundValue, "printf"},
		{"escaping a large list many times", `{{ $s := repeat 1000000 "<" }}{{ $l := list $s }}{{ html` + strings.Repeat(" $l", 200) + ` }}`, "", engine.BoundValue, "html"},
		{"a printf width over every element of a list", `{{ $n := 300 }}{{ printf "%1000000d" (until $n) }}`, "", engine.BoundValue, "printf"},
		{"a printf width from an argument", `{{ $n := 60000 }}{{ printf "%*d" 1000000 (until $n) }}`, "", engine.BoundValue, "printf"},
		{"an error under nested ranges", strings.Repeat("{{range 1}}", 900) + `{{ fail "deep" }}` + strings.Repeat("{{end}}", 900), "", engine.BoundDepth, ""},
		{"ranges in a recursion", `{{ template "r" }}`, `{{define "r"}}{{range 1}}{{range 1}}{{template "r"}}{{end}}{{end}}{{end}}`, engine.BoundDepth, ""},
		{"replace", `{{ $s := repeat 1000000 "x" }}{{ $r := repeat 1000 "y" }}{{ replace "x" $r $s }}`, "", engine.BoundValue, "replace"},
		{"replace the empty string", `{{ $s := repeat 1000000 "x" }}{{ $r := repeat 1000 "y" }}{{ replace "" $r $s }}`, "", engine.BoundValue, "replace"},
		{"join", `{{ $s := repeat 100000 "x" }}{{ join $s (until 60000) }}`, "", engine.BoundValue, "join"},
		{"looking up a large key in a loop", `{{ $s := repeat 1000000 "x" }}{{ $d := dict $s 1 }}{{ range until 1000 }}{{ $v := get $d $s }}{{ end }}`, "", engine.BoundWork, "get"},
		{"asking for a large key in a loop", `{{ $s := repeat 1000000 "x" }}{{ $d := dict $s 1 }}{{ range until 1000 }}{{ $v := hasKey $d $s }}{{ end }}`, "", engine.BoundWork, "hasKey"},
		{"sorting long strings in a loop", longPair + `{{ $l := list $a $b }}{{ range until 1000 }}{{ $v := sortAlpha $l }}{{ end }}`, "", engine.BoundWork, "sortAlpha"},
		{"listing long keys in a loop", longPair + `{{ $d := dict $a 1 $b 2 }}{{ range until 1000 }}{{ $v := keys $d }}{{ end }}`, "", engine.BoundWork, "keys"},
		{"listing the values under long keys in a loop", longPair + `{{ $d := dict $a 1 $b 2 }}{{ range until 1000 }}{{ $v := values $d }}{{ end }}`, "", engine.BoundWork, "values"},
		{"ranging over long keys in a loop", longPair + `{{ $d := dict $a 1 $b 2 }}{{ range until 1000 }}{{ range $d }}{{ end }}{{ end }}`, "", engine.BoundWork, "range"},
		{"scanning a large string in a loop", `{{ $s := repeat 1000000 "x" }}{{ range until 60000 }}{{ if contains "y" $s }}{{ end }}{{ end }}`, "", engine.BoundWork, "contains"},
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

// A range left by break or continue, or run to its end, gives back the
// level of nesting it took, so loops may run for as long as the steps
// bound allows.
func TestRangesGiveBackTheirNesting(t *testing.T) {
	body := `{{ range until 500 }}{{ range 3 }}{{ break }}{{ end }}{{ range 3 }}{{ continue }}{{ end }}{{ range 0 }}{{ else }}{{ end }}{{ end }}ok`
	e, err := engine.New(hostilePack(t, body, ""), engine.WithLimits(engine.Limits{Depth: 3}))
	require.NoError(t, err)
	res, err := e.Render(context.Background(), directRequest())
	require.NoError(t, err)
	assert.Contains(t, res.Layers[0].Dynamic, "ok")
}

// New (and so render lint) refuses calls whose constant arguments are
// sure to pass a bound, at the call.
func TestLintRefusesConstantsOverABound(t *testing.T) {
	cases := []struct{ body, want string }{
		{`{{ repeat 10000000000 "x" }}`, `sections/hostile.md.tmpl:5:4: section hostile: repeat: the result would take about 10000000000 bytes, over the value size bound of 1048576`},
		{`{{ "x" | repeat 10000000000 }}`, `sections/hostile.md.tmpl:5:10: section hostile: repeat: the result would take about 10000000000 bytes, over the value size bound of 1048576`},
		{"\n{{ range until 100000000 }}{{ end }}", `sections/hostile.md.tmpl:6:10: section hostile: until: the result would take about 1600000000 bytes, over the value size bound of 1048576`},
		{`{{ range 100000000 }}{{ end }}`, `sections/hostile.md.tmpl:5:10: section hostile: more than 500000 template nodes executed in one render, counting each call and each range iteration (the steps bound)`},
		{`{{ printf "%999999d%999999d" 1 2 }}`, `sections/hostile.md.tmpl:5:4: section hostile: printf: the result would take about 2000016 bytes, over the value size bound of 1048576`},
		{`{{ printf "%1000000d" (until 300) }}`, `sections/hostile.md.tmpl:5:4: section hostile: printf: the result would take about 300005109 bytes, over the value size bound of 1048576`},
		{`{{ printf "%d" (until 100000000) }}`, `sections/hostile.md.tmpl:5:17: section hostile: until: the result would take about 1600000000 bytes, over the value size bound of 1048576`},
	}
	for _, tc := range cases {
		_, err := engine.New(hostilePack(t, tc.body, ""))
		assert.EqualError(t, err, tc.want, tc.body)
	}
	for _, ok := range []string{`{{ printf "%5d" (until 30) }}`, `{{ repeat 10 "x" }}`, `{{ range until 100 }}{{ end }}`, `{{ printf "%5d" 1 }}`, `{{ range 10 }}{{ end }}`} {
		_, err := engine.New(hostilePack(t, ok, ""))
		assert.NoError(t, err, ok)
	}
	// Bounds set by the embedder are the ones lint checks.
	_, err := engine.New(hostilePack(t, `{{ repeat 2000 "x" }}`, ""), engine.WithLimits(engine.Limits{Value: 1000}))
	assert.ErrorContains(t, err, "over the value size bound of 1000")
}

// A function the map does not have fails the load at the call, with the
// nearest one the map has when one is close.
func TestUnknownFunctionSuggestsTheNearest(t *testing.T) {
	for body, want := range map[string]string{
		`{{ repat 3 "x" }}`:        `sections/hostile.md.tmpl:5:4: section hostile: function "repat" not defined (did you mean repeat?)`,
		`{{ "x" | toPrettyJson }}`: `sections/hostile.md.tmpl:5:10: section hostile: function "toPrettyJson" not defined`,
		`{{ regexMatch "a" "b" }}`: `sections/hostile.md.tmpl:5:4: section hostile: function "regexMatch" not defined`,
		`{{ splitlist "," "a" }}`:  `sections/hostile.md.tmpl:5:4: section hostile: function "splitlist" not defined (did you mean splitList?)`,
	} {
		_, err := engine.New(hostilePack(t, body, ""))
		assert.EqualError(t, err, want, body)
	}
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
	assert.Regexp(t, `^sections/hostile.md.tmpl:5:\d+: section hostile: context deadline exceeded$`, err.Error(), "no instrumentation in the message")
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
		assert.Equal(t, engine.BoundPromptOutput, le.Bound)
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
	assert.Equal(t, engine.BoundSectionOutput, le.Bound)
}

// Control structures nested past the bound are refused before they are
// parsed (text/template's parser recurses once per level: 55,000 levels
// took it over a second, a few million overflow the stack), at the
// action that passes it, in sections and partials alike.
func TestDeeplyNestedTemplatesAreRefusedBeforeParsing(t *testing.T) {
	nested := func(open string, depth int) string {
		return strings.Repeat(open, depth) + strings.Repeat("{{end}}", depth)
	}
	_, err := engine.New(hostilePack(t, "x", "\n"+nested("{{- if 1}}", pack.MaxNesting+1)))
	assert.EqualError(t, err, "templates/hostile.tmpl:2:10001: control structures nest more than 1000 deep")
	_, err = engine.New(hostilePack(t, nested("{{range 1}}", 55_000)+"{{fail}}", ""))
	assert.EqualError(t, err, "sections/hostile.md.tmpl:5:11001: control structures nest more than 1000 deep")
	// else if and else with continue a structure; they do not open one.
	for _, open := range []string{"{{if 0}}{{else if 1}}", "{{with 0}}{{else with 1}}"} {
		_, err = engine.New(hostilePack(t, nested(open, pack.MaxNesting), ""))
		assert.NoError(t, err)
	}
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

// A pack is bounded whole as well: files each under MaxFileBytes still add
// up (a pack folder of hard links, or one linking to /usr), and its folders
// may list any number of entries. Either bound refuses the pack in one
// error, the same whichever file met it.
func TestPackOverTheWholeBoundsIsRefused(t *testing.T) {
	big := hostilePack(t, "x", "")
	partial := strings.Repeat("#", pack.MaxFileBytes)
	for i := range pack.MaxPackBytes/pack.MaxFileBytes + 1 {
		addFile(big, fmt.Sprintf("templates/big%02d.tmpl", i), partial)
	}
	_, err := engine.New(big)
	assert.EqualError(t, err, "the pack holds more than 16 MiB of files in all")

	many := hostilePack(t, "x", "")
	for i := range pack.MaxPackEntries {
		addFile(many, fmt.Sprintf("templates/notes/%04d.md", i), "")
	}
	_, err = engine.New(many)
	assert.EqualError(t, err, "the pack's folders hold more than 4096 entries in all")
}
