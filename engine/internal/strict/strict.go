// Package strict decodes TOML and JSON documents into Go values and refuses
// what a lenient decoder would let through: unknown keys, wrong types and
// syntax errors all come back as a *PosError carrying the line and column
// of the offending key, so a typo in a manifest or config never silently
// falls back to a default.
package strict

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/sysprompt/sysprompt/internal/echo"
	"github.com/sysprompt/sysprompt/internal/hint"
)

// PosError is a decoding error at a position in a document. Line and Col
// are 1-based; zero means unknown.
type PosError struct {
	Line, Col int
	Key       string // dotted key the error is about, if any
	Unknown   bool   // Key is not one the target type has
	Msg       string
}

func (e *PosError) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// TOML decodes src into v. Every key in src must map onto v. A document
// over MaxBytes, one nesting deeper than MaxDepth, and one that is not
// UTF-8 is refused before it is parsed.
func TOML(src string, v any) error {
	if err := checkInput(src, true); err != nil {
		return err
	}
	md, err := toml.Decode(src, v)
	if err != nil {
		return tomlError(src, err)
	}
	var keys []string
	for _, k := range md.Undecoded() {
		if !openEnded(reflect.TypeOf(v), k) {
			keys = append(keys, k.String())
		}
	}
	// BurntSushi/toml fills a field from a key in any case
	// ("bootstrapmaxchars"); keys are exact, so such a key is unknown.
	for _, k := range md.Keys() {
		if _, ok := TypeAt(reflect.TypeOf(v), k); !ok && !slices.Contains(keys, k.String()) {
			keys = append(keys, k.String())
		}
	}
	if len(keys) > 0 {
		doc := ScanTOML(src)
		sort.SliceStable(keys, func(i, j int) bool {
			li, _ := doc.Locate(keys[i], 1)
			lj, _ := doc.Locate(keys[j], 1)
			return li < lj
		})
		key := outermost(keys)
		line, col := locateOrParent(doc, key)
		return &PosError{Line: line, Col: col, Key: key, Unknown: true, Msg: unknownKey(key, tomlKeys(reflect.TypeOf(v), key))}
	}
	return tablesForMaps(src, md, reflect.TypeOf(v))
}

// tablesForMaps refuses a value that is not a table where v holds a map:
// BurntSushi/toml leaves the map empty then, without an error. A key's
// type in md is that of its last definition, so each "k = v" line of a
// key that decodes into a map is looked at too.
func tablesForMaps(src string, md toml.MetaData, t reflect.Type) error {
	var doc *TOMLDoc
	seen := map[string]bool{}
	for _, k := range md.Keys() {
		if kt, ok := TypeAt(t, k); !ok || kt.Kind() != reflect.Map {
			continue
		}
		key := k.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		if doc == nil {
			doc = ScanTOML(src)
		}
		key = normalizeKey(key)
		fail := func(line, col int) error {
			return &PosError{Line: line, Col: col, Key: key, Msg: fmt.Sprintf("key %s must be a table", echo.Quote(key))}
		}
		for _, e := range doc.entries {
			if e.kind == keyEntry && e.key == key && !strings.HasPrefix(strings.TrimSpace(e.value), "{") {
				return fail(e.pos.Line, e.pos.Col)
			}
		}
		if md.Type(k...) != "Hash" {
			return fail(locateOrParent(doc, key))
		}
	}
	return nil
}

// locateOrParent is doc.Locate(key, 1), or where the nearest enclosing key
// is written when the scan cannot find key itself (inside a table of an
// array of inline tables, say).
func locateOrParent(doc *TOMLDoc, key string) (line, col int) {
	line, col = doc.Locate(key, 1)
	for at := key; line == 0 && strings.Contains(at, "."); {
		at = at[:strings.LastIndexByte(at, '.')]
		line, col = doc.Locate(at, 1)
	}
	return line, col
}

