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

func TestVisible(t *testing.T) {
	for _, r := range "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200c\u200d\u200e\u200f\ufeff\u00ad\u2060" {
		assert.NotContains(t, Visible("a"+string(r)+"b"), string(r), "%U", r)
	}
	assert.Equal(t, `evil\u202egnp.md`, Visible("evil\u202egnp.md"))
	assert.Equal(t, "plain é 中文 ✓", Visible("plain é 中文 ✓"), "visible text is left alone")
	// A control character in a name (a skill's folder, say) would move the
	// cursor, recolour or clear the terminal the report is read on, or hide
	// what came before it; lines and tabs are the report's own.
	assert.Equal(t, `ev\u001b[2Jil\u000dgood\u0007\u0008\u007f\u0085`, Visible("ev\x1b[2Jil\rgood\a\b\x7f\u0085"))
	assert.Equal(t, "a\tb\nc", Visible("a\tb\nc"))
}
