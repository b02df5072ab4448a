// Package echo shows text that came from a user back to a person: in an
// error message, or on a page meant for reading.
package echo

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
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

// Visible escapes the characters a reader cannot see or that reorder what
// they see around them (bidirectional controls, zero-width characters and
// every other format character), and the control characters but newline
// and tab, which a terminal acts on (an escape sequence, a carriage
// return), as \u escapes such as \u202e, so a name shows what it holds.
// Other text is returned as it is.
func Visible(s string) string {
	if !strings.ContainsFunc(s, invisible) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if invisible(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// invisible covers U+202A–U+202E, U+2066–U+2069, U+200B–U+200F and U+FEFF,
// which are all format characters (Cf), and the controls (Cc) but \n and \t.
func invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.IsControl(r) && r != '\n' && r != '\t'
}

// OneLine refuses v, the value of name, when it holds what would break
// the one line the prompt prints it on: a control character, or a line
// or paragraph separator.
func OneLine(name, v string) error {
	if i := strings.IndexFunc(v, BreaksLine); i >= 0 {
		r, _ := utf8.DecodeRuneInString(v[i:])
		return fmt.Errorf("%s = %s holds %U; the prompt prints it on one line, so it takes no line breaks or control characters", name, Quote(v), r)
	}
	return nil
}

// BreaksLine reports whether r would break a line: see OneLine.
func BreaksLine(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }
