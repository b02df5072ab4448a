package runes

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// firstRef and lastRef are the definitions, what a range loop and
// utf8.DecodeLastRuneInString count (and were bootstrap's own cuts).
func firstRef(s string, n int) string {
	if n <= 0 {
		return ""
	}
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

func lastRef(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := len(s)
	for i > 0 && n > 0 {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		n--
	}
	return s[i:]
}

// checkCuts compares First and Last, on s as a string and as bytes, with
// the definitions for every n up to one past s's length in code points;
// and FirstValid and LastValid too when s is valid UTF-8.
//
// Neither calls t.Helper: millions of calls made it most of the cost, and
// the message names the function and its arguments.
func checkCuts(t *testing.T, s string) {
	count := utf8.RuneCountInString(s)
	if got := Count(s); got != count {
		t.Fatalf("Count(%q) = %d, want %d", s, got, count)
	}
	valid := utf8.ValidString(s)
	b := []byte(s) // once: the cuts return part of it and never write
	for n := -1; n <= count+1; n++ {
		want := firstRef(s, n)
		check(t, "First", s, b, n, want, First[string], First[[]byte])
		if valid {
			check(t, "FirstValid", s, b, n, want, FirstValid[string], FirstValid[[]byte])
		}
		want = lastRef(s, n)
		check(t, "Last", s, b, n, want, Last[string], Last[[]byte])
		if valid {
			check(t, "LastValid", s, b, n, want, LastValid[string], LastValid[[]byte])
		}
	}
}

func check(t *testing.T, name, s string, b []byte, n int, want string, cut func(string, int) string, cutBytes func([]byte, int) []byte) {
	if got := cut(s, n); got != want {
		t.Fatalf("%s(%q, %d) = %q, want %q", name, s, n, got, want)
	}
	if got := cutBytes(b, n); string(got) != want {
		t.Fatalf("%s([]byte(%q), %d) = %q, want %q", name, s, n, got, want)
	}
}

func TestFirstLast(t *testing.T) {
	s := "a日🙂b"
	for n, want := range []string{"", "a", "a日", "a日🙂", "a日🙂b", "a日🙂b"} {
		assert.Equal(t, want, First(s, n))
		assert.Equal(t, want, string(First([]byte(s), n)))
		assert.Equal(t, want, FirstValid(s, n))
	}
	for n, want := range []string{"", "b", "🙂b", "日🙂b", "a日🙂b", "a日🙂b"} {
		assert.Equal(t, want, Last(s, n))
		assert.Equal(t, want, string(Last([]byte(s), n)))
		assert.Equal(t, want, LastValid(s, n))
	}
	for _, cut := range []func(string, int) string{First[string], Last[string], FirstValid[string], LastValid[string]} {
		assert.Empty(t, cut(s, -1))
		assert.Empty(t, cut(s, 0))
		assert.Empty(t, cut("", 3))
	}
}

// Invalid UTF-8 counts one code point per byte that starts no valid
// encoding, as utf8.RuneCountInString does.
func TestInvalid(t *testing.T) {
	for _, s := range []string{
		"\x80", "a\x80b", "\xbf\xbf", "日\x97", "\xe6\x97", "\xe6\x97b", "é\xa9", "\xc0\xaf",
		"\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf0\x80\x80\xaf", "\xf5", "\xff\xfe", "🙂\x9f\x99\x82", "\xf0\x9f\x99",
	} {
		checkCuts(t, s)
		for n := range utf8.RuneCountInString(s) + 1 {
			assert.Equal(t, n, utf8.RuneCountInString(First(s, n)), "First(%q, %d)", s, n)
			assert.Equal(t, n, utf8.RuneCountInString(Last(s, n)), "Last(%q, %d)", s, n)
		}
	}
}

// interesting are the bytes where the meaning of a byte changes: ASCII,
// the ends of the continuation ranges, every kind of lead byte and the
// bytes never valid.
var interesting = []byte{
	0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
	0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
}

// Every sequence of up to four interesting bytes decodes as utf8 decodes it.
func TestWidthMatchesUTF8(t *testing.T) {
	var seqs func(prefix []byte, depth int)
	seqs = func(p []byte, depth int) {
		if len(p) > 0 { // plain comparisons: testify's cost most of the time here
			_, size := utf8.DecodeRune(p)
			if w, ws := width(p), width(string(p)); w != size || ws != size {
				t.Fatalf("% x: width %d, as a string %d, want %d", p, w, ws, size)
			}
			_, size = utf8.DecodeLastRune(p)
			if w := lastWidth(p); w != size {
				t.Fatalf("% x: lastWidth %d, want %d", p, w, size)
			}
		}
		if depth == 0 {
			return
		}
		for _, c := range interesting {
			seqs(append(p, c), depth-1)
		}
	}
	seqs(make([]byte, 0, 4), 4)
	// And every two-byte sequence, whatever its bytes.
	for a := range 256 {
		for b := range 256 {
			p := []byte{byte(a), byte(b)}
			_, size := utf8.DecodeRune(p)
			require.Equal(t, size, width(p), "% x", p)
			_, size = utf8.DecodeLastRune(p)
			require.Equal(t, size, lastWidth(p), "% x", p)
		}
	}
}

// Every sequence of up to four interesting bytes is cut as the
// definitions cut it, which exercises every way the fast scans can meet
// invalid input.
func TestShortSequences(t *testing.T) {
	var seqs func(p []byte, depth int)
	seqs = func(p []byte, depth int) {
		checkCuts(t, string(p))
		if depth == 0 {
			return
		}
		for _, c := range interesting {
			seqs(append(p, c), depth-1)
		}
	}
	seqs(make([]byte, 0, 4), 4)
}

func TestRandomText(t *testing.T) {
	pieces := []string{"a", " ", "\n", "é", "日", "🙂", "\u0800", "\ud7ff", "\U00010000", "\U0010ffff", "\x80", "\xe6\x97", "\xf0", "\xff", "\xed\xa0\x80"}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 4000 {
		var b strings.Builder
		for range r.IntN(12) {
			p := pieces[r.IntN(len(pieces))]
			if i%2 == 0 && !utf8.ValidString(p) {
				continue // half the texts valid, for FirstValid and LastValid
			}
			b.WriteString(p)
		}
		checkCuts(t, b.String())
	}
}

func FuzzCuts(f *testing.F) {
	for _, s := range []string{"", "abc", "a日🙂b", "\xe6\x97b\x80", "é\xa9\xf4\x90\x80\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkCuts(t, s)
		checkCuts(t, strings.ToValidUTF8(s, "\uFFFD"))
	})
}

