package funcs

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRequired(t *testing.T) {
	var nilPtr *struct{}
	var nilMap map[string]any
	tests := []struct {
		name    string
		value   any
		missing bool
	}{
		{"nil", nil, true},
		{"empty string", "", true},
		{"white space", " \t\n", true},
		{"nil pointer", nilPtr, true},
		{"nil map", nilMap, true},
		{"text", "Ada", false},
		{"zero int", 0, false},
		{"false", false, false},
		{"empty non-nil slice", []string{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := execute(t, `{{ required "X is required" .X }}`, map[string]any{"X": tt.value})
			if !tt.missing {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Empty(t, out)
			re, ok := errors.AsType[*RequiredError](err)
			require.True(t, ok, "want *RequiredError in %v", err)
			assert.Equal(t, "X is required", re.Message)
			assert.Contains(t, err.Error(), "X is required")
		})
	}
}

func TestRequiredReturnsValue(t *testing.T) {
	out, err := execute(t, `{{ .X | required "x" | upper }}`, map[string]any{"X": "ada"})
	require.NoError(t, err)
	assert.Equal(t, "ADA", out)
}

func TestFail(t *testing.T) {
	_, err := execute(t, `before {{ fail "stop here" }}`, nil)
	require.Error(t, err)
	fe, ok := errors.AsType[*FailError](err)
	require.True(t, ok, "want *FailError in %v", err)
	assert.Equal(t, "stop here", fe.Message)
	assert.Contains(t, err.Error(), "test:1:")
}

func TestTypedErrorsSurviveInclude(t *testing.T) {
	_, err := execute(t, `{{ define "p" }}{{ required "name missing" .Name }}{{ end }}{{ include "p" . }}`,
		map[string]any{"Name": ""})
	_, ok := errors.AsType[*RequiredError](err)
	assert.True(t, ok, "want *RequiredError in %v", err)
}

func TestEmptyMessages(t *testing.T) {
	assert.Equal(t, "required value is missing", (&RequiredError{}).Error())
	assert.Equal(t, "template failed", (&FailError{}).Error())
}

// fn is the function name of the map New(nil) makes.
func fn[F any](name string) F { return New(nil)[name].(F) }

var (
	indent, nindent = fn[func(int, string) (string, error)]("indent"), fn[func(int, string) (string, error)]("nindent")
	tokens          = fn[func(any) (int, error)]("tokens")
	sortedKeys      = fn[func(...map[string]any) []string]("keys")
	valuesByKey     = fn[func(map[string]any) []any]("values")
	sortAlpha       = fn[func(any) []string]("sortAlpha")
)

func TestIndent(t *testing.T) {
	tests := []struct {
		name  string
		width int
		in    string
		want  string
	}{
		{"empty", 2, "", ""},
		{"one line", 2, "a", "  a"},
		{"zero width", 0, "a\nb", "a\nb"},
		{"trailing newline", 2, "a\n", "  a\n"},
		{"empty line stays empty", 2, "a\n\nb", "  a\n\n  b"},
		{"blank line becomes empty", 4, "a\n \t\nb", "    a\n\n    b"},
		{"keeps inner indentation", 2, "a\n  b", "  a\n    b"},
		{"only newlines", 3, "\n\n", "\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := indent(tt.width, tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			for _, line := range strings.Split(got, "\n") {
				assert.Equal(t, strings.TrimRight(line, " \t"), line, "trailing white space in %q", got)
			}
			n, err := nindent(tt.width, tt.in)
			require.NoError(t, err)
			assert.Equal(t, "\n"+tt.want, n)
		})
	}
}

func TestIndentWidthOutOfRange(t *testing.T) {
	for _, w := range []int{-1, maxIndent + 1} {
		_, err := indent(w, "a")
		assert.ErrorContains(t, err, "out of range")
		_, err = nindent(w, "a")
		assert.Error(t, err)
	}
	_, err := execute(t, `{{ indent -2 "a" }}`, nil)
	assert.ErrorContains(t, err, "indent width -2 out of range")
}

func TestSHA256(t *testing.T) {
	assert.Equal(t, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", sha256Hex(""))
	out, err := execute(t, `{{ sha256 "abc" }}`, nil)
	require.NoError(t, err)
	assert.Equal(t, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", out)
}

func TestTokens(t *testing.T) {
	tests := []struct {
		in   any
		want int
	}{
		{"", 0},
		{"a", 1},
		{"abcd", 1},
		{"abcde", 2},
		{"äöüß", 1},                 // 4 code points, 8 bytes
		{"日本語の文章", 2},               // 6 code points, 18 bytes
		{"\xff\xfe\xfd\xfc\xfb", 2}, // each invalid byte is one code point
		{0, 0},
		{1, 1},
		{4, 1},
		{5, 2},
	}
	for _, tt := range tests {
		got, err := tokens(tt.in)
		require.NoError(t, err, "%#v", tt.in)
		assert.Equal(t, tt.want, got, "%#v", tt.in)
	}
	for _, bad := range []any{-1, nil, 1.5, []string{"a"}, int64(8)} {
		_, err := tokens(bad)
		assert.Error(t, err, "%#v", bad)
	}
}

func TestTokensViaTemplate(t *testing.T) {
	out, err := execute(t, `{{ tokens "hello" }} {{ tokens (len "hello") }}`, nil)
	require.NoError(t, err)
	assert.Equal(t, "2 2", out)
}

func TestKeysValuesSorted(t *testing.T) {
	d := map[string]any{"c": 3, "a": 1, "b": 2, "e": 5, "d": 4}
	for range 20 { // random map order would show up within a few tries
		assert.Equal(t, []string{"a", "b", "c", "d", "e"}, sortedKeys(d))
		assert.Equal(t, []any{1, 2, 3, 4, 5}, valuesByKey(d))
	}
	assert.Equal(t, []string{"a", "a", "b"}, sortedKeys(map[string]any{"b": 1, "a": 1}, map[string]any{"a": 2}))
	assert.Equal(t, []string{}, sortedKeys())
	assert.Equal(t, []any{}, valuesByKey(nil))
}

func TestSortAlpha(t *testing.T) {
	shared := []string{"pear", "apple", "fig"}
	assert.Equal(t, []string{"apple", "fig", "pear"}, sortAlpha(shared))
	assert.Equal(t, []string{"pear", "apple", "fig"}, shared, "the caller's slice must not be sorted in place")

	assert.Equal(t, []string{"1", "2", "b"}, sortAlpha([]any{"b", nil, 2, 1}))
	assert.Equal(t, []string{"a", "b"}, sortAlpha([2]string{"b", "a"}))
	assert.Equal(t, []string{"7"}, sortAlpha(7))
	assert.Equal(t, []string{}, sortAlpha(nil))
	assert.Equal(t, []string{"boom", "x"}, sortAlpha([]any{errors.New("boom"), []byte("x")}))
}

// Bad arguments come back as errors naming the function, not as output.
func TestBadArgumentsAreErrors(t *testing.T) {
	for src, want := range map[string]string{
		`{{ append 1 2 }}`:     "append: want a list, got int",
		`{{ has 1 2 }}`:        "has: want a list, got int",
		`{{ toJson .F }}`:      "json: unsupported type",
		`{{ indent 300 "a" }}`: "indent width 300 out of range",
	} {
		_, err := execute(t, src, map[string]any{"F": func() {}})
		assert.ErrorContains(t, err, want, src)
	}
}
