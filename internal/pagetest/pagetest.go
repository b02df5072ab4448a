// Package pagetest reads the context report's web page the way its tests
// need: parse it, find elements by attribute, read their text, and list
// everything that would make a browser fetch something. It is test
// support: only _test.go files import it.
package pagetest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// Parse parses a page, failing the test on error.
func Parse(t *testing.T, page string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	require.NoError(t, err)
	return doc
}

// All returns the elements under n, in document order, that match.
func All(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && match(d) {
			out = append(out, d)
		}
	}
	return out
}

// WithAttr matches elements that have the attribute key.
func WithAttr(key string) func(*html.Node) bool {
	return func(n *html.Node) bool {
		_, ok := Attr(n, key)
		return ok
	}
}

// Tag matches elements named tag that have the attribute key.
func Tag(tag, key string) func(*html.Node) bool {
	return func(n *html.Node) bool {
		_, ok := Attr(n, key)
		return n.Data == tag && ok
	}
}

// WithClass matches elements whose class list holds class.
func WithClass(class string) func(*html.Node) bool {
	return func(n *html.Node) bool {
		v, _ := Attr(n, "class")
		for _, c := range strings.Fields(v) {
			if c == class {
				return true
			}
		}
		return false
	}
}

// ByID returns the element with the id, failing the test when there is
// not exactly one.
func ByID(t *testing.T, doc *html.Node, id string) *html.Node {
	t.Helper()
	found := All(doc, func(n *html.Node) bool { v, _ := Attr(n, "id"); return v == id })
	require.Len(t, found, 1, "elements with id %q", id)
	return found[0]
}

// Attr returns an attribute's value and whether it is there.
func Attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// Text is the text under n, as a browser would show it before layout.
func Text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}

// Cells is the text of a table row's cells, trimmed: what people read in
// the row.
func Cells(row *html.Node) []string {
	var out []string
	for _, c := range Children(row) {
		out = append(out, strings.TrimSpace(Text(c)))
	}
	return out
}

// Cards maps each card's label (<dt>) in a <dl class="cards"> to the
// value shown under it (<dd>), as people read them.
func Cards(t *testing.T, dl *html.Node) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, card := range Children(dl) {
		var label, value string
		for _, c := range Children(card) {
			switch c.Data {
			case "dt":
				label = Text(c)
			case "dd":
				value = Text(c)
			}
		}
		require.NotContains(t, out, label, "two cards labelled %q", label)
		out[label] = value
	}
	return out
}

// Children returns n's child elements.
func Children(n *html.Node) []*html.Node {
	var out []*html.Node
	for c := range n.ChildNodes() {
		if c.Type == html.ElementNode {
			out = append(out, c)
		}
	}
	return out
}

// fetching are the elements whose only purpose is to load something.
var fetching = map[string]bool{
	"script": true, "link": true, "img": true, "iframe": true, "frame": true, "object": true,
	"embed": true, "base": true, "audio": true, "video": true, "source": true, "track": true,
	"picture": true, "svg": true, "form": true, "portal": true,
}

// urlAttrs are the attributes that take a URL.
var urlAttrs = map[string]bool{
	"src": true, "href": true, "srcset": true, "action": true, "formaction": true, "poster": true,
	"data": true, "background": true, "manifest": true, "ping": true, "cite": true, "longdesc": true,
}

// cssLoads lists what in a style sheet makes a browser load something:
// @import, image-set(), and url() other than a data: URL.
func cssLoads(css string) []string {
	lower := strings.ToLower(css)
	var out []string
	for _, word := range []string{"@import", "image-set("} {
		if strings.Contains(lower, word) {
			out = append(out, word)
		}
	}
	for rest := lower; ; {
		i := strings.Index(rest, "url(")
		if i < 0 {
			return out
		}
		rest = rest[i+len("url("):]
		if arg := strings.TrimLeft(rest, " \t\n'\""); !strings.HasPrefix(arg, "data:") {
			out = append(out, "url("+arg[:min(len(arg), 40)])
		}
	}
}

// ExternalRefs lists every element, attribute or style rule in the page
// that would make a browser load something, as short descriptions. A
// self-contained page has none.
func ExternalRefs(doc *html.Node) []string {
	var refs []string
	for d := range doc.Descendants() {
		if d.Type != html.ElementNode {
			continue
		}
		if fetching[d.Data] {
			refs = append(refs, "<"+d.Data+"> element")
		}
		for _, a := range d.Attr {
			switch {
			case urlAttrs[a.Key] && !strings.HasPrefix(a.Val, "#") && !strings.HasPrefix(a.Val, "data:"):
				refs = append(refs, a.Key+"="+a.Val)
			case a.Key == "style":
				refs = append(refs, cssLoads(a.Val)...)
			}
		}
		if d.Data == "style" {
			refs = append(refs, cssLoads(Text(d))...)
		}
	}
	return refs
}
