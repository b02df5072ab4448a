package funcs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
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

func (e *RequiredError) Error() string {
	if e.Message == "" {
		return "required value is missing"
	}
	return e.Message
}

// FailError is returned by fail. Recover it with errors.As from the error template
// execution returns.
type FailError struct {
	Message string // the template author's message
}

func (e *FailError) Error() string {
	if e.Message == "" {
		return "template failed"
	}
	return e.Message
}

// errIncludeUnbound is what include does until the engine binds it.
var errIncludeUnbound = errors.New("include is not bound to a template set")

// required returns v, or a *RequiredError when v is nil (including a nil pointer, map,
// slice, func or channel) or a string holding only white space. Other zero
// values (0, false, empty collections) count as present.
func required(message string, v any) (any, error) {
	if isMissing(v) {
		return nil, &RequiredError{Message: message}
	}
	return v, nil
}

func isMissing(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return strings.TrimSpace(rv.String()) == ""
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return rv.IsNil()
	}
	return false
}

func fail(message string) (string, error) {
	return "", &FailError{Message: message}
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
		if strings.TrimSpace(line) == "" {
			line = ""
		} else {
			line = strings.Repeat(" ", width) + line
		}
		lines[i] = line
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
		if isXMLChar(r) {
			return r
		}
		return utf8.RuneError
	}, s))
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

// isXMLChar reports whether r matches the Char production of XML 1.0.
func isXMLChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' ||
		(r >= 0x20 && r <= 0xD7FF) ||
		(r >= 0xE000 && r <= 0xFFFD) ||
		(r >= 0x10000 && r <= utf8.MaxRune)
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

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
	var out []string
	for _, d := range dicts {
		out = slices.AppendSeq(out, maps.Keys(d))
	}
	slices.Sort(out)
	if out == nil {
		out = []string{}
	}
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

// stringOf converts a value to a string the way sprig's list helpers do.
func stringOf(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case error:
		return v.Error()
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprint(v)
}
