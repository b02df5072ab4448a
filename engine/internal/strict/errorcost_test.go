package strict

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Placing an error at the end of a document costs about what decoding it
// costs: the walks that name the key and find where it is written read
// only the values on its way, never building every member's dotted key
// (here 25 names of 2,500 bytes over 2,500 objects), nor count lines
// from the start for each member.
func TestJSONErrorPlacingIsLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"a":{`)
	long := strings.Repeat("n", 2500)
	for range 25 {
		b.WriteString(`"` + long + `":{`)
	}
	b.WriteString(`"arr":[`)
	for b.Len() < 128<<10 {
		b.WriteString(`{"a":0,"b":0,"c":0,"d":0,"e":0,"f":0,"g":0,"bogus":0},` + "\n")
	}
	b.WriteString(`{}]` + strings.Repeat("}", 26) + `,"bogus":1}`)
	src := []byte(b.String())
	allocated := func(f func()) uint64 {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		f()
		runtime.ReadMemStats(&m1)
		return m1.TotalAlloc - m0.TotalAlloc
	}

	var v struct {
		A any `json:"a"`
	}
	var err error
	assert.Less(t, allocated(func() { err = JSON(src, &v) }), 64*uint64(len(src)))
	var pe *PosError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "bogus", pe.Key)
	assert.Equal(t, strings.Count(b.String(), "\n")+1, pe.Line)

	var line int
	assert.Less(t, allocated(func() { line, _ = JSONKeyPos(src, "bogus") }), 64*uint64(len(src)))
	assert.Equal(t, pe.Line, line)
}

// A syntax error is reported wherever it is, before a key the type does
// not have that comes earlier.
func TestJSONSyntaxBeforeKeys(t *testing.T) {
	var v struct {
		B int `json:"b"`
	}
	assert.EqualError(t, JSON([]byte(`{"a": 1, "b": }`), &v), "1:15: invalid character '}' at start of value")
	assert.EqualError(t, JSON([]byte(`{"a": 1, "b": 2}`), &v), `1:2: unknown key "a"`)
}
