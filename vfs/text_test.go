package vfs

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readAllSizes runs readText over data with several buffer sizes, checking
// they agree, so code points split across reads are exercised.
func readAllSizes(t *testing.T, data []byte, keep Keep) Text {
	t.Helper()
	want, err := readText(bytes.NewReader(data), keep, make([]byte, readBufSize), int64(len(data)))
	require.NoError(t, err)
	for _, size := range []int{1, 4, 5, 7, 64} {
		got, err := readText(bytes.NewReader(data), keep, make([]byte, size), 0)
		require.NoError(t, err)
		require.Equal(t, want, got, "buffer size %d", size)
	}
	return want
}

func TestReadTextCounts(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		chars      int
	}{
		{"empty", "", 0},
		{"ascii", "hello, world\n", 13},
		{"crlf kept", "a\r\nb\r\n", 6},
		{"cjk", "你好，世界", 5},
		{"emoji", "👋🏽 hi", 5}, // wave, skin tone, space, h, i
		{"flag", "🇳🇱", 2},
		{"mixed", "Grüße 日本 🎉!", 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := readAllSizes(t, []byte(tc.text), Keep{Whole: 100, Head: 1, Tail: 1})
			assert.Equal(t, tc.chars, got.RawChars)
			assert.Equal(t, tc.text, got.Content)
			assert.Empty(t, got.Head)
			assert.Empty(t, got.Tail)
			assert.False(t, got.Binary)
		})
	}
}

func TestReadTextHeadTail(t *testing.T) {
	const whole = 10
	keep := Keep{Whole: whole, Head: 4, Tail: 3}
	for _, tc := range []struct {
		name  string
		runes int
	}{
		{"whole-1", whole - 1},
		{"whole", whole},
		{"whole+1", whole + 1},
		{"much larger", 10 * whole},
	} {
		for _, alphabet := range []string{"abcdefghijklmnopqrstuvwxyz", "αβγδεζηθικλμνξοπρστυφχψω", "一二三四五六七八九十", "😀😁😂🤣😃😄😅😆😉😊"} {
			letters := []rune(alphabet)
			full := make([]rune, tc.runes)
			for i := range full {
				full[i] = letters[i%len(letters)]
			}
			t.Run(tc.name+"/"+string(letters[:3]), func(t *testing.T) {
				got := readAllSizes(t, []byte(string(full)), keep)
				assert.Equal(t, tc.runes, got.RawChars)
				if tc.runes <= whole {
					assert.Equal(t, string(full), got.Content)
					assert.Empty(t, got.Head+got.Tail)
					return
				}
				assert.Empty(t, got.Content)
				assert.Equal(t, string(full[:4]), got.Head)
				assert.Equal(t, string(full[len(full)-3:]), got.Tail)
			})
		}
	}
}

func TestReadTextKeepEdges(t *testing.T) {
	text := []byte("0123456789")
	for _, tc := range []struct {
		name                string
		keep                Keep
		content, head, tail string
	}{
		{"zero keep", Keep{}, "", "", ""},
		{"negative keep", Keep{Whole: -1, Head: -5, Tail: -5}, "", "", ""},
		{"head and tail overlap", Keep{Whole: 5, Head: 8, Tail: 8}, "", "01234567", "23456789"},
		{"tail larger than text", Keep{Whole: 0, Head: 0, Tail: 50}, "", "", "0123456789"},
		{"head only", Keep{Whole: 9, Head: 3}, "", "012", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := readAllSizes(t, text, tc.keep)
			assert.Equal(t, 10, got.RawChars)
			assert.Equal(t, tc.content, got.Content)
			assert.Equal(t, tc.head, got.Head)
			assert.Equal(t, tc.tail, got.Tail)
		})
	}
}

