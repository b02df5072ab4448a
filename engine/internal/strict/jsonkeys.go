package strict

import (
	"bytes"
	"iter"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Member is an object member name as a JSON document writes it.
type Member struct {
	Key     string           // the dotted key, array indices left out
	Pointer jsontext.Pointer // the member's JSON pointer, indices included
	Pos                      // where its name is written
}

// JSONMembers yields each object member name of src in document order,
// repeats included, until the text stops being JSON. It reads tokens,
// which allocate, so it is for placing an error, not for a good
// document's decoding.
func JSONMembers(src []byte) iter.Seq[Member] {
	return func(yield func(Member) bool) {
		dec := jsontext.NewDecoder(bytes.NewReader(src), jsontext.AllowDuplicateNames(true))
		var names []string // the member name at each depth, "" in an array
		for {
			start := int(dec.InputOffset())
			for start < len(src) && strings.IndexByte(" \t\r\n,:", src[start]) >= 0 {
				start++
			}
			tok, err := dec.ReadToken()
			if err != nil {
				return
			}
			switch tok.Kind() {
			case '{', '[':
				names = append(names, "")
			case '}', ']':
				names = names[:len(names)-1]
			case '"':
				depth := dec.StackDepth()
				if kind, n := dec.StackIndex(depth); kind != '{' || n%2 == 0 {
					continue // a value, not a name
				}
				names[depth-1] = tok.String()
				var key []string
				for d := 1; d <= depth; d++ {
					if kind, _ := dec.StackIndex(d); kind == '{' {
						key = append(key, names[d-1])
					}
				}
				if !yield(Member{Key: strings.Join(key, "."), Pointer: dec.StackPointer(), Pos: Position(src, start)}) {
					return
				}
			}
		}
	}
}

// JSONKeyPos returns where the dotted key (array indices left out) is
// first written in a JSON document, or 0, 0.
func JSONKeyPos(src []byte, key string) (line, col int) {
	for m := range JSONMembers(src) {
		if m.Key == key {
			return m.Line, m.Col
		}
	}
	return 0, 0
}

// dottedKey is the dotted key of the member ptr names in src, or of the
// innermost one holding it when ptr ends in array indices; "" for none.
func dottedKey(src []byte, ptr jsontext.Pointer) string {
	var key string
	for m := range JSONMembers(src) {
		if m.Pointer == ptr {
			return m.Key
		}
		if strings.HasPrefix(string(ptr), string(m.Pointer)+"/") {
			key = m.Key
		}
	}
	return key
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
