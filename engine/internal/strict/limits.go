package strict

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The decoders recurse once per level of nesting and BurntSushi/toml
// spends time quadratic in a dotted key's length, so a document is
// checked against these bounds by a flat scan before either decoder
// sees it. Real requests, configs and packs nest a handful of levels
// and weigh a few kilobytes; a megabyte of JSON numbers already costs
// the decoders about 100 MiB of allocation.
const (
	// MaxBytes is the largest JSON document the decoders accept.
	MaxBytes = 1 << 20
	// MaxTOMLBytes is the largest TOML document: BurntSushi/toml
	// allocates several times more per byte than encoding/json.
	MaxTOMLBytes = 256 << 10
	// MaxDepth bounds how deeply arrays and objects nest in JSON, and in
	// TOML how deeply tables, arrays and dotted keys nest, all counted.
	MaxDepth = 32
)

// checkInput refuses a document that is too large, is not UTF-8, or
// nests deeper than MaxDepth, before any recursive parse.
func checkInput(src string, toml bool) error {
	limit := MaxBytes
	if toml {
		limit = MaxTOMLBytes
	}
	if len(src) > limit {
		line, col := position([]byte(src[:limit]), int64(limit))
		return &PosError{Line: line, Col: col, Msg: fmt.Sprintf("document is larger than %d bytes", limit)}
	}
	if err := checkEncoding(src); err != nil {
		return err
	}
	if toml {
		return tomlDepth(src).err(src)
	}
	return jsonDepth(src).err(src)
}

// checkEncoding refuses byte-order marks (UTF-8's is legal but almost
// always an editor's accident; UTF-16's means the file is not UTF-8)
// and any invalid UTF-8, at the first bad byte.
func checkEncoding(src string) error {
	for _, bom := range []string{"\xEF\xBB\xBF", "\xFE\xFF", "\xFF\xFE"} {
		if strings.HasPrefix(src, bom) {
			return &PosError{Line: 1, Col: 1, Msg: "document starts with a byte-order mark; save it as UTF-8 without one"}
		}
	}
	if utf8.ValidString(src) { // skips ASCII a word at a time
		return nil
	}
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRuneInString(src[i:])
		if r == utf8.RuneError && size == 1 {
			line, col := position([]byte(src[:i]), int64(i))
			return &PosError{Line: line, Col: col, Msg: fmt.Sprintf("invalid UTF-8 (byte 0x%02X); documents must be UTF-8", src[i])}
		}
		i += size
	}
	return nil
}

// tooDeep is where a scan found the document over a bound; offset < 0
// means it is within bounds.
type tooDeep struct {
	offset int
	what   string
}

var withinBounds = tooDeep{offset: -1}

func (t tooDeep) err(src string) error {
	if t.offset < 0 {
		return nil
	}
	line, col := position([]byte(src[:t.offset]), int64(t.offset))
	return &PosError{Line: line, Col: col, Msg: fmt.Sprintf("%s (limit %d)", t.what, MaxDepth)}
}

const nestedTooDeep = "arrays and objects nest too deeply"

// jsonDepth finds the first bracket that opens level MaxDepth+1.
func jsonDepth(src string) tooDeep {
	depth := 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '"':
			i = skipBasicString(src, i+1)
		case '[', '{':
			if depth++; depth > MaxDepth {
				return tooDeep{i, nestedTooDeep}
			}
		case ']', '}':
			depth = max(0, depth-1)
		}
	}
	return withinBounds
}

// skipBasicString returns the index of the closing quote of a string
// whose body starts at i (or len(src)-1 when it never closes), honouring
// backslash escapes.
func skipBasicString(src string, i int) int {
	for ; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(src) - 1
}

// tomlDepth finds the first place a TOML document nests deeper than
// MaxDepth, counting a table header's parts, a dotted key's parts, and
// every array and inline table a value opens, all added up along the
// path: BurntSushi/toml spends time and memory on every key in
// proportion to the square of its full path. It is a lexer's view, not
// a parser's: it tells headers, keys and values apart and skips strings
// and comments, and leaves every other judgement to the decoder.
func tomlDepth(src string) tooDeep {
	type level struct {
		array bool
		inner int // the depth of what the array or table holds directly
	}
	var stack []level
	table := 0 // the depth of the current [table]
	inKey, inHeader, arrayHeader := true, false, false
	parts := 1      // of the key or header being read
	valueDepth := 0 // of the value after the last '='
	base := func() int {
		if n := len(stack); n > 0 {
			return stack[n-1].inner
		}
		return table
	}
	const msg = "tables, arrays and dotted keys nest too deeply"
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			i-- // let the newline be seen
		case c == '"' || c == '\'':
			i = stringEnd(src, i) - 1
		case c == '\n' && len(stack) == 0:
			inKey, inHeader, parts = true, false, 1
		case inKey && len(stack) == 0 && !inHeader && c == '[':
			inHeader, parts = true, 1
			if arrayHeader = i+1 < len(src) && src[i+1] == '['; arrayHeader {
				i++
			}
		case inHeader && c == ']':
			table, inHeader = parts, false
			if arrayHeader {
				table++
				i++
			}
		case inHeader && c == '.':
			if parts++; parts > MaxDepth {
				return tooDeep{i, msg}
			}
		case inKey && c == '.':
			if parts++; base()+parts > MaxDepth {
				return tooDeep{i, msg}
			}
		case inKey && c == '=':
			inKey, valueDepth = false, base()+parts
		case (c == ']' || c == '}') && len(stack) > 0:
			stack = stack[:len(stack)-1]
			inKey = false
		case inKey:
		case c == '[' || c == '{':
			v := valueDepth
			if n := len(stack); n > 0 && stack[n-1].array {
				v = stack[n-1].inner
			}
			if v+1 > MaxDepth {
				return tooDeep{i, msg}
			}
			if c == '[' {
				stack = append(stack, level{array: true, inner: v + 1})
			} else {
				stack = append(stack, level{inner: v})
				inKey, parts = true, 1
			}
		case c == ',' && len(stack) > 0 && !stack[len(stack)-1].array:
			inKey, parts = true, 1
		}
	}
	return withinBounds
}
