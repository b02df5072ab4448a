package strict

import (
	"encoding/json"
	"errors"
	"reflect"
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

// fastShape has the kinds a request holds: strings, booleans, a pointer
// to one, nested objects, lists of objects, string maps, raw JSON kept by
// an UnmarshalJSON method; and an interface and a map of them.
type fastShape struct {
	S   string            `json:"s"`
	B   bool              `json:"b"`
	P   *bool             `json:"p"`
	L   []string          `json:"l"`
	M   map[string]string `json:"m"`
	Raw rawObject         `json:"raw"`
	O   struct {
		K string   `json:"k"`
		T []string `json:"t"`
	} `json:"o"`
	Items []struct {
		N   string    `json:"n"`
		Raw rawObject `json:"raw"`
	} `json:"items"`
	A  any            `json:"a"`
	AM map[string]any `json:"am"`
}

// rawObject keeps an object as written, as request.Schema does.
type rawObject []byte

func (r *rawObject) UnmarshalJSON(data []byte) error {
	if data[0] != '{' && data[0] != 'n' {
		return &json.UnmarshalTypeError{Value: "not an object", Type: reflect.TypeFor[map[string]any]()}
	}
	*r = append((*r)[:0], data...)
	return nil
}

// JSON never accepts what encoding/json refuses (keys matched exactly,
// numbers in an interface kept as written), and what it accepts it
// decodes to the same value.
func FuzzJSONAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{"s": "x", "b": true, "p": false, "l": ["a", "b"], "m": {"k": "v"}, "raw": {"a": [1, {"b": null}]}}`,
		`{"o": {"k": "\u00e9", "t": []}, "items": [{"n": "a", "raw": {}}, {"n": "b"}], "a": [1.5, "x", {"y": 1e300}], "am": {"n": -0}}`,
		`{"s": "a", "S": "b"}`, `{"s": "a", "\u0073": "b"}`, `{"raw": {"a": 1, "a": 2}}`, `{"S": "x"}`,
		`{"s": "\ud800"}`, `{"a": 1e400}`, `{"p": null, "l": null, "m": null}`, `{"raw": "x"}`, `{"s": 1}`,
		`{"items": [{"n": "a", "x": 1}]}`, `{"am": {"a": 9007199254740993}}`, `{"s": "x"} x`, ` {"s": "x"} `,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		var got, want fastShape
		if JSON([]byte(src), &got) != nil {
			return
		}
		dec := json.NewDecoder(strings.NewReader(src))
		dec.UseNumber()
		dec.DisallowUnknownFields()
		if err := dec.Decode(&want); err != nil || dec.More() {
			t.Fatalf("JSON took %q, which encoding/json refuses: %v", src, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q decodes to\n%#v\nand encoding/json to\n%#v", src, got, want)
		}
	})
}
