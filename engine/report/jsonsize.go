package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// jsonChars returns how many characters marshal writes for v, without
// building the text: the report sizes every tool schema on every render.
// Key order does not change the length, so maps need no sorting. Values
// of other types fall back to marshal.
func jsonChars(v any) int {
	switch v := v.(type) {
	case nil:
		return 4
	case bool:
		if v {
			return 4
		}
		return 5
	case string:
		return jsonStringChars(v)
	case json.Number:
		return len(v)
	case float64:
		return floatChars(v)
	case int64:
		return len(strconv.FormatInt(v, 10))
	case int:
		return len(strconv.Itoa(v))
	case []any:
		n := 2 + max(0, len(v)-1) // brackets and commas
		for _, e := range v {
			n += jsonChars(e)
		}
		return n
	case map[string]any:
		n := 2 + max(0, len(v)-1)
		for k, e := range v {
			n += jsonStringChars(k) + 1 + jsonChars(e)
		}
		return n
	}
	b, err := marshal(v)
	if err != nil {
		return 0
	}
	return utf8.RuneCount(b)
}

// marshal encodes v as the provider bodies send a tool schema: keys
// sorted and "<", ">" and "&" as they are, where json.Marshal would
// write six characters ("\u003c") for each.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// asciiJSONChars is how many characters marshal writes for each
// ASCII byte inside a string.
var asciiJSONChars = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
			t[c] = 2
		case c < 0x20:
			t[c] = 6 // \u00XX
		default:
			t[c] = 1
		}
	}
	return t
}()

// jsonStringChars counts a quoted JSON string as marshal writes it.
func jsonStringChars(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n += int(asciiJSONChars[c])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6 // \ufffd
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n++
		}
		i += size
	}
	return n
}

// floatChars matches encoding/json's float64 formatting.
func floatChars(f float64) int {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0 // json.Marshal refuses these; the schema would not encode
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(make([]byte, 0, 32), f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9, as encoding/json does
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			return n - 1
		}
	}
	return len(b)
}
