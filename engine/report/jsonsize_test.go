package report

import (
	"encoding/json"
	"math"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestJSONCharsMatchesMarshal(t *testing.T) {
	values := []any{
		nil, true, false, "", "plain", `quote " and \ back`, "tab\tnl\ncr\r\b\f", "<a>&</a>", "\x00\x1f", "ü 🪶 \u2028\u2029", "\xff bad",
		0.0, 1.0, -2.5, 1e20, 1e21, 1e-6, 1e-7, 123456789.125, math.SmallestNonzeroFloat64, -1e-300, int64(42), 7,
		json.Number("9007199254740993"), json.Number("1.5e300"), json.Number("-0.0"),
		[]any{}, []any{1.0, "x", nil, []any{true}},
		map[string]any{}, map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string", "description": "A <path> & \"more\""}}, "required": []any{"path"}},
		map[string]string{"other": "type"},
	}
	for _, v := range values {
		b, err := marshal(v)
		if err != nil {
			continue
		}
		assert.Equal(t, utf8.RuneCount(b), jsonChars(v), "%s", b)
	}
}

func FuzzJSONChars(f *testing.F) {
	f.Add("key", "value", 1.5)
	f.Add("<&>", "\x00\u2028", 1e-9)
	f.Fuzz(func(t *testing.T, k, s string, x float64) {
		v := map[string]any{k: []any{s, x, map[string]any{s: k}}}
		b, err := marshal(v)
		if err != nil {
			return
		}
		if got, want := jsonChars(v), utf8.RuneCount(b); got != want {
			t.Fatalf("jsonChars = %d, want %d for %s", got, want, b)
		}
	})
}
