package strict

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// jsonWalker reads a JSON document token by token beside the Go type it
// will be decoded into. encoding/json matches keys case-insensitively and
// lets a repeated key win silently, and it reports no position for an
// unknown key; the walk refuses all three, with positions, and records
// where each dotted key is written.
type jsonWalker struct {
	src       []byte
	dec       *json.Decoder
	positions map[string]int // dotted key -> byte offset of its first use
	err       error
	// broken is set at the first syntax error: the decoder does not
	// consume a bad token, so reading on would see it forever. The
	// decoder proper reports it, with its position.
	broken bool
}

func (w *jsonWalker) going() bool { return w.err == nil && !w.broken }

func newJSONWalker(src []byte) *jsonWalker {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	return &jsonWalker{src: src, dec: dec, positions: map[string]int{}}
}

// nextTokenStart is the offset of the next token, past separators.
func (w *jsonWalker) nextTokenStart() int {
	i := int(w.dec.InputOffset())
	for i < len(w.src) && strings.IndexByte(" \t\r\n,:", w.src[i]) >= 0 {
		i++
	}
	return i
}

func (w *jsonWalker) fail(offset int, key, format string, args ...any) {
	if w.err == nil {
		line, col := position(w.src, int64(offset))
		w.err = &PosError{Line: line, Col: col, Key: key, Msg: fmt.Sprintf(format, args...)}
	}
}

// unknown records that the object holds a key its Go type does not have.
func (w *jsonWalker) unknown(offset int, key string) {
	if w.err == nil {
		line, col := position(w.src, int64(offset))
		w.err = &PosError{Line: line, Col: col, Key: key, Unknown: true, Msg: fmt.Sprintf("unknown key %q", key)}
	}
}

// value reads one value whose Go type is t (nil: anything) at path.
func (w *jsonWalker) value(t reflect.Type, path string) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tok, err := w.dec.Token()
	if err != nil {
		w.broken = true
		return
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return
	}
	switch delim {
	case '[':
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for w.going() && w.dec.More() {
			w.value(elem, path)
		}
		w.dec.Token()
	case '{':
		w.object(t, path)
	}
}

// object reads the members of an object whose Go type is t, its "{"
// already read.
func (w *jsonWalker) object(t reflect.Type, path string) {
	seen := map[string]bool{}
	for w.going() && w.dec.More() {
		at := w.nextTokenStart()
		tok, err := w.dec.Token()
		if err != nil {
			w.broken = true
			return
		}
		key, _ := tok.(string)
		full := key
		if path != "" {
			full = path + "." + key
		}
		if seen[key] {
			w.fail(at, full, "key %q is given twice", full)
			return
		}
		seen[key] = true
		if _, ok := w.positions[full]; !ok {
			w.positions[full] = at
		}
		var next reflect.Type
		switch {
		case t == nil || t.Kind() == reflect.Interface:
		case t.Kind() == reflect.Map:
			next = t.Elem()
		case t.Kind() == reflect.Struct:
			f, ok := jsonField(t, key)
			if !ok {
				w.unknown(at, full)
				return
			}
			next = f
		}
		w.value(next, full)
	}
	w.dec.Token()
}

// jsonField finds the field a JSON key decodes into, matching the tag (or
// the field name) exactly, and looking through embedded structs as
// encoding/json does.
func jsonField(t reflect.Type, key string) (reflect.Type, bool) {
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
				if typ, ok := jsonField(ft, key); ok {
					return typ, true
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name == key {
			return f.Type, true
		}
	}
	return nil, false
}

// JSONKeyPos returns where the dotted key (array indices left out) is
// first written in a JSON document, or 0, 0.
func JSONKeyPos(src []byte, key string) (line, col int) {
	w := newJSONWalker(src)
	w.value(nil, "")
	if at, ok := w.positions[key]; ok {
		return position(src, int64(at))
	}
	return 0, 0
}