// openEnded reports whether key falls under a value of type any (a JSON
// schema, say): BurntSushi/toml lists the keys inside such values as
// undecoded though they were kept.
func openEnded(t reflect.Type, key toml.Key) bool {
	t, ok := TypeAt(t, key)
	return ok && elem(t).Kind() == reflect.Interface
}

// TypeAt is the type the dotted key parts decode into under t, looking
// through pointers, and through lists and map values on the way; past a
// value of type any it is that any. It reports false for a key t has no
// place for.
func TypeAt(t reflect.Type, parts []string) (reflect.Type, bool) {
	for _, part := range parts {
		switch t = elem(t); t.Kind() {
		case reflect.Interface:
			return t, true
		case reflect.Map:
			t = t.Elem()
		case reflect.Struct:
			f, ok := FieldByKey(t, part)
			if !ok {
				return nil, false
			}
			t = f
		default:
			return nil, false
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t, true
}

// elem is what t holds through pointers, lists and arrays.
func elem(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	return t
}

// FieldByKey finds the struct field a TOML key decodes into, looking
// through embedded structs.
func FieldByKey(t reflect.Type, key string) (reflect.Type, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if typ, ok := FieldByKey(ft, key); ok {
					return typ, true
				}
			}
			continue
		}
		if name == key || name == "" && strings.EqualFold(f.Name, key) {
			return f.Type, true
		}
	}
	return nil, false
}

// unknownKey is the message for an unknown dotted key, suggesting the
// known key of its table a typo most likely meant.
func unknownKey(key string, known []string) string {
	return "unknown key " + echo.Quote(key) + hint.Suffix(key[strings.LastIndexByte(key, '.')+1:], known)
}

// tomlKeys lists the keys the table holding the dotted key accepts: the
// toml names of the struct its parent decodes into; none for a map.
func tomlKeys(t reflect.Type, key string) []string {
	parts := strings.Split(key, ".")
	t, ok := TypeAt(t, parts[:len(parts)-1])
	if !ok || elem(t).Kind() != reflect.Struct {
		return nil
	}
	t = elem(t)
	var names []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		switch {
		case f.Anonymous && name == "":
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			names = append(names, tomlKeys(reflect.PointerTo(ft), "x")...)
		case name == "" && f.IsExported():
			names = append(names, f.Name)
		case name != "" && name != "-":
			names = append(names, name)
		}
	}
	return names
}

// outermost picks the first reported key that is not inside another
// reported key, so "[bogus] a = 1" is reported as "bogus", not "bogus.a".
func outermost(keys []string) string {
	best := keys[0]
	for _, k := range keys {
		if strings.HasPrefix(best, k+".") {
			best = k
		}
	}
	return best
}

// tomlError turns BurntSushi/toml's two error shapes into a PosError: a
// ParseError (syntax, or a value an UnmarshalText refused) carries its
// position; a type mismatch carries only text, read by splitTypeError.
func tomlError(src string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		if pe.LastKey != "" && !strings.Contains(msg, pe.LastKey) {
			msg = fmt.Sprintf("%s (key %s)", msg, echo.Quote(pe.LastKey))
		}
		return &PosError{Line: pe.Position.Line, Col: column(src, pe.Position), Key: pe.LastKey, Msg: msg}
	}
	line, key, msg := splitTypeError(err.Error())
	if key == "" {
		return &PosError{Line: line, Msg: msg}
	}
	// The key as written on the error's line (the n-th [[entry]] of an
	// array of tables, say), or its first definition when the line is
	// not known.
	l, c := ScanTOML(src).Locate(normalizeKey(key), max(line, 1))
	if line == 0 {
		line = l
	}
	if l != line {
		c = 0
	}
	return &PosError{Line: line, Col: c, Key: key, Msg: fmt.Sprintf("key %s: %s", echo.Quote(key), msg)}
}

