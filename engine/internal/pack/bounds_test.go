package pack

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"

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
	} {
		run := func(instrumented bool) string {
			set := template.Must(template.New("x").Funcs(funcs.New()).Parse(src))
			var buf bytes.Buffer
			m := funcs.NewMeter(funcs.Limits{}, &buf)
			if instrumented {
				instrument(set)
				set.Funcs(m.Funcs(funcs.New()))
			}
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
