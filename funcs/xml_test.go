package funcs

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEscapeXML(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain text", "plain text"},
		{`Tom & "Jerry" <3 'n' >`, "Tom &amp; &quot;Jerry&quot; &lt;3 &apos;n&apos; &gt;"},
		{"&amp;", "&amp;amp;"},
		{"</skill><skill>", "&lt;/skill&gt;&lt;skill&gt;"},
		{"tab\tnl\ncr\r", "tab\tnl\ncr\r"},
		{"nul\x00bell\x07esc\x1b", "nul\uFFFDbell\uFFFDesc\uFFFD"},
		{"bad\xffutf8\xc3", "bad\uFFFDutf8\uFFFD"},
		{"\uFFFE\uFFFF", "\uFFFD\uFFFD"},
		{"del\x7f c1\u0085 ok", "del\x7f c1\u0085 ok"},
		{"日本語 😀", "日本語 😀"},
	}
	for _, tt := range tests {
		got := escapeXML(tt.in)
		assert.Equal(t, tt.want, got, "%q", tt.in)
		assertParsesAs(t, tt.in, got)
	}
}

func FuzzXML(f *testing.F) {
	for _, s := range []string{"", "a&b", `"'<>`, "\x00\x01\x1f", "\xff\xfe", "\r\n\r", "\uFFFE", "]]>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		assertParsesAs(t, s, escapeXML(s))
	})
}

// assertParsesAs checks that escaped, as element text and as an attribute value, parses
// with encoding/xml back to in (with invalid characters as U+FFFD and line ends
// normalized as XML parsers must).
func assertParsesAs(t *testing.T, in, escaped string) {
	t.Helper()
	require.True(t, utf8.ValidString(escaped), "output is not valid UTF-8: %q", escaped)
	want := xmlOracle(in)

	var elem struct {
		Attr string `xml:"a,attr"`
		Text string `xml:",chardata"`
	}
	doc := `<e a="` + escaped + `">` + escaped + `</e>`
	dec := xml.NewDecoder(strings.NewReader(doc))
	require.NoError(t, dec.Decode(&elem), "escaped %q as %q", in, escaped)
	_, err := dec.Token()
	require.ErrorIs(t, err, io.EOF)
	assert.Equal(t, want, elem.Text)
	assert.Equal(t, want, elem.Attr) // encoding/xml skips attribute white-space normalization

}

// xmlOracle is what a parser should read back: each invalid byte or forbidden character
// as U+FFFD, CRLF and CR as LF.
func xmlOracle(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		allowed := r == 0x9 || r == 0xA || r == 0xD || (r >= 0x20 && r < 0xFFFE && (r < 0xD800 || r > 0xDFFF)) || r >= 0x10000
		if !allowed {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(b.String())
}