// splitTypeError takes the line and key out of BurntSushi/toml's message
// for a value of the wrong type. The library builds that error with
// fmt.Errorf (MetaData.e in its decode.go), not as a ParseError, so the
// text is the only place the line and key are; this is the one place
// that reads BurntSushi/toml's message text. Its shapes are
//
//	toml: line N (last key "k"): msg
//	toml: (last key "k"): msg      (the library does not know the line)
//	toml: msg                      (nor the key)
//
// where "k" is a toml.Key quoted with %q. Text of any other shape comes
// back whole as msg, less the "toml: " prefix.
func splitTypeError(text string) (line int, key, msg string) {
	whole := strings.TrimPrefix(text, "toml: ")
	rest := whole
	if after, ok := strings.CutPrefix(rest, "line "); ok {
		digits := len(after) - len(strings.TrimLeft(after, "0123456789"))
		if n, err := strconv.Atoi(after[:digits]); err == nil {
			line, rest = n, strings.TrimPrefix(after[digits:], " ")
		}
	}
	if after, ok := strings.CutPrefix(rest, "(last key "); ok {
		if q, err := strconv.QuotedPrefix(after); err == nil {
			if k, err := strconv.Unquote(q); err == nil {
				key, rest = k, strings.TrimPrefix(after[len(q):], ")")
			}
		}
	}
	msg, ok := strings.CutPrefix(rest, ": ")
	if !ok || line == 0 && key == "" {
		return 0, "", whole
	}
	return line, key, msg
}

// column recomputes the column of a parse error from its byte offset:
// the library's own column is off when the error is at a line's start.
func column(src string, p toml.Position) int {
	lines := strings.SplitAfter(src, "\n")
	if p.Line < 1 || p.Line > len(lines) {
		return p.Col
	}
	start := 0
	for _, l := range lines[:p.Line-1] {
		start += len(l)
	}
	if c := p.Start - start + 1; c >= 1 && c <= len(lines[p.Line-1])+1 {
		return c
	}
	return 1
}

// LocateKey finds where the dotted key is defined in a TOML document: the
// key on a "k = v" line (inside the right table), or the header of the
// table it names. It returns 0, 0 when the key is not found. Array
// indices are not part of the key, matching toml.Key.
func LocateKey(src, key string) (line, col int) {
	return ScanTOML(src).Locate(key, 1)
}

// JSON decodes src into v, refusing unknown, repeated and wrongly cased
// keys and trailing data, each at its position. Like TOML, it first
// refuses a document over MaxBytes, one nesting deeper than MaxDepth, and
// one that is not UTF-8. A number decoded into an interface is a
// json.Number, its text as written: a float64 would round
// 9007199254740993 and respell 1.5e300. v is normally a zero value: into
// one already filled in, a null clears a field and an object is merged.
func JSON(src []byte, v any) error {
	if err := checkInput(string(src), false); err != nil {
		return err
	}
	if err := jsonv2.Unmarshal(src, v, jsonOptions); err != nil {
		return jsonError(src, err)
	}
	return nil
}

// jsonOptions make jsonv2 refuse a key v has no place for (it already
// refuses a repeated one, and matches keys exactly) and keep the text of
// numbers decoded into an interface.
var jsonOptions = jsonv2.JoinOptions(
	jsonv2.RejectUnknownMembers(true),
	jsonv2.WithUnmarshalers(jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, v *any) error {
		if dec.PeekKind() != '0' {
			return jsonv2.SkipFunc
		}
		tok, err := dec.ReadToken()
		if err == nil {
			*v = json.Number(tok.String())
		}
		return err
	})),
)

