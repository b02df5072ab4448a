package strict

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLocateKey(t *testing.T) {
	src := `top = 1
[a]
  b = 2
"quoted" = 3
[a.c]
d.e = 4
inline = { x = 1, y = 2 }

[[list]]
k = "first"
[[list]]
k = "second"
`
	cases := []struct {
		key       string
		line, col int
	}{
		{"top", 1, 1},
		{"a", 2, 2},
		{"a.b", 3, 3},
		{"a.quoted", 4, 1},
		{"a.c.d.e", 6, 1},
		{"a.c.inline.y", 7, 19},
		{"list.k", 10, 1},
		{"nope", 0, 0},
	}
	for _, tc := range cases {
		l, c := LocateKey(src, tc.key)
		assert.Equal(t, [2]int{tc.line, tc.col}, [2]int{l, c}, tc.key)
	}
	assert.Equal(t, []int{9, 11}, Headers(src, "list"))
	l, c := LocateKeyAfter(src, "list.k", 11)
	assert.Equal(t, [2]int{12, 1}, [2]int{l, c})
}

func TestTOMLRefusesUnknownKeysButNotOpenValues(t *testing.T) {
	type doc struct {
		Name   string         `toml:"name"`
		Schema map[string]any `toml:"schema"`
		Items  []struct {
			Open any `toml:"open"`
		} `toml:"items"`
	}
	var d doc
	require.NoError(t, TOML("name = \"x\"\nschema = { a = { b = 1 } }\n[[items]]\nopen = { deep = { deeper = true } }\n", &d))
	err := TOML("name = \"x\"\n[extra]\nv = 1\n", &d)
	var pe *PosError
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, &PosError{Line: 2, Col: 2, Key: "extra", Unknown: true, Msg: `unknown key "extra"`}, pe)
}

func TestJSONPositions(t *testing.T) {
	var v struct {
		A int `json:"a"`
	}
	err := JSON([]byte("{\n  \"a\": 1,\n  \"b\": 2\n}"), &v)
	assert.EqualError(t, err, `3:3: unknown key "b"`)
	var pe *PosError
	require.True(t, errors.As(err, &pe))
	assert.True(t, pe.Unknown)
	err = JSON([]byte(""), &v)
	assert.EqualError(t, err, "1:1: empty document")
	// A document that ends early is placed where it ends.
	err = JSON([]byte("{\n  \"a\":\n"), &v)
	assert.EqualError(t, err, "2:7: unexpected end of JSON input")
}

func TestScanTOML(t *testing.T) {
	src := `top = ["a", 'b'] # c = 1
text = """
[not.a.table]
not_a_key = 1
"""
[[layer]]
name = "system"
sections = [
  # a comment, "not an element"
  "x\"y", "p = q",
  ["nested", "one"], { k = "v" },
  3,
]
[[layer]]
  sections = []
[other]
sections = ["z"]
`
	doc := ScanTOML(src)
	assert.Equal(t, []Pos{{1, 8}, {1, 13}}, doc.Elements("", 0, "top"))
	assert.Equal(t, []Pos{{10, 3}, {10, 11}, {11, 3}, {11, 22}, {12, 3}}, doc.Elements("layer", 0, "sections"))
	assert.Empty(t, doc.Elements("layer", 1, "sections"))
	assert.Equal(t, []Pos{{17, 13}}, doc.Elements("other", 0, "sections"))

	p, ok := doc.Table("layer", 1)
	assert.True(t, ok)
	assert.Equal(t, Pos{14, 3}, p)
	_, ok = doc.Table("layer", 2)
	assert.False(t, ok)
	p, ok = doc.Key("layer", 1, "sections")
	assert.True(t, ok)
	assert.Equal(t, Pos{15, 3}, p)
	p, ok = doc.Value("layer", 0, "name")
	assert.True(t, ok)
	assert.Equal(t, Pos{7, 8}, p)
	_, ok = doc.Key("layer", 1, "name")
	assert.False(t, ok)

	// Nothing inside a multi-line string or array is a header or a key.
	assert.Equal(t, [2]int{0, 0}, pair(doc.Locate("not.a.table", 1)))
	assert.Equal(t, [2]int{0, 0}, pair(doc.Locate("not_a_key", 1)))
	assert.Equal(t, [2]int{0, 0}, pair(doc.Locate("layer.p", 1)))
	assert.Equal(t, [2]int{16, 2}, pair(doc.Locate("other", 1)))
	assert.Equal(t, []int{6, 14}, doc.Headers("layer"))
}

