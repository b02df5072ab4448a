package funcs

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"unicode/utf8"
)

// maxIndent bounds the width indent and nindent accept, so a typo cannot allocate
// without limit.
const maxIndent = 256

// RequiredError is returned by required when its value is missing. Recover it with
// errors.As from the error template execution returns.
type RequiredError struct {
	Message string // the template author's message
}

func (e *RequiredError) Error() string { return cmp.Or(e.Message, "required value is missing") }

// FailError is returned by fail. Recover it with errors.As from the error template
// execution returns.
type FailError struct {
	Message string // the template author's message
}

func (e *FailError) Error() string { return cmp.Or(e.Message, "template failed") }

// errIncludeUnbound is what include does until the engine binds it.
var errIncludeUnbound = errors.New("include is not bound to a template set")

// required returns v, or a *RequiredError when v is nil (including a nil pointer, map,
// slice, func or channel) or a string holding only white space. Other zero
// values (0, false, empty collections) count as present.
func required(message string, v any) (any, error) {
	missing := v == nil
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.String:
		missing = strings.TrimSpace(rv.String()) == ""
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		missing = rv.IsNil()
	}
	if missing {
		return nil, &RequiredError{Message: message}
	}
	return v, nil
}

// empty reports whether v is nil, false, zero, or an empty string, list
// or dict: whether if and with would take it as false. A struct is never
// empty.
func empty(v any) bool {
	truth, _ := template.IsTrue(v)
	return !truth
}

// indent prefixes every line holding something other than white space with width
// spaces. Blank lines (empty or white space only) come out empty, so the result never
// gains trailing white space.
func indent(width int, s string) (string, error) {
	if width < 0 || width > maxIndent {
		return "", fmt.Errorf("indent width %d out of range [0, %d]", width, maxIndent)
	}
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		lines[i] = ""
		if strings.TrimSpace(line) != "" {
			lines[i] = strings.Repeat(" ", width) + line
		}
	}
	return strings.Join(lines, "\n"), nil
}

// nindent is indent with a newline in front, for use after a key on the same line.
func nindent(width int, s string) (string, error) {
	out, err := indent(width, s)
	return "\n" + out, err
}

// escapeXML makes s safe as XML 1.0 character data and attribute values: it escapes
// & < > " ' and replaces invalid UTF-8 bytes and characters XML 1.0 forbids (most C0
// controls, U+FFFE, U+FFFF) with U+FFFD, one per byte or character.
func escapeXML(s string) string {
	// strings.Map hands the mapping U+FFFD for each invalid byte.
	return xmlEscaper.Replace(strings.Map(func(r rune) rune {
		// The Char production of XML 1.0.
		if r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0xD7FF) ||
			(r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= utf8.MaxRune) {
			return r
		}
		return utf8.RuneError
	}, s))
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

func sha256Hex(s string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(s))) }

// tokens estimates a token count as ceil(n/4), where n is the number of
// code points in a string (an invalid UTF-8 byte counts as one) or a
// character count given as an integer.
func tokens(v any) (int, error) {
	var n int
	switch v := v.(type) {
	case string:
		n = utf8.RuneCountInString(v)
	case int:
		n = v
	default:
		return 0, fmt.Errorf("tokens: want a string or a character count, got %T", v)
	}
	if n < 0 {
		return 0, fmt.Errorf("tokens: negative character count %d", n)
	}
	return n/4 + min(n%4, 1), nil
}

// sortedKeys returns the keys of all dicts, sorted; a key in several dicts appears once
// per dict (as in sprig, which returns them in random order).
func sortedKeys(dicts ...map[string]any) []string {
	out := []string{}
	for _, d := range dicts {
		out = slices.AppendSeq(out, maps.Keys(d))
	}
	slices.Sort(out)
	return out
}

// valuesByKey returns the values of dict in the order of its sorted keys.
func valuesByKey(dict map[string]any) []any {
	out := make([]any, 0, len(dict))
	for _, k := range slices.Sorted(maps.Keys(dict)) {
		out = append(out, dict[k])
	}
	return out
}

// sortAlpha returns the elements of a slice or array as strings, sorted, skipping nil
// elements; any other non-nil value becomes a one-element list. Unlike sprig's, it never
// sorts the caller's []string in place.
func sortAlpha(list any) []string {
	out := append([]string{}, stringList(list)...)
	slices.Sort(out)
	return out
}

// quote quotes each argument that is not nil as a Go string literal,
// separated by spaces.
func quote(args ...any) string {
	out := stringList(args)
	for i, s := range out {
		out[i] = strconv.Quote(s)
	}
	return strings.Join(out, " ")
}

// stringOf converts a value to a string the way sprig's list helpers do:
// fmt's %v, but a []byte is its bytes.
func stringOf(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return fmt.Sprint(v)
}
