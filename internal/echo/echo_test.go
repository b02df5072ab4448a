package echo

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestQuote(t *testing.T) {
	assert.Equal(t, `"short\n"`, Quote("short\n"))
	assert.Equal(t, `"`+strings.Repeat("x", 200)+`"`, Quote(strings.Repeat("x", 200)))
	assert.Equal(t, `"`+strings.Repeat("x", 200)+`"… (204800 bytes)`, Quote(strings.Repeat("x", 200<<10)))
	// A cut never splits a code point: 199 bytes of x, then é (2 bytes).
	assert.Equal(t, `"`+strings.Repeat("x", 199)+`"… (203 bytes)`, Quote(strings.Repeat("x", 199)+"éé"))
}
