package strict

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/sysprompt/sysprompt/internal/echo"
)

// jsonWalker reads a JSON value beside the Go type it is decoded into.
// encoding/json matches keys case-insensitively and lets a repeated key
// win silently, and it reports no position for an unknown key; the walk
// refuses all three, with positions, and can record where each dotted key
// is written.
//
// The walk reads bytes, not the decoder's tokens, which cost several
// allocations each: JSON runs it only on a value the decoder has read
// whole, so syntax is the decoder's to judge. On anything else it stops
// at the first byte that does not fit, without an error.
type jsonWalker struct {
	src       []byte
	i         int            // the next byte to read
	positions map[string]int // dotted key -> byte offset of its first use; nil: not kept
	path      [][]byte       // the keys of the objects the walk is inside
	err       error
	stopped   bool // the text is not JSON where the walk got to
}

func (w *jsonWalker) going() bool { return w.err == nil && !w.stopped }

// peek returns the next byte past white space, or 0 at the end.
func (w *jsonWalker) peek() byte {
	for w.i < len(w.src) {
		switch c := w.src[w.i]; c {
		case ' ', '\t', '\r', '\n':
			w.i++
		default:
			return c
		}
	}
	return 0
}

// expect consumes c, the next byte past white space, or stops the walk.
func (w *jsonWalker) expect(c byte) {
	if w.peek() != c {
		w.stopped = true
		return
	}
	w.i++
}

func (w *jsonWalker) fail(offset int, key, format string, args ...any) {
	if w.err == nil {
		line, col := position(w.src, int64(offset))
		w.err = &PosError{Line: line, Col: col, Key: key, Msg: fmt.Sprintf(format, args...)}
	}
}

// unknown records that the object holds a key its Go type does not have.
func (w *jsonWalker) unknown(offset int, key string, known []string) {
	if w.err == nil {
		line, col := position(w.src, int64(offset))
		w.err = &PosError{Line: line, Col: col, Key: key, Unknown: true, Msg: unknownKey(key, known)}
	}
}

// value reads one value whose Go type is t (nil: anything) at w.path.
func (w *jsonWalker) value(t reflect.Type) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch w.peek() {
	case '{':
		w.i++
		w.object(t)
	case '[':
		w.i++
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for first := true; w.going() && w.peek() != ']'; first = false {
			if !first {
				w.expect(',')
			}
			w.value(elem)
		}
		w.expect(']')
	case '"':
		w.str()
	case 0:
		w.stopped = true
	default: // a number, true, false or null
		for w.i < len(w.src) && !endsScalar(w.src[w.i]) {
			w.i++
		}
	}
}

func endsScalar(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ',', ']', '}':
		return true
	}
	return false
}

// str reads a string and returns its text between the quotes, unescaped.
func (w *jsonWalker) str() []byte {
	start := w.i
	w.expect('"')
	escaped := false
	for w.going() && w.i < len(w.src) {
		switch w.src[w.i] {
		case '\\':
			escaped = true
			w.i += 2
		case '"':
			w.i++
			if !escaped {
				return w.src[start+1 : w.i-1]
			}
			var s string
			if json.Unmarshal(w.src[start:w.i], &s) != nil {
				w.stopped = true
			}
			return []byte(s)
		default:
			w.i++
		}
	}
	w.stopped = true
	return nil
}

// object reads the members of an object whose Go type is t, its "{"
// already read.
func (w *jsonWalker) object(t reflect.Type) {
	var seen keySet
	for first := true; w.going() && w.peek() != '}'; first = false {
		if !first {
			w.expect(',')
			w.peek()
		}
		at := w.i
		key := w.str()
		w.expect(':')
		if !w.going() {
			return
		}
		if seen.add(key) {
			full := w.dotted(key)
			w.fail(at, full, "key %s is given twice", echo.Quote(full))
			return
		}
		if w.positions != nil {
			if full := w.dotted(key); w.positions[full] == 0 {
				w.positions[full] = at + 1 // 0 means unset; see JSONKeyPos
			}
		}
		var next reflect.Type
		switch {
		case t == nil || t.Kind() == reflect.Interface:
		case t.Kind() == reflect.Map:
			next = t.Elem()
		case t.Kind() == reflect.Struct:
			fields := jsonFields(t)
			f, ok := fields[string(key)]
			if !ok {
				w.unknown(at, w.dotted(key), slices.Sorted(maps.Keys(fields)))
				return
			}
			next = f
		}
		w.path = append(w.path, key)
		w.value(next)
		w.path = w.path[:len(w.path)-1]
	}
	w.expect('}')
}

// dotted returns the dotted path of key in the object being read; the
// walk joins its keys only when a message or a position needs them.
func (w *jsonWalker) dotted(key []byte) string {
	var b strings.Builder
	for _, k := range w.path {
		b.Write(k)
		b.WriteByte('.')
	}
	b.Write(key)
	return b.String()
}

// keySet holds an object's keys: in place while few, in a map past
// that, so an object with many keys costs no more than a map.
type keySet struct {
	few  [8][]byte
	n    int
	many map[string]bool
}

// add adds key and reports whether it was there already.
func (s *keySet) add(key []byte) bool {
	if s.many == nil {
		for _, k := range s.few[:s.n] {
			if bytes.Equal(k, key) {
				return true
			}
		}
		if s.n < len(s.few) {
			s.few[s.n] = key
			s.n++
			return false
		}
		s.many = make(map[string]bool, 4*len(s.few))
		for _, k := range s.few {
			s.many[string(k)] = true
		}
	}
	if s.many[string(key)] {
		return true
	}
	s.many[string(key)] = true
	return false
}

// fieldCache holds jsonFields' maps, by struct type.
var fieldCache sync.Map // reflect.Type -> map[string]reflect.Type

// jsonFields maps each JSON key a struct type decodes to the type of its
// field, matching the tag (or the field name) exactly, and looking
// through embedded structs as encoding/json does.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := map[string]reflect.Type{}
	addJSONFields(m, t)
	fieldCache.Store(t, m)
	return m
}

// addJSONFields adds t's fields in order; an earlier field wins a name.
func addJSONFields(m map[string]reflect.Type, t reflect.Type) {
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
		if _, ok := m[name]; !ok {
			m[name] = f.Type
		}
	}
}

// JSONKeyPos returns where the dotted key (array indices left out) is
// first written in a JSON document, or 0, 0.
func JSONKeyPos(src []byte, key string) (line, col int) {
	w := &jsonWalker{src: src, positions: map[string]int{}}
	w.value(nil)
	if at := w.positions[key]; at > 0 {
		return position(src, int64(at-1))
	}
	return 0, 0
}
