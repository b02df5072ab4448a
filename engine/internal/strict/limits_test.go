package strict

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A syntax error inside an array used to send the key walk round forever:
// the decoder does not consume the bad token.
func TestJSONSyntaxErrorInArrayEnds(t *testing.T) {
	for _, src := range []string{
		`{"owners":["a" "b"]}`,
		`{"a":[[1 2]]}`,
		`{"a":{"b" 1}}`,
		`[1 2]`,
	} {
		var v any
		err := JSON([]byte(src), &v)
		var pe *PosError
		require.ErrorAs(t, err, &pe, src)
		assert.Positive(t, pe.Col, src)
	}
	var v struct{ Owners []string }
	err := JSON([]byte(`{"Owners":["a" "b"]}`), &v)
	assert.EqualError(t, err, `1:16: invalid character '"' after array element (expecting ',' or ']')`)
}

func TestDepthLimit(t *testing.T) {
	nest := func(open, close string, n int) string {
		return strings.Repeat(open, n) + strings.Repeat(close, n)
	}
	objects := func(open string, n int) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat("}", n)
	}
	type doc struct {
		name, src string
		toml      bool
	}
	within := []doc{
		{"json arrays", nest("[", "]", MaxDepth), false},
		{"json objects", `{"a":` + objects(`{"b":`, MaxDepth-1) + `}`, false},
		{"json brackets in strings", `{"a":"` + strings.Repeat("[{", 200) + `"}`, false},
		{"toml arrays", "a = " + nest("[", "]", MaxDepth-1), true},
		{"toml inline tables", "a = " + objects("{b = ", MaxDepth-1), true},
		{"toml dotted key", strings.Repeat("a.", MaxDepth-1) + "a = 1", true},
		{"toml header", "[" + strings.Repeat("a.", MaxDepth-1) + "a]\nx = 1", true},
		{"toml strings and comments", "a = \"" + strings.Repeat("[.", 100) + "\"\n" +
			"b = '" + strings.Repeat("{.", 100) + "'\n" +
			"c = \"\"\"\n" + strings.Repeat("[.", 100) + "\\\"\"\"\n" + strings.Repeat("[.", 100) + "\"\"\"\n" +
			"d = '''\n" + strings.Repeat("{.", 100) + "'''\n" +
			"# " + strings.Repeat("[.", 100) + "\n", true},
		{"toml multi-line strings ending in extra quotes", "a = \"\"\"x\"\"\"\"\nb = \"" + strings.Repeat("[", 40) + "\"\n" +
			"s = \"\"\"\"This,\" she said, \"is just a pointless statement.\"\"\"\"\n" +
			"l = '''x'''''\nc = '" + strings.Repeat("{", 40) + "'", true},
		{"toml floats after an inline table", "a = [{}, " + strings.Repeat("1.5, ", 100) + "2.5]", true},
	}
	decode := func(d doc) error {
		var v any
		if d.toml {
			return TOML(d.src, &v)
		}
		return JSON([]byte(d.src), &v)
	}
	for _, d := range within {
		assert.NoError(t, decode(d), d.name)
	}

	const tomlNest = "tables, arrays and dotted keys nest too deeply"
	const jsonNest = "arrays and objects nest too deeply"
	over := []struct {
		doc
		line, col int
		msg       string
	}{
		{doc{"json arrays", nest("[", "]", MaxDepth+1), false}, 1, MaxDepth + 1, jsonNest},
		{doc{"json objects", objects(`{"b":`, MaxDepth+1), false}, 1, 5*MaxDepth + 1, jsonNest},
		// a is at depth 1 and each bracket opens one more level.
		{doc{"toml arrays", "a = " + nest("[", "]", MaxDepth), true}, 1, 4 + MaxDepth, tomlNest},
		{doc{"toml inline tables", "a = " + objects("{b = ", MaxDepth), true}, 1, 5 * MaxDepth, tomlNest},
		{doc{"toml dotted key", "x = 1\n" + strings.Repeat("a.", MaxDepth) + "a = 1", true}, 2, 2 * MaxDepth, tomlNest},
		{doc{"toml header", "[" + strings.Repeat("a.", MaxDepth) + "a]", true}, 1, 2*MaxDepth + 1, tomlNest},
		{doc{"toml inline key", "a = {" + strings.Repeat("b.", MaxDepth) + "b = 1}", true}, 1, 2*MaxDepth + 3, tomlNest},
		// A string ending in extra quotes once hid the rest of the
		// document from the scan.
		{doc{"toml key after extra quotes", "a = \"\"\"x\"\"\"\"\n" + strings.Repeat("b.", MaxDepth) + "b = 1", true}, 2, 2 * MaxDepth, tomlNest},
		// The header's parts count towards every key below it.
		{doc{"toml key under a deep header", "[" + strings.Repeat("a.", MaxDepth-2) + "a]\nb.c = 1", true}, 2, 2, tomlNest},
		{doc{"toml array of tables", "[[" + strings.Repeat("a.", MaxDepth-2) + "a]]\nb = [1]", true}, 2, 5, tomlNest},
	}
	for _, d := range over {
		assert.EqualError(t, decode(d.doc), fmt.Sprintf("%d:%d: %s (limit %d)", d.line, d.col, d.msg, MaxDepth), d.name)
	}
}

