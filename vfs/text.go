package vfs

import (
	"bytes"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sysprompt/sysprompt/internal/runes"
)

// Keep says how much of a text file ReadText holds on to, in code points.
// Negative values count as zero.
type Keep struct {
	Whole int // keep the whole text when it has at most this many code points
	Head  int // otherwise keep this many from the start
	Tail  int // and this many from the end
	// TrimSpace makes Tail end before the text's trailing Unicode white
	// space and Text.TrailingSpace count it, for callers that drop it.
	TrimSpace bool
}

// Text is what ReadText found in a file.
type Text struct {
	// RawChars counts the file's code points after invalid UTF-8 was
	// replaced; 0 for a binary file.
	RawChars int
	// Content is the whole text when RawChars <= Keep.Whole, else "".
	Content string
	// Head and Tail are the first Keep.Head and last Keep.Tail code points
	// when RawChars > Keep.Whole, else "". They overlap when
	// Keep.Head+Keep.Tail > RawChars.
	Head, Tail string
	// TrailingSpace counts the white space code points the text ends
	// with, when Keep.TrimSpace asked for it.
	TrailingSpace int
	// Binary reports a NUL byte; then the text fields are empty.
	Binary bool
	// ID is the file's as the open handle reported it before reading; a
	// file that changes while being read may hold a different number of
	// bytes.
	ID FileID
}

// readBufSize is the streaming read size: big enough for few syscalls,
// small enough to be noise next to what Keep holds.
const readBufSize = 32 << 10

// readText does ReadText's work on r, reading through buf (tests use tiny
// ones to split code points across reads). sizeHint, the expected byte
// count, only presizes buffers.
//
// Each read is cut before an incomplete trailing sequence (carried to the
// next read), made valid (a no-copy check in the common case), then counted
// and appended to the prefix in bulk. The tail windows are fed only once
// the text outgrows Whole, starting from all the prefix holds then: a
// file kept whole is held once.
func readText(r io.Reader, keep Keep, buf []byte, sizeHint int64) (Text, error) {
	if len(buf) < utf8.UTFMax {
		buf = make([]byte, utf8.UTFMax) // room for an incomplete sequence plus one byte
	}
	keep.Whole, keep.Head, keep.Tail = max(keep.Whole, 0), max(keep.Head, 0), max(keep.Tail, 0)
	var (
		prefixLimit = max(keep.Whole, keep.Head)
		prefix      strings.Builder // the first min(count, prefixLimit) code points
		tail        = tailFeed{trimSpace: keep.TrimSpace, tail: tailWindow{keep: keep.Tail}, space: tailWindow{keep: keep.Tail}}
		tailing     bool   // the text has outgrown Whole: tail is fed
		scratch     []byte // replacement output for invalid input
		count       int    // code points so far
		carry       int    // incomplete sequence kept at the start of buf
	)
	prefix.Grow(presize(sizeHint, prefixLimit))
	for {
		n, err := r.Read(buf[carry:])
		n += carry
		eof := err == io.EOF
		if err != nil && !eof {
			return Text{}, err
		}
		chunk := buf[:n]
		if bytes.IndexByte(chunk, 0) >= 0 {
			return Text{Binary: true}, nil
		}
		end := len(chunk)
		if !eof {
			end = completeEnd(chunk)
		}
		valid := chunk[:end]
		if !utf8.Valid(valid) {
			scratch = appendReplacingInvalid(scratch[:0], valid)
			valid = scratch
		}
		chars := runes.CountValid(valid)
		if !tailing && count+chars > keep.Whole {
			tailing = true
			tail.feed([]byte(prefix.String()), count) // all of the text so far
		}
		if need := prefixLimit - count; need >= chars {
			prefix.Write(valid)
		} else if need > 0 {
			prefix.Write(runes.FirstValid(valid, need))
		}
		if tailing {
			tail.feed(valid, chars)
		}
		count += chars
		carry = copy(buf, chunk[end:])
		if eof {
			break
		}
	}
	kept := prefix.String()
	if count <= keep.Whole {
		t := Text{RawChars: count, Content: kept}
		if keep.TrimSpace {
			t.TrailingSpace = runes.Count(kept[len(strings.TrimRightFunc(kept, unicode.IsSpace)):])
		}
		return t, nil
	}
	t := Text{RawChars: count, TrailingSpace: tail.trailing}
	t.Head = strings.Clone(runes.FirstValid(kept, keep.Head))
	t.Tail = string(tail.tail.last())
	return t, nil
}

// tailFeed keeps the last code points of a text fed to it in pieces; with
// trimSpace, the last ones before the white space it ends with, which
// trailing counts and space holds the last of.
type tailFeed struct {
	trimSpace   bool
	tail, space tailWindow
	trailing    int
}

func (f *tailFeed) feed(valid []byte, chars int) {
	if !f.trimSpace {
		f.tail.write(valid, chars)
		return
	}
	// Held white space joins the tail once text follows it; only its last
	// tail.keep code points can be in the tail.
	i := len(bytes.TrimRightFunc(valid, unicode.IsSpace))
	n := runes.CountValid(valid[i:])
	if i > 0 {
		f.tail.write(f.space.last(), min(f.trailing, f.tail.keep))
		f.space.buf, f.space.runes, f.trailing = f.space.buf[:0], 0, 0
		f.tail.write(valid[:i], chars-n)
	}
	f.space.write(valid[i:], n)
	f.trailing += n
}

// presize returns a starting capacity for the first limit code points of
// a file of sizeHint bytes, never above 1 MiB whatever the hint says: the
// hint when the file may fit, else a byte a code point, as most text is.
func presize(sizeHint int64, limit int) int {
	hint := int(min(max(sizeHint, 0), 1<<20))
	if limit < hint/utf8.UTFMax {
		return limit
	}
	return hint
}

// completeEnd returns where b stops holding complete sequences: before a
// trailing lead byte whose sequence the next read may complete. A lead
// byte is never a continuation byte, so a forward decode lands on it.
func completeEnd(b []byte) int {
	for k := 1; k <= utf8.UTFMax-1 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < utf8.RuneSelf {
			break
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-k:]) {
				return len(b) - k
			}
			break
		}
	}
	return len(b)
}

// appendReplacingInvalid appends b to dst with each byte of invalid UTF-8
// replaced by U+FFFD, as Go's string to []rune conversion does.
func appendReplacingInvalid(dst, b []byte) []byte {
	for len(b) > 0 {
		c, size := utf8.DecodeRune(b)
		if c == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, b[:size]...)
		}
		b = b[size:]
	}
	return dst
}

// tailWindow keeps at least the last keep code points written to it, in
// memory bounded by about 8*keep bytes plus one write.
type tailWindow struct {
	keep  int
	buf   []byte // valid UTF-8 ending with the last code point written
	runes int    // code points in buf
}

func (w *tailWindow) write(b []byte, chars int) {
	if w.keep == 0 {
		return
	}
	w.buf = append(w.buf, b...)
	w.runes += chars
	if len(w.buf) <= 8*w.keep || w.runes <= w.keep {
		return
	}
	// Drop what can no longer be among the last keep code points,
	// scanning only what stays.
	w.buf = w.buf[:copy(w.buf, runes.LastValid(w.buf, w.keep))]
	w.runes = w.keep
}

func (w *tailWindow) last() []byte {
	return runes.LastValid(w.buf, w.keep)
}
