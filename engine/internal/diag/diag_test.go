package diag

import (
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The stdlib formats parseTemplateError accepts, produced for real so a
// Go release that changes them fails here first.
func TestParseTemplateErrorOnRealMessages(t *testing.T) {
	parseErr := func(text string) string {
		_, err := template.New("a.tmpl").Parse(text)
		require.Error(t, err)
		return err.Error()
	}
	execErr := func(text string, data any) string {
		tt := template.Must(template.New("a.tmpl").Option("missingkey=error").Funcs(template.FuncMap{
			"boom": func() (string, error) { return "", assert.AnError },
		}).Parse(text))
		err := tt.Execute(&strings.Builder{}, data)
		require.Error(t, err)
		return err.Error()
	}
	cases := []struct {
		msg  string
		want templateLocation
	}{
		{parseErr("x\n{{ nope }}"), templateLocation{"a.tmpl", 2, 0, `function "nope" not defined`}},
		{parseErr("{{ if }}"), templateLocation{"a.tmpl", 1, 0, "missing value for if"}},
		{execErr("ab\n  {{ .Missing }}", map[string]any{}), templateLocation{"a.tmpl", 2, 6, `map has no entry for key "Missing"`}},
		{execErr("{{ boom }}", nil), templateLocation{"a.tmpl", 1, 4, "error calling boom: " + assert.AnError.Error()}},
		{execErr("{{ .X.Y }}", struct{ X struct{} }{}), templateLocation{"a.tmpl", 1, 6, "can't evaluate field Y in type struct {}"}},
	}
	for _, tc := range cases {
		got, ok := parseTemplateError(tc.msg)
		require.True(t, ok, tc.msg)
		assert.Equal(t, tc.want, got, tc.msg)
	}
	_, ok := parseTemplateError("something else")
	assert.False(t, ok)
}

func TestErrorIsOneLine(t *testing.T) {
	e := &Error{File: "sections/a.md.tmpl", Line: 3, Col: 7, Section: "a", Err: assert.AnError}
	assert.Equal(t, "sections/a.md.tmpl:3:7: section a: "+assert.AnError.Error(), e.Error())
	e.Err = &TierError{Field: "Date"}
	assert.NotContains(t, e.Error(), "\n")
	list := ErrorList{e, e, e}
	assert.Contains(t, list.Error(), "(and 2 more)")
}

func TestUndefinedFunctionOnRealMessages(t *testing.T) {
	_, err := template.New("x").Parse("a\n{{ repat 3 }}")
	require.Error(t, err)
	e := Template(PhaseParse, "x", "", err)
	name, ok := UndefinedFunction(e)
	assert.True(t, ok, e.Error())
	assert.Equal(t, "repat", name)

	_, err = template.New("x").Parse("{{ .A }")
	require.Error(t, err)
	_, ok = UndefinedFunction(Template(PhaseParse, "x", "", err))
	assert.False(t, ok)
}