func TestReadTextInvalidUTF8(t *testing.T) {
	const r = "\uFFFD"
	for _, tc := range []struct {
		name, in, want string
	}{
		{"lone continuation", "a\x80b", "a" + r + "b"},
		{"truncated 3-byte, one per byte", "a\xe2\x82b", "a" + r + r + "b"},
		{"truncated at EOF", "ab\xe2\x82", "ab" + r + r},
		{"overlong", "\xc0\xaf", r + r},
		{"surrogate", "\xed\xa0\x80", r + r + r},
		{"latin-1", "caf\xe9", "caf" + r},
		{"U+FFFD itself stays one", r, r},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := readAllSizes(t, []byte(tc.in), Keep{Whole: 100})
			assert.Equal(t, tc.want, got.Content)
			assert.Equal(t, utf8.RuneCountInString(tc.want), got.RawChars)
			assert.Equal(t, string([]rune(tc.in)), got.Content, "same as Go's []rune conversion")
		})
	}

	// Cut points next to replaced bytes still give valid UTF-8.
	got := readAllSizes(t, []byte("\xff\xfe0123456789\xe2\x82"), Keep{Whole: 3, Head: 1, Tail: 1})
	assert.Equal(t, r, got.Head)
	assert.Equal(t, r, got.Tail)
	assert.Equal(t, 14, got.RawChars)
}

func TestReadTextBinary(t *testing.T) {
	for _, in := range []string{"\x00", "text then \x00 NUL", "日本\x00", strings.Repeat("x", 100) + "\x00"} {
		got := readAllSizes(t, []byte(in), Keep{Whole: 10, Head: 3, Tail: 3})
		assert.Equal(t, Text{Binary: true}, got, "%q", in)
	}
}

func TestReadTextStat(t *testing.T) {
	w := memWorkspace(t, "/ws", map[string]string{"AGENTS.md": "héllo"})
	got, err := w.ReadText("AGENTS.md", Keep{Whole: 100})
	require.NoError(t, err)
	assert.Equal(t, int64(6), got.ID.Size)
	assert.Equal(t, 5, got.RawChars)
	id, err := w.Stat("AGENTS.md")
	require.NoError(t, err)
	assert.Equal(t, id, got.ID)
}

// erroringReader serves data, then fails instead of reporting EOF.
type erroringReader struct{ data []byte }

func (e *erroringReader) Read(p []byte) (int, error) {
	if len(e.data) == 0 {
		return 0, io.ErrUnexpectedEOF
	}
	n := copy(p, e.data)
	e.data = e.data[n:]
	return n, nil
}

func TestReadTextReadError(t *testing.T) {
	_, err := readText(&erroringReader{data: []byte("partial")}, Keep{Whole: 100}, make([]byte, 4), 1<<40)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

func TestReadTextTruncatedMidCodePoint(t *testing.T) {
	fsys := afero.NewMemMapFs()
	require.NoError(t, afero.WriteFile(fsys, "/ws/grow.md", []byte(strings.Repeat("日", 100)), 0o644))
	w := OpenWorkspace(fsys, "/ws")

	// A writer cuts the file inside a code point (as an editor saving
	// mid-read might): the next read is valid UTF-8 and counts the stray byte.
	f, err := fsys.OpenFile("/ws/grow.md", os.O_WRONLY, 0)
	require.NoError(t, err)
	defer f.Close()
	got, err := w.ReadText("grow.md", Keep{Whole: 1000})
	require.NoError(t, err)
	require.NoError(t, f.Truncate(31))
	got2, err := w.ReadText("grow.md", Keep{Whole: 1000})
	require.NoError(t, err)
	assert.Equal(t, 100, got.RawChars)
	assert.True(t, utf8.ValidString(got2.Content))
	assert.Equal(t, 11, got2.RawChars, "10 whole code points and one replaced stray byte")
}

// TestReadTextLargeFileMemory reads a 50 MB text file from disk and checks
// that memory allocated stays near what Keep holds. Measured on
// linux/amd64: about 0.2 MB allocated in total (read buffer, prefix
// builder growth, tail ring, results), against a 50 MB file.
func TestReadTextLargeFileMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50 MB")
	}
	const size = 50 << 20
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "MEMORY.md"))
	require.NoError(t, err)
	line := []byte("mémoire — 记忆 — 🧠 memory line\n")
	chunk := bytes.Repeat(line, (1<<20)/len(line))
	written := 0
	for written < size {
		n, err := f.Write(chunk)
		require.NoError(t, err)
		written += n
	}
	require.NoError(t, f.Close())
	w := OpenWorkspace(afero.NewOsFs(), dir)
	keep := Keep{Whole: 20000, Head: 14000, Tail: 4000}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := w.ReadText("MEMORY.md", keep)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)

	lineRunes := utf8.RuneCount(line)
	assert.Equal(t, written/len(line)*lineRunes, got.RawChars)
	assert.Equal(t, int64(written), got.ID.Size)
	assert.Equal(t, 14000, utf8.RuneCountInString(got.Head))
	assert.Equal(t, 4000, utf8.RuneCountInString(got.Tail))
	assert.True(t, strings.HasSuffix(got.Tail, string(line)))

	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("read %d bytes, allocated %d bytes", written, allocated)
	assert.Less(t, allocated, uint64(2<<20), "allocation must not grow with the file")
}

