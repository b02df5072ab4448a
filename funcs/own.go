package funcs

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

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

// stringOf converts a value to a string the way sprig's list helpers do:
// fmt's %v, but a []byte is its bytes.
func stringOf(v any) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return fmt.Sprint(v)
}
