package bootstrap

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testMarker(kept, raw int) string {
	return fmt.Sprintf("\n[...truncated F: kept %d of %d...]\n", kept, raw)
}

// checkCut asserts the invariants every cut must hold.
func checkCut(t testing.TB, content string, budget int, out string) {
	t.Helper()
	require.True(t, utf8.ValidString(out), "invalid UTF-8")
	require.LessOrEqual(t, utf8.RuneCountInString(out), max(budget, 0), "over budget")
	raw := utf8.RuneCountInString(content)
	marker := func(k int) string { return testMarker(k, raw) }
	if budget <= 0 {
		require.Empty(t, out)
		return
	}
	if strings.HasPrefix(marker(0), out) {
		return // not even the bare marker fit: as much of it as fits
	}
	before, rest, ok := strings.Cut(out, "\n[...truncated")
	require.True(t, ok, "no marker in %q", out)
	_, after, ok := strings.Cut(rest, "...]\n")
	require.True(t, ok, "marker not closed in %q", out)
	require.True(t, strings.HasPrefix(content, before), "head is not the file's start")
	require.True(t, strings.HasSuffix(content, after), "tail is not the file's end")
}

func wholeText(s string) text {
	n := utf8.RuneCountInString(s)
	return text{whole: true, head: s, tail: s, headChars: n, tailChars: n, raw: n}
}

func TestTruncate(t *testing.T) {
	long := strings.Repeat("0123456789", 4000) // 40,000 code points
	tests := []struct {
		name     string
		content  string
		budget   int
		wantKept int
		wantOut  string // checked when set
	}{
		{name: "40k into 20k", content: long, budget: 20000, wantKept: 17961},
		{name: "room for the marker only", content: long, budget: len(testMarker(0, 40000)), wantOut: testMarker(0, 40000)},
		{name: "marker cut", content: long, budget: 5, wantOut: "\n[..."},
		{name: "zero budget", content: long, budget: 0, wantOut: ""},
		{name: "small", content: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", budget: 50,
			wantKept: 11, wantOut: "abcdefghi" + testMarker(11, 62) + "89"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := utf8.RuneCountInString(tt.content)
			out, chars := truncate(wholeText(tt.content), tt.budget, func(k int) string { return testMarker(k, raw) })
			checkCut(t, tt.content, tt.budget, out)
			assert.Equal(t, utf8.RuneCountInString(out), chars)
			if tt.wantOut != "" || tt.budget == 0 {
				assert.Equal(t, tt.wantOut, out)
			}
			if tt.wantKept != 0 {
				assert.True(t, strings.Contains(out, testMarker(tt.wantKept, raw)), "kept %d", tt.wantKept)
			}
		})
	}
}

func TestTruncateMultibyteEveryBudget(t *testing.T) {
	content := strings.Repeat("日本語テキスト🙂👍🏽é\u0301ü", 30)
	raw := utf8.RuneCountInString(content)
	for budget := 0; budget < raw; budget++ {
		out, chars := truncate(wholeText(content), budget, func(k int) string { return testMarker(k, raw) })
		checkCut(t, content, budget, out)
		require.Equal(t, utf8.RuneCountInString(out), chars)
	}
}

func TestTruncateShortHead(t *testing.T) {
	// A head and tail read that are shorter than planned cap the cut.
	short := text{head: "ab", tail: "yz", headChars: 2, tailChars: 2, raw: 1000}
	out, chars := truncate(short, 100, func(k int) string { return testMarker(k, 1000) })
	assert.Equal(t, "ab"+testMarker(4, 1000)+"yz", out)
	assert.Equal(t, utf8.RuneCountInString(out), chars)
}

func FuzzTruncate(f *testing.F) {
	f.Add("hello, world", 5)
	f.Add(strings.Repeat("漢字🙂", 100), 64)
	f.Add(strings.Repeat("x", 1000), 100)
	f.Add("\xff\xfe broken \xe6\x97", 3)
	f.Fuzz(func(t *testing.T, content string, budget int) {
		content = strings.ToValidUTF8(content, "\uFFFD") // vfs guarantees valid text
		budget = budget % 5000
		raw := utf8.RuneCountInString(content)
		if raw <= budget || budget < 0 {
			return // fits or meaningless: Load never calls truncate then
		}
		out, chars := truncate(wholeText(content), budget, func(k int) string { return testMarker(k, raw) })
		checkCut(t, content, budget, out)
		require.Equal(t, utf8.RuneCountInString(out), chars)
	})
}

func TestNormalize(t *testing.T) {
	tests := map[string]string{
		"a\r\nb\r\n  \n\t": "a\nb",
		"  lead\n":         "  lead",
		"lone\rcr":         "lone\ncr",
		" \n\r\n ":         "",
	}
	for in, want := range tests {
		assert.Equal(t, want, normalize(in), "%q", in)
	}
}
