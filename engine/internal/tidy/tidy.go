// Package tidy normalises rendered section text: it trims it, folds runs
// of blank lines into one (leaving injected workspace text exactly as
// written), and keeps the cache boundary marker out of section output.
package tidy

import (
	"slices"
	"strings"
)

// Text trims a rendered section and folds runs of blank lines into one,
// except inside injected file content, which is printed exactly.
func Text(s string, protected []string) string {
	s = strings.TrimSpace(s)
	if !HasBlankRun(s) {
		return s
	}
	// The spans of s that hold injected text, in order; overlapping
	// spans are merged below.
	var keep [][2]int
	for _, p := range protected {
		for from := 0; ; {
			i := strings.Index(s[from:], p)
			if i < 0 {
				break
			}
			keep = append(keep, [2]int{from + i, from + i + len(p)})
			from += i + len(p)
		}
	}
	slices.SortFunc(keep, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, k := range keep {
		if k[1] <= at {
			continue // inside a span already copied
		}
		if k[0] > at {
			foldBlankLines(&b, s[at:k[0]])
			at = k[0]
		}
		b.WriteString(s[at:k[1]]) // the span, or what of it overlaps no earlier one
		at = k[1]
	}
	foldBlankLines(&b, s[at:])
	return b.String()
}

// HasBlankRun reports whether s has a run of blank lines to fold.
func HasBlankRun(s string) bool { return strings.Contains(s, "\n\n\n") }

// foldBlankLines writes s with every run of three or more newlines cut
// to two.
func foldBlankLines(b *strings.Builder, s string) {
	newlines := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			newlines++
			if newlines > 2 {
				continue
			}
		} else {
			newlines = 0
		}
		b.WriteByte(s[i])
	}
}

// BoundaryRemoved is what Boundary prints in place of a marker.
const BoundaryRemoved = "[cache boundary marker removed]"

// Boundary stops text from carrying the boundary marker, which
// would split the prompt in the wrong place.
func Boundary(s, boundary string) string {
	if !strings.Contains(s, boundary) {
		return s
	}
	return strings.ReplaceAll(s, boundary, BoundaryRemoved)
}
