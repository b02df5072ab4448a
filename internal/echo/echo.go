// Package echo shows text that came from a user back to a person: in an
// error message, or on a page meant for reading.
package echo

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxQuoted is how many bytes of a value Quote shows.
const MaxQuoted = 200

// Quote is strconv.Quote for a value an error echoes: one of any length
// is cut to its first MaxQuoted bytes (at a code point) and its size
// noted, so a 200 KB mistake costs a line, not a screen.
func Quote(s string) string {
	if len(s) <= MaxQuoted {
		return strconv.Quote(s)
	}
	cut := MaxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}
