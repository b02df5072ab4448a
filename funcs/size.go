package funcs

import "reflect"

// ElementSize is what each element of a list or map weighs besides what
// it holds: about what an interface value takes in memory.
const ElementSize = 16

// MaxDepth bounds how deeply a value may nest: printing or encoding a
// value recurses once per level.
const MaxDepth = 64

// weighValue returns about the bytes v takes, found depth levels down:
// a string's bytes, ElementSize for each element of a list or map plus
// what the element holds, and 1 for anything else (numbers, and the
// structs and pointers only the section data holds). deep reports
// nesting past MaxDepth. At a negative depth it does not look inside a
// list or map.
func weighValue(v reflect.Value, depth int) (n int, deep bool) {
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Invalid, reflect.Interface:
		return 0, false
	case reflect.String:
		return v.Len(), false
	case reflect.Slice, reflect.Array, reflect.Map:
	default:
		return 1, false
	}
	if v.Kind() != reflect.Map && v.Type().Elem().Kind() == reflect.Uint8 {
		return v.Len(), false
	}
	n = mulSize(v.Len(), ElementSize)
	if depth < 0 {
		return n, false
	}
	if depth >= MaxDepth {
		return 0, true
	}
	add := func(e reflect.Value) bool {
		w, d := weighValue(e, depth+1)
		n, deep = addSize(n, w), d
		return !d
	}
	if v.Kind() == reflect.Map {
		for it := v.MapRange(); it.Next() && add(it.Key()) && add(it.Value()); {
		}
		return n, deep
	}
	for i := 0; i < v.Len() && add(v.Index(i)); i++ {
	}
	return n, deep
}

// Shallow is what handing v to a function costs: a string's bytes, or
// ElementSize per element of a list or map, without looking inside;
// what the elements hold was weighed when it was made.
func Shallow(v reflect.Value) int {
	n, _ := weighValue(v, -1)
	return n
}

// argsSize is the size of a call's arguments with everything their lists
// and maps hold: what printing them reads, and about what it writes.
func argsSize(args []any) int {
	n := 0
	for _, a := range args {
		w, _ := weighValue(reflect.ValueOf(a), 0)
		n = addSize(n, w)
	}
	return n
}

// take asks b for n bytes on behalf of fn, and charges them.
func take(b Budget, fn string, n int) {
	b.Want(fn, n)
	b.Charge(fn, n)
}

// mulSize and addSize are a*b and a+b for sizes, saturating rather than
// wrapping round; a negative size counts as zero.
func mulSize(a, b int) int {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > (1<<62)/b {
		return 1 << 62
	}
	return a * b
}

func addSize(a, b int) int {
	return min(max(a, 0)+max(b, 0), 1<<62)
}