// Two million levels used to overflow the stack of either decoder and
// kill the process; now the size limit refuses them, and as many levels
// as fit within it are refused by the depth limit.
func TestMillionsOfLevelsAreRefused(t *testing.T) {
	var v any
	var pe *PosError
	require.ErrorAs(t, JSON([]byte(strings.Repeat("[", 2_000_000)), &v), &pe)
	assert.Equal(t, "document is larger than 1048576 bytes", pe.Msg)

	require.ErrorAs(t, JSON([]byte(strings.Repeat("[", 1_000_000)), &v), &pe)
	assert.Equal(t, [2]int{1, MaxDepth + 1}, [2]int{pe.Line, pe.Col})
	require.ErrorAs(t, TOML("a = "+strings.Repeat("[", 200_000), &v), &pe)
	assert.Equal(t, [2]int{1, MaxDepth + 4}, [2]int{pe.Line, pe.Col})
	require.ErrorAs(t, TOML(strings.Repeat("a.", 100_000)+"a = 1", &v), &pe)
	assert.Equal(t, [2]int{1, 2 * MaxDepth}, [2]int{pe.Line, pe.Col})
}

func TestSizeLimit(t *testing.T) {
	var v any
	var pe *PosError
	big := "a = \"" + strings.Repeat("x", MaxTOMLBytes) + "\""
	require.ErrorAs(t, TOML(big, &v), &pe)
	assert.Equal(t, "document is larger than 262144 bytes", pe.Msg)
	assert.Equal(t, [2]int{1, MaxTOMLBytes + 1}, [2]int{pe.Line, pe.Col})
	require.NoError(t, TOML(big[:MaxTOMLBytes-1]+"\"", &v))

	bigJSON := `"` + strings.Repeat("x", MaxBytes) + `"`
	v = nil
	require.ErrorAs(t, JSON([]byte(bigJSON), &v), &pe)
	assert.Equal(t, "document is larger than 1048576 bytes", pe.Msg)
	require.NoError(t, JSON([]byte(bigJSON[:MaxBytes-1]+`"`), &v))
}
func TestEncoding(t *testing.T) {
	cases := []struct {
		name string
		src  []byte
		want string
	}{
		{"UTF-8 BOM", []byte("\xEF\xBB\xBFa = 1"), "1:1: document starts with a byte-order mark; save it as UTF-8 without one"},
		{"UTF-16 BE BOM", []byte("\xFE\xFF\x00a"), "1:1: document starts with a byte-order mark; save it as UTF-8 without one"},
		{"UTF-16 LE BOM", []byte("\xFF\xFEa\x00"), "1:1: document starts with a byte-order mark; save it as UTF-8 without one"},
		{"Latin-1", []byte("a = 1\nb = \"caf\xE9\""), "2:9: invalid UTF-8 (byte 0xE9); documents must be UTF-8"},
	}
	for _, tc := range cases {
		var v any
		assert.EqualError(t, TOML(string(tc.src), &v), tc.want, tc.name)
		assert.EqualError(t, JSON(tc.src, &v), tc.want, tc.name)
	}
	var v any
	require.NoError(t, TOML("a = \"café, 日本\"", &v))
	require.NoError(t, JSON([]byte(`{"a":"café"}`), &v))
}
