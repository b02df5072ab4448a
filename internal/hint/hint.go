// Package hint is the one "did you mean" of sysprompt: for a name that
// is not known (a field, method, vars key, section id, manifest or
// front-matter key, function), the known name a typo most likely meant.
package hint

import "strings"

// Nearest returns the candidate closest to name (any case, first of the
// closest) within two edits and a third of name's length, so a short
// name is not taken for any other short name; "" when none is.
func Nearest(name string, candidates []string) string {
	best, bestDist := "", min(2, (len(name)+1)/3)+1
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(name), strings.ToLower(c)); d < bestDist && c != name {
			best, bestDist = c, d
		}
	}
	return best
}

// DidYouMean returns "did you mean X?" for the Nearest candidate X, or
// "" when none is close.
func DidYouMean(name string, candidates []string) string {
	if best := Nearest(name, candidates); best != "" {
		return "did you mean " + best + "?"
	}
	return ""
}

// editDistance is the optimal string alignment distance between a and b
// (bytes): Levenshtein's, with two adjacent letters swapped ("teir")
// counting as one edit. Names are short: a caller's name is at most a line
// of a pack file.
func editDistance(a, b string) int {
	if len(a) > 256 || len(b) > 256 {
		return max(len(a), len(b)) // no typo of a real name is that long
	}
	// Three rows: the one before the previous, for a swap.
	rows := [3][]int{make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)}
	for j := range rows[1] {
		rows[1][j] = j
	}
	for i := 1; i <= len(a); i++ {
		pp, prev, cur := rows[0], rows[1], rows[2]
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
		rows[0], rows[1], rows[2] = prev, cur, pp
	}
	return rows[1][len(b)]
}

// Suffix is DidYouMean in parentheses, to end a message: " (did you mean
// X?)", or "" when no candidate is close.
func Suffix(name string, candidates []string) string {
	if h := DidYouMean(name, candidates); h != "" {
		return " (" + h + ")"
	}
	return ""
}