// jsonError words jsonv2's errors as this package does TOML's, placed at
// the byte they name; the end of the text for one with no place.
func jsonError(src []byte, err error) error {
	end := int64(len(bytes.TrimRight(src, " \t\r\n")))
	if end == 0 {
		return &PosError{Line: 1, Col: 1, Msg: "empty document"}
	}
	// A syntax error comes first, wherever it is (jsonv2 stops at the
	// first mistake it meets, an unknown key before it, say), in the words
	// jsontext finds reading the text as one value: the token reader
	// blames a trailing comma, not the bracket after it.
	if syntax := wholeValueError(src); syntax != nil {
		err = syntax
	}
	if se, ok := errors.AsType[*jsontext.SyntacticError](err); ok {
		line, col := position(src, se.ByteOffset)
		switch {
		case errors.Is(se.Err, io.ErrUnexpectedEOF):
			line, col = position(src, end)
			return &PosError{Line: line, Col: col, Msg: "unexpected end of JSON input"}
		case errors.Is(se.Err, jsontext.ErrDuplicateName):
			key := dottedKey(src, se.JSONPointer)
			return &PosError{Line: line, Col: col, Key: key, Msg: fmt.Sprintf("key %s is given twice", echo.Quote(key))}
		}
		return &PosError{Line: line, Col: col, Msg: se.Err.Error()}
	}
	if se, ok := errors.AsType[*jsonv2.SemanticError](err); ok {
		line, col := position(src, se.ByteOffset)
		key := dottedKey(src, se.JSONPointer)
		if errors.Is(se.Err, jsonv2.ErrUnknownName) {
			return &PosError{Line: line, Col: col, Key: key, Unknown: true, Msg: unknownKey(key, jsonKeys(se.GoType))}
		}
		kind, want := JSONKind(byte(se.JSONKind)), se.GoType
		if te, ok := errors.AsType[*json.UnmarshalTypeError](se.Err); ok { // from an UnmarshalJSON
			kind, want = te.Value, te.Type
		} else if want == nil || se.Err != nil && !errors.Is(se.Err, strconv.ErrSyntax) && !errors.Is(se.Err, strconv.ErrRange) {
			// Another error of an UnmarshalJSON, say: its words.
			return &PosError{Line: line, Col: col, Key: key, Msg: strings.TrimPrefix(cmp.Or(se.Err, err).Error(), "json: ")}
		}
		msg := fmt.Sprintf("cannot use a JSON %s here (want %s)", kind, kindName(want))
		if key != "" {
			msg = fmt.Sprintf("key %s: %s", echo.Quote(key), msg)
		}
		return &PosError{Line: line, Col: col, Key: key, Msg: msg}
	}
	line, col := position(src, end)
	return &PosError{Line: line, Col: col, Msg: strings.TrimPrefix(err.Error(), "json: ")}
}

// position converts a byte offset into a 1-based line and column.
func position(src []byte, offset int64) (line, col int) {
	offset = max(0, min(offset, int64(len(src))))
	before := src[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// LocateKeyAfter is LocateKey for a key of an array-of-tables entry: it
// returns the first definition at or after line from (1-based), so the
// caller can point into the n-th [[entry]] by passing its header line.
func LocateKeyAfter(src, key string, from int) (line, col int) {
	return ScanTOML(src).Locate(key, from)
}

// Headers returns the 1-based lines of every "[[name]]" header, in order.
func Headers(src, name string) []int {
	return ScanTOML(src).Headers(name)
}

// wholeValueError is the syntax error of reading src as one JSON value
// with nothing after it, or nil. A repeated key is not one: Unmarshal
// reports it in its place among the other keys.
func wholeValueError(src []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(src), jsontext.AllowDuplicateNames(true))
	if _, err := dec.ReadValue(); err != nil {
		return err
	}
	if rest := bytes.TrimLeft(src[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return &jsontext.SyntacticError{ByteOffset: int64(len(src) - len(rest)), Err: errAfterValue}
	}
	return nil
}

var errAfterValue = errors.New("unexpected data after the JSON value")

// JSONKind names the kind of JSON value that starts with the byte first,
// as a message does.
func JSONKind(first byte) string {
	switch first {
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "number"
}

// kindName names what a Go type holds in JSON terms; a named type's Go
// name (pack.Mode) means nothing to the person writing the document.
func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}
