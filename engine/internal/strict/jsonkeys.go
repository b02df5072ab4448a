package strict

import (
	"bytes"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// JSONKeyPositions calls found with where each member at the dotted key
// (array indices left out) is written, and the indices of the arrays on
// its way, in document order, until found returns false. It reads only
// the values on the key's way and skips the rest, so it costs one pass
// over src, whatever its nesting and names.
func JSONKeyPositions(src []byte, key string, found func(at Pos, indices []int) bool) {
	f := &keyFinder{dec: jsontext.NewDecoder(bytes.NewReader(src), jsontext.AllowDuplicateNames(true)), src: src, line: 1, found: found}
	f.value(key)
}

// JSONKeyPos returns where the dotted key (array indices left out) is
// first written in a JSON document, or 0, 0.
func JSONKeyPos(src []byte, key string) (line, col int) {
	JSONKeyPositions(src, key, func(at Pos, _ []int) bool {
		line, col = at.Line, at.Col
		return false
	})
	return line, col
}

// keyFinder is the state of a JSONKeyPositions walk.
type keyFinder struct {
	dec     *jsontext.Decoder
	src     []byte
	found   func(Pos, []int) bool
	indices []int
	// The walk reports positions in order, so it counts lines as it goes.
	line, lineStart, counted int
}

// value reads one value, looking in it for the member at the dotted key;
// false ends the walk (found said so, or the text stops being JSON).
func (f *keyFinder) value(key string) bool {
	switch f.dec.PeekKind() {
	case '{':
		f.dec.ReadToken()
		for f.dec.PeekKind() != '}' {
			at := f.nextToken()
			tok, err := f.dec.ReadToken()
			if err != nil {
				return false
			}
			// A name may hold a dot ("sonnet-4.5"): it is the key whole,
			// or the key's first names.
			name := tok.String()
			switch {
			case name == key:
				if !f.found(f.pos(at), f.indices) || f.dec.SkipValue() != nil {
					return false
				}
			case len(key) > len(name) && key[len(name)] == '.' && key[:len(name)] == name:
				if !f.value(key[len(name)+1:]) {
					return false
				}
			case f.dec.SkipValue() != nil:
				return false
			}
		}
	case '[':
		f.dec.ReadToken()
		f.indices = append(f.indices, 0)
		for i := 0; f.dec.PeekKind() != ']'; i++ {
			f.indices[len(f.indices)-1] = i
			if !f.value(key) {
				return false
			}
		}
		f.indices = f.indices[:len(f.indices)-1]
	default:
		return f.dec.SkipValue() == nil
	}
	_, err := f.dec.ReadToken() // the closing bracket
	return err == nil
}

// nextToken is the offset of the token the decoder reads next.
func (f *keyFinder) nextToken() int {
	at := int(f.dec.InputOffset())
	for at < len(f.src) && strings.IndexByte(" \t\r\n,:", f.src[at]) >= 0 {
		at++
	}
	return at
}

// pos is the position of offset, counting lines from the last one.
func (f *keyFinder) pos(offset int) Pos {
	for ; f.counted < offset; f.counted++ {
		if f.src[f.counted] == '\n' {
			f.line, f.lineStart = f.line+1, f.counted+1
		}
	}
	return Pos{Line: f.line, Col: offset - f.lineStart + 1}
}

// dottedKey is the dotted key (array indices left out) of the value ptr
// points to in src, read along ptr alone; as much of it as src holds.
func dottedKey(src []byte, ptr jsontext.Pointer) string {
	dec := jsontext.NewDecoder(bytes.NewReader(src), jsontext.AllowDuplicateNames(true))
	var key []string
	for tok := range ptr.Tokens() {
		switch kind, _ := dec.ReadToken(); kind.Kind() {
		case '{':
			for {
				name, err := dec.ReadToken()
				if err != nil || name.Kind() != '"' {
					return strings.Join(key, ".")
				}
				if name.String() == tok {
					key = append(key, tok)
					break
				}
				if dec.SkipValue() != nil {
					return strings.Join(key, ".")
				}
			}
		case '[':
			i, err := strconv.Atoi(tok)
			for ; err == nil && i > 0; i-- {
				err = dec.SkipValue()
			}
			if err != nil {
				return strings.Join(key, ".")
			}
		default:
			return strings.Join(key, ".")
		}
	}
	return strings.Join(key, ".")
}

// jsonKeys lists the keys a struct type takes, for an unknown key's
// hint: the tag (or the field name), through embedded structs.
func jsonKeys(t reflect.Type) []string {
	if t == nil || elem(t).Kind() != reflect.Struct {
		return nil
	}
	m := map[string]bool{}
	addJSONFields(m, elem(t))
	return slices.Sorted(maps.Keys(m))
}

// addJSONFields adds the names of t's fields to m.
func addJSONFields(m map[string]bool, t reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addJSONFields(m, ft)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = true
	}
}
