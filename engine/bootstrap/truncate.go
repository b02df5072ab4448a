package bootstrap

import (
	"strings"
	"unicode"

	"github.com/sysprompt/sysprompt/internal/runes"
)

// Shares of a truncated file's budget (after the marker) kept from the
// start and the end of the file; the rest is slack for marker growth.
const (
	headPercent = 70
	tailPercent = 20
)

// normalize turns CRLF and lone CR (old Mac) line ends into LF and drops
// trailing white space, so that what is counted is what would be
// injected, and no carriage return reaches the prompt.
func normalize(s string) string {
	return strings.TrimRightFunc(unixLines(s), unicode.IsSpace)
}

// unixLines ends every line of s with LF: CRLF and a lone CR alike.
func unixLines(s string) string {
	if strings.Contains(s, "\r") {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return s
}

// share returns pct percent of n, rounded down, without overflowing for
// huge budgets.
func share(n, pct int) int {
	return n/100*pct + n%100*pct/100
}

// maxKept is an upper bound on the head and tail sizes truncate may keep
// for a budget, so reads can be bounded before the marker is known.
func maxKept(budget int) (head, tail int) {
	return share(budget, headPercent), share(budget, tailPercent)
}

// truncate fits t, which does not fit budget, into budget code points: a
// head, then the marker, then a tail. It returns the text and its length in
// code points. marker renders the marker for the number of code points
// kept; it is counted inside the budget.
//
// Sizes are settled by iterating, because the marker's length depends on the
// numbers it shows. When not even the bare marker fits, the result is as
// much of the marker as fits and nothing of the file: telling the model the
// copy is partial matters more than a few characters of it.
func truncate(t text, budget int, marker func(kept int) string) (string, int) {
	if budget <= 0 {
		return "", 0
	}
	h, tl := 0, 0
	m := marker(0)
	mChars := runes.Count(m)
	for range 4 {
		avail := max(budget-mChars, 0)
		// A head or tail shorter than planned (only for odd reads) caps the cut.
		nh := min(share(avail, headPercent), t.headChars)
		nt := min(share(avail, tailPercent), t.tailChars)
		if nh == h && nt == tl {
			break
		}
		h, tl = nh, nt
		m = marker(h + tl)
		mChars = runes.Count(m)
	}
	// Shrink the tail, then the head, until everything fits. The bound on
	// rounds guards against a marker that grows as the numbers shrink.
	for range 64 {
		over := h + mChars + tl - budget
		if over <= 0 || h+tl == 0 {
			break
		}
		cut := min(over, tl)
		tl -= cut
		h = max(h-(over-cut), 0)
		m = marker(h + tl)
		mChars = runes.Count(m)
	}
	if h+mChars+tl > budget {
		m = runes.First(m, budget)
		return m, runes.Count(m)
	}
	head, tail := snapToLines(prefix(t.head, t.headChars, h), suffix(t.tail, t.tailChars, tl))
	if nh, nt := runes.Count(head), runes.Count(tail); nh != h || nt != tl {
		// Fewer characters kept: the marker's numbers can only get shorter.
		h, tl = nh, nt
		m = marker(h + tl)
		mChars = runes.Count(m)
	}
	return head + m + tail, h + mChars + tl
}

// snapToLines moves the cuts to line ends when one is near (within the
// last quarter of the head, the first quarter of the tail), so the copy
// does not stop or resume in the middle of a word. It only ever keeps
// less, so the result still fits.
func snapToLines(head, tail string) (string, string) {
	if i := strings.LastIndexByte(head, '\n'); i > 0 && len(head)-i <= len(head)/4 {
		head = head[:i]
	}
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < len(tail)/4 {
		tail = tail[i+1:]
	}
	return head, tail
}

// prefix is runes.First, slicing directly when s (of chars code points) is
// ASCII.
func prefix(s string, chars, n int) string {
	if chars == len(s) {
		return s[:min(n, len(s))]
	}
	return runes.First(s, n)
}

// suffix is runes.Last, slicing directly when s (of chars code points) is
// ASCII.
func suffix(s string, chars, n int) string {
	if chars == len(s) {
		return s[len(s)-min(n, len(s)):]
	}
	return runes.Last(s, n)
}

// clamp cuts s to at most n code points; used for markers charged against
// a nearly spent total.
func clamp(s string, n int) string { return runes.First(s, n) }
