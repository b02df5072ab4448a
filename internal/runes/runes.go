// Package runes cuts text at code point boundaries and counts code
// points, strings and byte slices alike.
//
// First and Last take any text. Invalid UTF-8 counts as utf8.RuneCount
// counts it, one code point per byte that starts no valid encoding, so
// their cuts agree with a range loop (First) and with utf8.DecodeLastRune
// (Last), and the length in code points of what they return, as
// utf8.RuneCount gives it, is never more than n.
//
// FirstValid, LastValid and CountValid take only valid UTF-8, which they
// do not check: they count the bytes that start a code point without
// decoding, half the work or less on text that is not all ASCII. On
// valid UTF-8 they cut where First and Last do, and count as Count.
package runes

import (
	"math/bits"
	"unicode/utf8"
)

// Text is what the functions cut.
type Text interface{ ~string | ~[]byte }

// First returns the first n code points of s, all of s if it has fewer;
// empty for n <= 0.
func First[T Text](s T, n int) T {
	if n <= 0 {
		return s[:0]
	}
	// Step over each ASCII byte, and over each lead byte with the
	// continuation bytes after it when they make a valid encoding; decode
	// from anything else.
	i := 0
	for i < len(s) {
		if s[i] < utf8.RuneSelf {
			if n == 0 {
				return s[:i]
			}
			i, n = i+1, n-1
			continue
		}
		if n == 0 {
			return s[:i]
		}
		j := i + 1
		for j < len(s) && isContinuation(s[j]) {
			j++
		}
		if j-i > 1 && !valid(s[i], s[i+1], j-i) {
			return s[:firstDecoding(s, i, n)]
		}
		i, n = j, n-1 // a valid encoding, or a byte on its own: invalid, one code point
	}
	return s
}

// Last returns the last n code points of s, all of s if it has fewer;
// empty for n <= 0.
func Last[T Text](s T, n int) T {
	if n <= 0 {
		return s[len(s):]
	}
	// As First, backwards.
	i := len(s)
	for i > 0 {
		if s[i-1] < utf8.RuneSelf {
			if n == 0 {
				return s[i:]
			}
			i, n = i-1, n-1
			continue
		}
		if n == 0 {
			return s[i:]
		}
		j := i - 1
		for j > 0 && isContinuation(s[j]) {
			j--
		}
		if i-j > 1 && !valid(s[j], s[j+1], i-j) {
			return s[lastDecoding(s, i, n):]
		}
		i, n = j, n-1
	}
	return s
}

// FirstValid is First for s that is valid UTF-8.
func FirstValid[T Text](s T, n int) T {
	if n <= 0 {
		return s[:0]
	}
	for i := range len(s) {
		if !isContinuation(s[i]) {
			if n == 0 {
				return s[:i]
			}
			n--
		}
	}
	return s
}

// LastValid is Last for s that is valid UTF-8.
func LastValid[T Text](s T, n int) T {
	if n <= 0 {
		return s[len(s):]
	}
	for i := len(s) - 1; i >= 0; i-- {
		if !isContinuation(s[i]) {
			if n--; n == 0 {
				return s[i:]
			}
		}
	}
	return s
}

func isContinuation(c byte) bool { return c&0xC0 == 0x80 }

// firstDecoding returns where the first n code points from i end, decoding
// as a range loop does.
func firstDecoding[T Text](s T, i, n int) int {
	for ; i < len(s) && n > 0; n-- {
		i += width(s[i:])
	}
	return i
}

// lastDecoding returns where the last n code points before i start,
// decoding as utf8.DecodeLastRune does.
func lastDecoding[T Text](s T, i, n int) int {
	for ; i > 0 && n > 0; n-- {
		i -= lastWidth(s[:i])
	}
	return i
}

// Count is utf8.RuneCountInString of s, invalid UTF-8 included, with
// runs of ASCII counted eight bytes at a time: a prompt is mostly ASCII,
// and counting a long section rune by rune was a tenth of a render that
// ran it again.
func Count(s string) int {
	n := 0
	for len(s) > 0 {
		switch {
		case len(s) >= 8 && load8(s)&highBits == 0:
			s, n = s[8:], n+8
		case s[0] < utf8.RuneSelf:
			s, n = s[1:], n+1
		default: // a run of anything else, decoded as a range loop does
			end := len(s)
			for j, r := range s {
				if r < utf8.RuneSelf {
					end = j
					break
				}
				n++
			}
			s = s[end:]
		}
	}
	return n
}

// CountValid is Count for s that is valid UTF-8, which it does not check:
// it counts the bytes that do not continue a code point, eight at a time
// whatever the script.
func CountValid[T Text](s T) int {
	total, continuations := len(s), 0
	for ; len(s) >= 8; s = s[8:] {
		// Bit 7 of a byte survives when it is set and bit 6 is clear.
		x := load8(s)
		continuations += bits.OnesCount64(x &^ (x << 1) & highBits)
	}
	for i := range len(s) {
		if isContinuation(s[i]) {
			continuations++
		}
	}
	return total - continuations
}

// highBits has bit 7 of each of eight bytes.
const highBits = 0x8080808080808080

// load8 is the first eight bytes of s, little-endian.
func load8[T Text](s T) uint64 {
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// width is the size of the code point at the start of non-empty s, as
// utf8.DecodeRune gives it: 1 for a byte that starts no valid encoding.
func width[T Text](s T) int {
	size := int(leads[s[0]] & 7)
	if size == 1 || len(s) < size || !valid(s[0], s[1], size) {
		return 1
	}
	for i := 2; i < size; i++ {
		if !isContinuation(s[i]) {
			return 1
		}
	}
	return size
}

// lastWidth is the size of the code point at the end of non-empty s, as
// utf8.DecodeLastRune gives it.
func lastWidth[T Text](s T) int {
	end := len(s)
	start := end - 1
	for lim := max(end-utf8.UTFMax, 0); start > lim && isContinuation(s[start]); {
		start--
	}
	if w := width(s[start:]); start+w == end {
		return w
	}
	return 1
}

// valid reports whether lead byte c, second byte c1 and a length of size
// bytes make a valid encoding, given that the bytes after c are
// continuation bytes.
func valid(c, c1 byte, size int) bool {
	x := leads[c]
	if int(x&7) != size {
		return false
	}
	r := seconds[x>>4]
	return r.lo <= c1 && c1 <= r.hi
}

// leads holds, for each byte, the length of the encoding it starts (1 for
// ASCII and for bytes that start none) and, in the high nibble, the index
// in seconds of the range its second byte must be in.
var leads = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c < 0xC2 || c > 0xF4: // ASCII, continuation, overlong or too large
			t[c] = 1
		case c < 0xE0:
			t[c] = 2
		case c < 0xF0:
			t[c] = 3
		default:
			t[c] = 4
		}
	}
	t[0xE0] |= 1 << 4 // overlong below
	t[0xED] |= 2 << 4 // surrogates above
	t[0xF0] |= 3 << 4 // overlong below
	t[0xF4] |= 4 << 4 // beyond U+10FFFF above
	return t
}()

var seconds = [...]struct{ lo, hi byte }{
	{0x80, 0xBF},
	{0xA0, 0xBF},
	{0x80, 0x9F},
	{0x90, 0xBF},
	{0x80, 0x8F},
}