// benchTexts are notes with a little non-ASCII on every line, as
// BenchmarkReadText in vfs reads, and text that is all CJK.
var benchTexts = []struct{ name, text string }{
	{"mixed", strings.Repeat("A line of workspace notes, with a little ünïcödé — 日本語 — 🎉.\n", 300)},
	{"cjk", strings.Repeat("日本語の文章、句読点も含めて。漢字とかなが混ざる長い行です。\n", 300)},
}

// benchCut cuts three quarters of each text, as a string and as bytes.
func benchCut(b *testing.B, cut func(s string, n int) string, cutBytes func(s []byte, n int) []byte) {
	for _, bt := range benchTexts {
		n := utf8.RuneCountInString(bt.text) * 3 / 4
		b.Run(bt.name+"/string", func(b *testing.B) {
			b.SetBytes(int64(len(bt.text)))
			for b.Loop() {
				_ = cut(bt.text, n)
			}
		})
		data := []byte(bt.text)
		b.Run(bt.name+"/bytes", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				_ = cutBytes(data, n)
			}
		})
	}
}

func BenchmarkFirst(b *testing.B) { benchCut(b, First[string], First[[]byte]) }

func BenchmarkCount(b *testing.B) {
	texts := append(benchTexts, struct{ name, text string }{"ascii", strings.Repeat("A line of workspace notes, all of it plain ASCII text.\n", 300)})
	for _, bt := range texts {
		for name, count := range map[string]func(string) int{"utf8": utf8.RuneCountInString, "runes": Count} {
			b.Run(bt.name+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(len(bt.text)))
				for b.Loop() {
					_ = count(bt.text)
				}
			})
		}
	}
}

func BenchmarkLast(b *testing.B) { benchCut(b, Last[string], Last[[]byte]) }

func BenchmarkFirstValid(b *testing.B) { benchCut(b, FirstValid[string], FirstValid[[]byte]) }

func BenchmarkLastValid(b *testing.B) { benchCut(b, LastValid[string], LastValid[[]byte]) }

// Count against utf8.RuneCountInString on every string of up to four
// bytes from the bytes that start, continue or break an encoding, with
// 0–9 ASCII bytes before (so each lands on every offset of an eight-byte
// step) and 0, 3, 6 or 9 after.
func TestCountEverySequenceAtEveryOffset(t *testing.T) {
	edges := []byte{'a', 0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff}
	var each func(seq []byte, depth int)
	each = func(seq []byte, depth int) {
		for pad := range 10 {
			for post := 0; post <= 9; post += 3 {
				s := strings.Repeat("x", pad) + string(seq) + strings.Repeat("y", post)
				want := utf8.RuneCountInString(s)
				if got := Count(s); got != want {
					t.Fatalf("Count(%q) = %d, want %d", s, got, want)
				}
				if got := CountValid([]byte(s)); utf8.ValidString(s) && got != want {
					t.Fatalf("CountValid(%q) = %d, want %d", s, got, want)
				}
			}
		}
		if depth > 0 {
			for _, c := range edges {
				each(append(seq[:len(seq):len(seq)], c), depth-1)
			}
		}
	}
	each(nil, 4)
}
