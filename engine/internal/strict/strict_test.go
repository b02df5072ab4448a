package strict

import (
	"errors"
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
	assert.Equal(t, &PosError{Line: 2, Col: 2, Key: "extra", Msg: `unknown key "extra"`}, pe)
}

func TestJSONPositions(t *testing.T) {
	var v struct {
		A int `json:"a"`
	}
	err := JSON([]byte("{\n  \"a\": 1,\n  \"b\": 2\n}"), &v)
	assert.EqualError(t, err, `3:3: unknown key "b"`)
	err = JSON([]byte(""), &v)
	assert.EqualError(t, err, "1:1: empty document")
}
