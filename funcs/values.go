package funcs

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/bits"
	"reflect"
	"slices"
	"strings"
	"text/template"
	"unicode/utf8"
)

// addValues adds the functions that build values to m (list, append,
// dict, until, splitList, join, toJson, has): the builders check the size
// and nesting of what they make; has charges what it reads.
func addValues(m template.FuncMap, b Budget) {
	m["list"] = func(args ...any) []any {
		l := append([]any{}, args...)
		builtValue(b, "list", l)
		return l
	}
	m["append"] = func(list, v any) ([]any, error) {
		l, err := anyList("append", list)
		if err != nil {
			return nil, err
		}
		l = append(l, v)
		builtValue(b, "append", l)
		return l, nil
	}
	m["dict"] = func(args ...any) map[string]any {
		d := make(map[string]any, len(args)/2)
		args = append(args, "") // the value of a last key without one
		for i := 0; i+1 < len(args); i += 2 {
			d[stringOf(args[i])] = args[i+1]
		}
		builtValue(b, "dict", d)
		return d
	}
	m["until"] = func(n int) []int {
		take(b, "until", mulSize(n, ElementSize))
		l := make([]int, max(n, 0))
		for i := range l {
			l[i] = i
		}
		return l
	}
	m["splitList"] = func(sep, s string) []string {
		pieces := utf8.RuneCountInString(s)
		if sep != "" {
			pieces = strings.Count(s, sep) + 1
		}
		b.Want("splitList", addSize(len(s), mulSize(pieces, ElementSize)))
		b.Charge("splitList", len(s))
		return strings.Split(s, sep)
	}
	m["join"] = func(sep string, list any) string {
		strs := stringList(list)
		n := mulSize(max(len(strs)-1, 0), len(sep))
		for _, s := range strs {
			n = addSize(n, len(s))
		}
		take(b, "join", n)
		return strings.Join(strs, sep)
	}
	m["toJson"] = func(v any) (string, error) {
		builtValue(b, "toJson", v)
		out, err := json.Marshal(v)
		take(b, "toJson", len(out))
		return string(out), err
	}
	m["has"] = func(needle, list any) (bool, error) {
		l, err := anyList("has", list)
		// Each element may be compared with the whole needle.
		w, _, _ := weigh(reflect.ValueOf(needle), 0)
		b.Charge("has", mulSize(len(l), ElementSize+w))
		return slices.ContainsFunc(l, func(e any) bool { return reflect.DeepEqual(needle, e) }), err
	}
}

// addDicts adds the functions that read dicts and single values to m;
// each charges what it reads.
func addDicts(m template.FuncMap, b Budget) {
	// keys returns the keys of all dicts, sorted; a key in several dicts
	// appears once per dict (as in sprig, which returns them in random
	// order).
	m["keys"] = func(dicts ...map[string]any) []string {
		k := []string{}
		for _, d := range dicts {
			k = slices.AppendSeq(k, maps.Keys(d))
		}
		b.Charge("keys", SortWork(reflect.ValueOf(k)))
		slices.Sort(k)
		return k
	}
	m["values"] = func(d map[string]any) []any {
		b.Charge("values", SortWork(reflect.ValueOf(d)))
		v := make([]any, 0, len(d))
		for _, k := range slices.Sorted(maps.Keys(d)) {
			v = append(v, d[k])
		}
		return v
	}
	// sortAlpha never sorts the caller's []string in place, unlike
	// sprig's.
	m["sortAlpha"] = func(list any) []string {
		l := append([]string{}, stringList(list)...)
		b.Charge("sortAlpha", SortWork(reflect.ValueOf(l)))
		slices.Sort(l)
		return l
	}
	// A lookup hashes the key and compares it whole.
	m["get"] = func(d map[string]any, key string) any {
		b.Charge("get", len(key))
		if v, ok := d[key]; ok {
			return v
		}
		return ""
	}
	m["hasKey"] = func(d map[string]any, key string) bool {
		b.Charge("hasKey", len(key))
		_, ok := d[key]
		return ok
	}
	// default takes a value as given when if would take it as true.
	m["default"] = func(def any, given ...any) any {
		if len(given) > 0 {
			if set, _ := template.IsTrue(given[0]); set {
				return given[0]
			}
		}
		return def
	}
	m["ternary"] = func(yes, no any, cond bool) any {
		if cond {
			return yes
		}
		return no
	}
	m["required"] = required
	m["fail"] = func(message string) (string, error) { return "", &FailError{Message: message} }
}

// builtValue checks and charges a value a function made.
func builtValue(b Budget, fn string, v any) {
	n, _, deep := weigh(reflect.ValueOf(v), 0)
	if deep {
		b.Deep(fn)
	}
	take(b, fn, n)
}

// anyList is a list's elements; nil is an empty list.
func anyList(fn string, v any) ([]any, error) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Invalid:
		return nil, nil
	case reflect.Slice, reflect.Array:
		l := make([]any, rv.Len(), rv.Len()+1)
		for i := range l {
			l[i] = rv.Index(i).Interface()
		}
		return l, nil
	}
	return nil, fmt.Errorf("%s: want a list, got %T", fn, v)
}

// stringList is a list's elements as strings, nil elements left out; any
// other value that is not nil is a list of one.
func stringList(v any) []string {
	if s, ok := v.([]string); ok {
		return s
	}
	l, err := anyList("", v)
	if err != nil {
		l = []any{v}
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		if e != nil {
			out = append(out, stringOf(e))
		}
	}
	return out
}

// SortWork is about what sorting the elements of a list, or the keys of
// a map, reads: each takes part in about log2 n comparisons, and a
// comparison of two long strings that differ late reads them whole. A
// map's values are weighed with its keys, which errs high.
func SortWork(v reflect.Value) int {
	n, _, _ := weigh(v, 0)
	return mulSize(n, bits.Len(uint(v.Len())))
}
