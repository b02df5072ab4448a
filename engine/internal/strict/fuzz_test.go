package strict

import (
	"errors"
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

// JSON and JSONKeyPos read any text without panicking or looping, and a
// position they give is inside the text.
func FuzzJSON(f *testing.F) {
	f.Add(`{"a": "x", "m": {"k": [1, {"z": null}]}, "l": [{"b": true}]}`)
	f.Add(`{"a": 1, "a": 2}`)
	f.Add(`{"\u0061": "\"}"}`)
	f.Add(`{"a": [1, 2,`)
	f.Fuzz(func(t *testing.T, src string) {
		var v struct {
			A any            `json:"a"`
			M map[string]any `json:"m"`
			L []struct {
				B bool `json:"b"`
			} `json:"l"`
		}
		lines := strings.Split(src, "\n")
		inside := func(line, col int) bool {
			return line >= 1 && line <= len(lines) && col >= 1 && col <= len(lines[line-1])+1
		}
		var pe *PosError
		if errors.As(JSON([]byte(src), &v), &pe) && !inside(pe.Line, pe.Col) {
			t.Fatalf("error %v is outside the text", pe)
		}
		for _, key := range []string{"a", "m.k", "l.b"} {
			if line, col := JSONKeyPos([]byte(src), key); line != 0 && !inside(line, col) {
				t.Fatalf("%s at %d:%d is outside the text", key, line, col)
			}
		}
	})
}
