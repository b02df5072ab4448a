package engine

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

func TestTidy(t *testing.T) {
	cases := []struct {
		in        string
		protected []string
		want      string
	}{
		{"  a\n\nb  ", nil, "a\n\nb"},
		{"a\n\n\n\nb\n\n\nc", nil, "a\n\nb\n\nc"},
		{"head\n\n\n\nfile\n\n\n\nbody\n\n\n\ntail", []string{"file\n\n\n\nbody"}, "head\n\nfile\n\n\n\nbody\n\ntail"},
		{"x\n\n\ny\n\n\nx\n\n\ny", []string{"x\n\n\ny"}, "x\n\n\ny\n\nx\n\n\ny"},
		// Overlapping injected texts: both stay whole, whichever is listed first.
		{"a\n\n\nb\n\n\nc\n\n\nd", []string{"a\n\n\nb\n\n\nc", "c\n\n\nd"}, "a\n\n\nb\n\n\nc\n\n\nd"},
		{"a\n\n\nb\n\n\nc\n\n\nd", []string{"c\n\n\nd", "a\n\n\nb\n\n\nc"}, "a\n\n\nb\n\n\nc\n\n\nd"},
		{"a\n\n\nb\n\n\nc\n\n\nd", []string{"b\n\n\nc"}, "a\n\nb\n\n\nc\n\nd"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, tidy(tc.in, tc.protected), "%q", tc.in)
	}
}

func TestMergeContributions(t *testing.T) {
	m := mergeContributions([]Contribution{
		{StablePrefix: "A  \r\nB\n\n", DynamicSuffix: "", SectionOverrides: map[string]string{"tool_call_style": "one", "execution_bias": "x"}},
		{StablePrefix: "A\nB", DynamicSuffix: "  s1 ", SectionOverrides: map[string]string{"tool_call_style": "two", "execution_bias": "  "}},
		{StablePrefix: "C\n\n\n\nD", DynamicSuffix: "s2"},
	})
	assert.Equal(t, "A\nB\n\nC\n\nD", m.stablePrefix, "blank-line runs fold like template output")
	assert.Equal(t, "s1\n\ns2", m.dynamicSuffix)
	assert.Equal(t, map[string]string{"tool_call_style": "two", "execution_bias": "x"}, m.overrides, "later wins; an empty override is absent, not a deletion")
}

func TestAssembleOffsets(t *testing.T) {
	infos := []RenderedSection{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	l := assemble("system", "<!-- B -->", []string{"one", "two"}, []string{"three"}, infos, "")
	assert.Equal(t, "one\n\ntwo\n\n<!-- B -->\n\nthree\n", l.Text)
	for _, s := range l.Sections {
		assert.Equal(t, map[string]string{"a": "one", "b": "two", "c": "three"}[s.ID], l.Text[s.Start:s.End])
	}
	assert.Equal(t, "one\n\ntwo\n\nthree\n", l.TextWithoutBoundary())
	empty := assemble("x", "<!-- B -->", nil, nil, nil, "")
	assert.Equal(t, "<!-- B -->\n", empty.Text)
}
