package funcs

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bind parses src and binds include with the given limit, as the engine does per render.
func bind(t *testing.T, src string, limit int) *template.Template {
	t.Helper()
	tmpl, err := template.New("main").Funcs(New()).Parse(src)
	require.NoError(t, err)
	inc := NewIncluder(tmpl, limit)
	tmpl.Funcs(template.FuncMap{"include": inc.Include})
	return tmpl
}

func run(tmpl *template.Template, data any) (string, error) {
	var b strings.Builder
	err := tmpl.Execute(&b, data)
	return b.String(), err
}

func TestIncludePipesOutput(t *testing.T) {
	tmpl := bind(t, `{{ define "item" }}- {{ . }}
{{ end }}{{ range . }}{{ include "item" . }}{{ end }}{{ include "item" "x" | indent 2 }}`, 0)
	out, err := run(tmpl, []string{"a", "b"})
	require.NoError(t, err)
	assert.Equal(t, "- a\n- b\n  - x\n", out)
}

func TestIncludeSelfRecursionHitsLimit(t *testing.T) {
	tmpl := bind(t, `{{ define "loop" }}{{ include "loop" . }}{{ end }}{{ include "loop" . }}`, 0)
	_, err := run(tmpl, nil)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrIncludeDepth)
	msg := err.Error()
	assert.Contains(t, msg, "include depth limit exceeded (limit 32): loop > loop")
	assert.Equal(t, 1, strings.Count(msg, "error calling include"), "the depth error should not nest once per level: %s", msg)
	assert.Equal(t, IncludeDepth+1, strings.Count(msg, "loop >")+1, "the chain lists every level: %s", msg)
}

func TestIncludeLimitIsExact(t *testing.T) {
	src := `{{ define "a" }}a{{ include "b" . }}{{ end }}` +
		`{{ define "b" }}b{{ include "c" . }}{{ end }}` +
		`{{ define "c" }}c{{ if . }}{{ include "d" . }}{{ end }}{{ end }}` +
		`{{ define "d" }}d{{ end }}` +
		`{{ include "a" . }}`
	tmpl := bind(t, src, 3)

	out, err := run(tmpl, false) // a > b > c: three levels
	require.NoError(t, err)
	assert.Equal(t, "abc", out)

	_, err = run(tmpl, true) // a > b > c > d: four levels
	require.ErrorIs(t, err, ErrIncludeDepth)
	assert.Contains(t, err.Error(), "a > b > c > d")
}

func TestIncludeCounterResetsAfterError(t *testing.T) {
	src := `{{ define "p" }}{{ if . }}{{ fail "boom" }}{{ end }}ok{{ end }}` +
		`{{ define "deep" }}{{ include "deeper" . }}{{ end }}{{ define "deeper" }}{{ include "p" . }}{{ end }}` +
		`{{ include "deep" . }}`
	tmpl := bind(t, src, 3)
	for range 5 { // a leaked level per failed render would exhaust the limit of 3
		_, err := run(tmpl, true)
		_, ok := errors.AsType[*FailError](err)
		require.True(t, ok, "want *FailError in %v", err)
	}
	out, err := run(tmpl, false)
	require.NoError(t, err)
	assert.Equal(t, "ok", out)

	loop := bind(t, `{{ define "loop" }}{{ include "loop" . }}{{ end }}{{ if . }}{{ include "loop" . }}{{ else }}{{ include "one" . }}{{ end }}{{ define "one" }}1{{ end }}`, 0)
	_, err = run(loop, true)
	require.ErrorIs(t, err, ErrIncludeDepth)
	out, err = run(loop, false)
	require.NoError(t, err)
	assert.Equal(t, "1", out)
}

func TestIncludeUnknownTemplate(t *testing.T) {
	tmpl := bind(t, `{{ include "nope" . }}`, 0)
	_, err := run(tmpl, nil)
	require.ErrorIs(t, err, ErrNoTemplate)
	assert.Contains(t, err.Error(), `template "nope": no such template`)

	_, err = NewIncluder(nil, 0).Include("x", nil)
	assert.ErrorIs(t, err, ErrNoTemplate)
}

func TestIncludeUnboundFails(t *testing.T) {
	tmpl, err := template.New("main").Funcs(New()).Parse(`{{ define "p" }}x{{ end }}{{ include "p" . }}`)
	require.NoError(t, err, "templates using include must parse before include is bound")
	_, err = run(tmpl, nil)
	assert.ErrorIs(t, err, errIncludeUnbound)
}

// The engine's pattern: one compiled master, one clone and one Includer per render.
func TestIncludePerCloneConcurrent(t *testing.T) {
	master, err := template.New("main").Funcs(New()).Parse(
		`{{ define "p" }}[{{ . }}]{{ end }}{{ include "p" . }}{{ include "p" . }}`)
	require.NoError(t, err)

	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			clone, err := master.Clone()
			if !assert.NoError(t, err) {
				return
			}
			inc := NewIncluder(clone, IncludeDepth)
			clone.Funcs(template.FuncMap{"include": inc.Include})
			for range 50 {
				out, err := run(clone, i)
				assert.NoError(t, err)
				assert.Equal(t, strings.Repeat("["+string(rune('0'+i))+"]", 2), out)
			}
		})
	}
	wg.Wait()
}
