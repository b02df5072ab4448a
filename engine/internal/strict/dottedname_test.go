package strict

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A dotted key's parts are names, and a name may hold a dot.
func TestJSONKeyPosDottedName(t *testing.T) {
	line, col := JSONKeyPos([]byte(`{"m": {"a.b": 1}}`), "m.a.b")
	assert.Equal(t, [2]int{1, 8}, [2]int{line, col})
	line, col = JSONKeyPos([]byte(`{"a.b": 1, "a": {"b": 2}}`), "a.b")
	assert.Equal(t, [2]int{1, 2}, [2]int{line, col}, "the first in document order")
}
