package pack

import (
	"fmt"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tier check records what each section reads of its dot: paths of at
// most two names, through variables, with and partials called with the
// dot; a dot used whole marks the section as reading everything.
func TestReadSets(t *testing.T) {
	fields := Fields{All: map[string]bool{"A": true, "B": true, "X": true, "Y": true, "Z": true}}
	for i, c := range []struct {
		body  string
		reads []string
		all   bool
	}{
		{`{{ .A.B.C }}{{ .X }}`, []string{"A.B", "X"}, false},
		{`{{ range .A }}{{ .Name }}{{ $.X.Y }}{{ end }}`, []string{"A", "X.Y"}, false},
		{`{{ with .A }}{{ .B }}{{ end }}`, []string{"A"}, false},
		{`{{ with $ }}{{ .Z }}{{ end }}`, []string{"Z"}, false},
		{`{{ $v := . }}{{ $v.Z }}`, []string{"Z"}, false},
		{`{{ template "p" . }}`, []string{"Y"}, false},
		{`{{ include "p" . }}{{ include "p" .X }}`, []string{"X", "Y"}, false},
		// A method called with constants only is read with them; a field
		// an if only tests is read for its truth ("?"); either narrows a
		// path of two names only.
		{`{{ if .A.Has "x" }}{{ end }}`, []string{`A.Has "x"`}, false},
		{`{{ with .A.Get "a b" "c" }}{{ .Content }}{{ end }}`, []string{`A.Get "a b" "c"`}, false},
		{`{{ $f := .A.Get "x" }}{{ $f.Content }}`, []string{`A.Get "x"`}, false},
		{`{{ if .A.B }}{{ end }}{{ if .X }}{{ end }}{{ if .Y.B.C }}{{ end }}`, []string{"A.B?", "X", "Y.B"}, false},
		{`{{ if .A.B }}{{ end }}{{ with .A.B }}{{ end }}`, []string{"A.B", "A.B?"}, false},
		{`{{ if not .A.B }}{{ end }}{{ if $x := .X.Y }}{{ end }}`, []string{"A.B", "X.Y"}, false},
		{`{{ .A.Get .X }}{{ "x" | .Y.Get }}{{ "x" | .Z.Get "y" }}{{ .B.Get "x" | print }}`, []string{"A.Get", "B.Get \"x\"", "X", "Y.Get", "Z.Get"}, false},
		{`{{ . }}`, nil, true},
		{`{{ toJson . }}`, nil, true},
		{`{{ $v := . }}{{ toJson $v }}`, nil, true},
		{`{{ range .A }}{{ toJson $ }}{{ end }}`, []string{"A"}, true},
		{`{{ $n := "p" }}{{ include $n . }}`, nil, true},
		{`{{ range .A }}{{ toJson . }}{{ end }}`, []string{"A"}, false}, // dot is an element there
		// A variable ever bound to the view may hold it at any use:
		// shadowed in a block, rebound by with or range, reassigned in a
		// branch or a loop, or bound again inside a partial.
		{`{{ $v := . }}{{ with .A }}{{ $v := . }}{{ end }}{{ $v.X }}`, []string{"A", "X"}, false},
		{`{{ $v := . }}{{ with $v := .A }}{{ end }}{{ $v.X }}`, []string{"A", "X"}, false},
		{`{{ $v := . }}{{ range $v := .A }}{{ end }}{{ $v.X }}`, []string{"A", "X"}, false},
		{`{{ $v := . }}{{ range .A }}{{ $v := . }}{{ else }}{{ end }}{{ $v.X }}`, []string{"A", "X"}, false},
		{`{{ $v := . }}{{ if false }}{{ $v = 1 }}{{ end }}{{ $v.X }}`, []string{"X"}, false},
		{`{{ $v := .A }}{{ range $i, $e := .A }}{{ if $i }}{{ $v.X }}{{ end }}{{ $v = $ }}{{ end }}`, []string{"A", "X"}, false},
		{`{{ $v := . }}{{ template "q" . }}{{ $v.X }}`, []string{"X", "Z"}, false},
		// Where such a variable names no field of the view it held
		// something else: no error, and nothing read.
		{`{{ $v := .A }}{{ with .B }}{{ $v := $ }}{{ end }}{{ $v.ID }}`, []string{"A", "B"}, false},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			master := template.New("").Funcs(template.FuncMap{"include": func(string, any) string { return "" }, "toJson": fmt.Sprint})
			template.Must(master.New("p").Parse(`{{ .Y }}`))
			template.Must(master.New("q").Parse(`{{ $v := 1 }}{{ .Z }}`))
			template.Must(master.New("s.md.tmpl").Parse(c.body))
			sec := &Section{ID: "s", File: "s.md.tmpl", Tier: TierDynamic}
			require.Empty(t, checkTiers(master, &Pack{Sections: map[string]*Section{"s": sec}}, fields))
			assert.Equal(t, c.reads, sec.Reads, c.body)
			assert.Equal(t, c.all, sec.ReadsAll, c.body)
		})
	}
}