func pair(a, b int) [2]int { return [2]int{a, b} }

// A type mismatch is placed on its key, in the right [[entry]].
func TestTOMLTypeErrors(t *testing.T) {
	type doc struct {
		Modes []string `toml:"modes"`
		L     []struct {
			N int `toml:"n"`
		} `toml:"l"`
	}
	var d doc
	err := TOML("x = 1\nmodes = \"full\"\n", &d)
	assert.EqualError(t, err, `2:1: key "modes": incompatible types: TOML value has type string; destination has type slice`)
	err = TOML("[[l]]\nn = 1\n[[l]]\n  n = \"two\"\n", &d)
	assert.EqualError(t, err, `4:3: key "l.n": incompatible types: TOML value has type string; destination has type integer`)
}

func TestSplitTypeError(t *testing.T) {
	cases := []struct {
		text     string
		line     int
		key, msg string
	}{
		{`toml: line 3 (last key "a.b"): incompatible types`, 3, "a.b", "incompatible types"},
		{`toml: (last key "a"): bad`, 0, "a", "bad"},
		{`toml: line 7: bad`, 7, "", "bad"},
		{`toml: line 2 (last key "v.\"a b\".n"): bad: worse`, 2, `v."a b".n`, "bad: worse"},
		{`toml: cannot decode to type int`, 0, "", "cannot decode to type int"},
		{`toml: line x: odd`, 0, "", "line x: odd"},
		{`something else`, 0, "", "something else"},
	}
	for _, tc := range cases {
		line, key, msg := splitTypeError(tc.text)
		assert.Equal(t, tc.line, line, tc.text)
		assert.Equal(t, tc.key, key, tc.text)
		assert.Equal(t, tc.msg, msg, tc.text)
	}
}

// The walk matches fields as encoding/json does, embedded structs
// included, so it is what refuses an unknown key, at its position.
func TestJSONEmbeddedFields(t *testing.T) {
	type Inner struct {
		B int `json:"b"`
	}
	var v struct {
		Inner
		A int `json:"a"`
	}
	require.NoError(t, JSON([]byte(`{"a": 1, "b": 2}`), &v))
	assert.Equal(t, 2, v.B)
	err := JSON([]byte("{\"a\": 1,\n \"Inner\": {}}"), &v)
	assert.EqualError(t, err, `2:2: unknown key "Inner"`)
}

// The walk reads keys as JSON does, escapes included, and finds a repeat
// in an object of any size.
func TestJSONKeysExactly(t *testing.T) {
	var v struct {
		A int            `json:"a"`
		M map[string]int `json:"m"`
	}
	require.NoError(t, JSON([]byte(`{"\u0061": 1}`), &v))
	assert.Equal(t, 1, v.A)
	assert.EqualError(t, JSON([]byte(`{"a": 1, "\u0061": 2}`), &v), `1:10: key "a" is given twice`)

	var many strings.Builder
	many.WriteString(`{"m": {`)
	for i := range 40 {
		fmt.Fprintf(&many, `"k%d": %d, `, i, i)
	}
	many.WriteString(`"k33": 0}}`)
	err := JSON([]byte(many.String()), &v)
	assert.EqualError(t, err, fmt.Sprintf(`1:%d: key "m.k33" is given twice`, strings.LastIndex(many.String(), `"k33"`)+1))

	src := []byte("{\"m\": {\"x\": 1},\n \"a\": [1, {\"b\": 2}]}")
	line, col := JSONKeyPos(src, "m.x")
	assert.Equal(t, [2]int{1, 8}, [2]int{line, col})
	line, col = JSONKeyPos(src, "a.b")
	assert.Equal(t, [2]int{2, 12}, [2]int{line, col})
	line, _ = JSONKeyPos(src, "a.c")
	assert.Zero(t, line)
}