func FuzzReadText(f *testing.F) {
	f.Add([]byte("hello"), 3, 1, 1, 4)
	f.Add([]byte("日本語のテキスト"), 4, 2, 2, 5)
	f.Add([]byte("a\xe2\x82b\xff\xc0\xaf🎉"), 2, 1, 3, 4)
	f.Add([]byte("\r\n\r\n"), 0, 0, 0, 1)
	f.Add([]byte("binary\x00data"), 100, 10, 10, 32)
	f.Fuzz(func(t *testing.T, data []byte, whole, head, tail, bufSize int) {
		keep := Keep{Whole: whole % 64, Head: head % 64, Tail: tail % 64}
		bufSize = 1 + abs(bufSize)%64
		got, err := readText(bytes.NewReader(data), keep, make([]byte, bufSize), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(data, 0) >= 0 {
			if got != (Text{Binary: true}) {
				t.Fatalf("binary input gave %+v", got)
			}
			return
		}
		full := string([]rune(string(data)))
		if got.RawChars != utf8.RuneCountInString(full) {
			t.Fatalf("RawChars %d, want %d", got.RawChars, utf8.RuneCountInString(full))
		}
		for _, s := range []string{got.Content, got.Head, got.Tail} {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 %q", s)
			}
		}
		keep.Whole, keep.Head, keep.Tail = max(keep.Whole, 0), max(keep.Head, 0), max(keep.Tail, 0)
		// TrimSpace: TrailingSpace counts the trailing white space, and the
		// tail (below) ends before it.
		trimKeep := keep
		trimKeep.TrimSpace = true
		trimmed, err := readText(bytes.NewReader(data), trimKeep, make([]byte, bufSize), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.TrimRightFunc(full, unicode.IsSpace)
		if want := utf8.RuneCountInString(full) - utf8.RuneCountInString(text); trimmed.TrailingSpace != want {
			t.Fatalf("TrailingSpace %d, want %d", trimmed.TrailingSpace, want)
		}
		if got.RawChars <= keep.Whole {
			if got.Content != full || got.Head != "" || got.Tail != "" {
				t.Fatalf("whole text: got %+v, want content %q", got, full)
			}
			return
		}
		if got.Content != "" {
			t.Fatalf("content %q kept over Whole", got.Content)
		}
		if n := utf8.RuneCountInString(got.Head); n != min(keep.Head, got.RawChars) {
			t.Fatalf("head has %d code points, keep %d", n, keep.Head)
		}
		if n := utf8.RuneCountInString(got.Tail); n != min(keep.Tail, got.RawChars) {
			t.Fatalf("tail has %d code points, keep %d", n, keep.Tail)
		}
		if !strings.HasPrefix(full, got.Head) {
			t.Fatalf("head %q is not a prefix of %q", got.Head, full)
		}
		if !strings.HasSuffix(full, got.Tail) {
			t.Fatalf("tail %q is not a suffix of %q", got.Tail, full)
		}
		if want := string([]rune(text)[max(0, utf8.RuneCountInString(text)-keep.Tail):]); trimmed.Tail != want {
			t.Fatalf("trimmed tail %q, want %q", trimmed.Tail, want)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func BenchmarkReadText(b *testing.B) {
	keep := Keep{Whole: 20000, Head: 14000, Tail: 4000}
	for _, bc := range []struct {
		name string
		size int
	}{{"20KB", 20 << 10}, {"100KB", 100 << 10}} {
		b.Run(bc.name, func(b *testing.B) {
			line := "A line of workspace notes, with a little ünïcödé — 日本語 — 🎉.\n"
			data := strings.Repeat(line, bc.size/len(line)+1)[:bc.size]
			data = strings.ToValidUTF8(data, "")
			w := memWorkspace(b, "/ws", map[string]string{"AGENTS.md": data})
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := w.ReadText("AGENTS.md", keep); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestReadTextTrimSpace(t *testing.T) {
	for _, tc := range []struct {
		text, tail string
		trailing   int
	}{
		{"ab  c \n\u3000\r\n", "  c", 5},
		{"c" + strings.Repeat(" ", 40) + "de\n", " de", 1},
		{"     ", "", 5},
		{"abc", "abc", 0},
	} {
		got := readAllSizes(t, []byte(tc.text), Keep{Tail: 3, TrimSpace: true})
		assert.Equal(t, tc.tail, got.Tail, "%q", tc.text)
		assert.Equal(t, tc.trailing, got.TrailingSpace, "%q", tc.text)
		assert.Equal(t, utf8.RuneCountInString(tc.text), got.RawChars)
	}
}

// readCounter counts the bytes read through it.
type readCounter struct {
	afero.File
	read int64
}

func (c *readCounter) Read(p []byte) (int, error) {
	n, err := c.File.Read(p)
	c.read += int64(n)
	return n, err
}

// A file longer than maxTextScan is read as its head and its tail, in
// time that does not grow with it; its middle counts a code point a byte.
// Trailing white space is dropped from a tail read on its own too.
func TestReadTextSkipsTheMiddleOfAHugeFile(t *testing.T) {
	fsys := afero.NewMemMapFs()
	size := maxTextScan + 1<<20
	body := "HEAD é\n" + strings.Repeat("a", size-len("HEAD é\n")-len("\nTAIL")-1000-100) + strings.Repeat("z", 1000) + "\nTAIL" + strings.Repeat(" ", 100)
	require.NoError(t, afero.WriteFile(fsys, "big.md", []byte(body), 0o644))
	keep := Keep{Whole: 1000, Head: 100, Tail: 100, TrimSpace: true}
	text, err := OpenWorkspace(fsys, "").ReadText("big.md", keep)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(text.Head, "HEAD é\naaa"))
	assert.Equal(t, strings.Repeat("z", 95)+"\nTAIL", text.Tail)
	assert.Equal(t, 100, text.TrailingSpace)
	assert.Equal(t, utf8.RuneCountInString(body), text.RawChars, "the middle is ASCII, counted exactly")

	f, err := fsys.Open("big.md")
	require.NoError(t, err)
	defer f.Close()
	counted := &readCounter{File: f}
	_, err = readBounded(counted, keep, make([]byte, readBufSize), int64(size))
	require.NoError(t, err)
	assert.Less(t, counted.read, int64(64<<10), "bytes read")
}

// A file that says nothing of its size and never ends (procfs, a FUSE
// file) is read up to maxTextScan bytes, not forever.
func TestReadTextStopsOnAnEndlessFile(t *testing.T) {
	fsys := endlessFs{afero.NewMemMapFs()}
	require.NoError(t, afero.WriteFile(fsys, "endless", nil, 0o644))
	text, err := OpenWorkspace(fsys, "").ReadText("endless", Keep{Whole: 10, Head: 5, Tail: 5})
	require.NoError(t, err)
	assert.Equal(t, maxTextScan, text.RawChars)
	assert.Equal(t, "aaaaa", text.Tail)
}

// endlessFs opens every file as one that reads "a" for ever, whatever
// size it reports.
type endlessFs struct{ afero.Fs }

func (e endlessFs) Open(name string) (afero.File, error) {
	f, err := e.Fs.Open(name)
	if err != nil {
		return nil, err
	}
	return endless{f}, nil
}

type endless struct{ afero.File }

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}
