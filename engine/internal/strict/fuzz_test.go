package strict

import (
	"strings"
	"testing"
)

// The scanner reads any text without panicking, and every position it
// gives is inside the text.
func FuzzScanTOML(f *testing.F) {
	f.Add("a = [\"x\", 'y', [1, {b = 2}], \"\"\"\n]\n\"\"\"]\n[[t]]\nk = '''\n[u]\n'''\n")
	f.Add("[[h.l]] # c\n  s = [\n  \"a\\\"\", # x = 1\n  \"b\"\n")
	f.Add("x = \"\"\"\n")
	f.Add("[")
	f.Fuzz(func(t *testing.T, src string) {
		doc := ScanTOML(src)
		lines := strings.Split(src, "\n")
		for _, e := range doc.entries {
			if e.pos.Line < 1 || e.pos.Line > len(lines) || e.pos.Col < 1 || e.pos.Col > len(lines[e.pos.Line-1])+1 {
				t.Fatalf("entry %+v is outside the text", e)
			}
		}
		for _, e := range doc.entries {
			doc.Locate(e.key+".x", 1)
			doc.Elements(e.table, e.n, e.rel)
			doc.Value(e.table, e.n, e.rel)
		}
	})
}