// An interface is filled by another decoder, which keeps numbers as
// written; the text is held to the same rules as for a struct.
func TestJSONIntoAnInterface(t *testing.T) {
	var v any
	require.NoError(t, JSON([]byte(`{"n": 9007199254740993, "f": 1.5e300}`), &v))
	assert.Equal(t, map[string]any{"n": json.Number("9007199254740993"), "f": json.Number("1.5e300")}, v)
	for src, want := range map[string]string{
		`{"n": 1} x`:        "1:10: unexpected data after the JSON value",
		`{"n": 1, "n": 2}`:  `1:10: key "n" is given twice`,
		"{\n  \"n\": [1,\n": "2:11: unexpected end of JSON input",
	} {
		assert.EqualError(t, JSON([]byte(src), &v), want, src)
	}
}

// BurntSushi/toml decodes a value that is not a table into a map as an
// empty map, without an error; TOML refuses it where it is written, as
// JSON refuses an array or a string where an object goes.
func TestTOMLRefusesAValueThatIsNotATableForAMap(t *testing.T) {
	type doc struct {
		Aliases map[string]string `toml:"aliases"`
		Tools   []struct {
			Name   string         `toml:"name"`
			Schema map[string]any `toml:"schema"`
		} `toml:"tools"`
		Plugins map[string]map[string]int `toml:"plugins"`
	}
	cases := []struct{ src, want string }{
		{"aliases = \"x\"\n", `1:1: key "aliases" must be a table`},
		{"aliases = [\"a\"]\n", `1:1: key "aliases" must be a table`},
		{"[[tools]]\nname = \"a\"\nschema = { type = \"object\" }\n[[tools]]\nname = \"b\"\nschema = 5\n", `6:1: key "tools.schema" must be a table`},
		{"[[tools]]\nschema = 5\n[[tools]]\nschema = {}\n", `2:1: key "tools.schema" must be a table`},
		{"tools = [{ name = \"a\", schema = true }]\n", `1:1: key "tools.schema" must be a table`},
		{"[plugins]\nx = 1.5\n", `2:1: key "plugins.x" must be a table`},
	}
	for _, tc := range cases {
		var d doc
		assert.EqualError(t, TOML(tc.src, &d), tc.want, tc.src)
	}
	var d doc
	require.NoError(t, TOML("aliases = { a = \"b\" }\n[plugins.x]\ny = 1\n[[tools]]\nschema = {}\n[[tools]]\n[tools.schema]\nz = 1\n", &d))
	assert.Equal(t, map[string]string{"a": "b"}, d.Aliases)
	assert.Equal(t, map[string]any{"z": int64(1)}, d.Tools[1].Schema)
}

// An error inside an array names the dotted key of the member that holds
// it (indices left out), at the byte that is wrong; a lone surrogate
// escape is refused, not turned into U+FFFD.
func TestJSONErrorsInsideArrays(t *testing.T) {
	var v struct {
		L []struct {
			Name string `json:"name"`
		} `json:"l"`
		Tags []string `json:"tags"`
	}
	for src, want := range map[string]string{
		`{"l": [{"name": "a"}, {"nmae": "b"}]}`: `1:24: unknown key "l.nmae" (did you mean name?)`,
		`{"tags": ["a", 2]}`:                    `1:16: key "tags": cannot use a JSON number here (want a string)`,
		`{"l": [{"name": "a", "name": "b"}]}`:   `1:22: key "l.name" is given twice`,
		`{"tags": ["\ud800"]}`:                  "1:12: invalid surrogate pair `\\ud800\"]}` in string",
	} {
		assert.EqualError(t, JSON([]byte(src), &v), want, src)
	}
}
