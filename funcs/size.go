package funcs

import "reflect"

// ElementSize is what each element of a list or map weighs besides what
// it holds: about what an interface value takes in memory.
const ElementSize = 16

// MaxDepth bounds how deeply a value may nest: printing or encoding a
// value recurses once per level.
const MaxDepth = 64

// weigh returns about the bytes v takes, found depth levels down, and
// how many values fmt pads when it prints v: a string's bytes, one
// value; ElementSize for each element of a list or map plus what the
// element (and a map's key) holds; a byte slice's bytes, one value
// each; a struct's fields; 1 for anything else. Like fmt, it follows a
// pointer only at the top. deep reports nesting past MaxDepth. At a
// negative depth it does not look inside a list, map or struct.
func weigh(v reflect.Value, depth int) (n, leaves int, deep bool) {
	for (v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer && depth == 0) && !v.IsNil() {
		v = v.Elem()
	}
	switch k := v.Kind(); {
	case k == reflect.Invalid || k == reflect.Interface:
		return 0, 1, false
	case k == reflect.String:
		return v.Len(), 1, false
	case k == reflect.Map:
	case k == reflect.Slice || k == reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Len(), v.Len(), false
		}
	case k != reflect.Struct || depth < 0:
		return 1, 1, false
	}
	if v.Kind() != reflect.Struct {
		n = mulSize(v.Len(), ElementSize)
	}
	if depth < 0 || depth >= MaxDepth {
		return n, 1, depth >= 0
	}
	add := func(e reflect.Value) bool {
		w, l, d := weigh(e, depth+1)
		n, leaves, deep = addSize(n, w), addSize(leaves, l), d
		return !d
	}
	switch v.Kind() {
	case reflect.Map:
		for it := v.MapRange(); it.Next() && add(it.Key()) && add(it.Value()); {
		}
	case reflect.Struct:
		for i := 0; i < v.NumField() && add(v.Field(i)); i++ {
		}
	default:
		for i := 0; i < v.Len() && add(v.Index(i)); i++ {
		}
	}
	return n, leaves, deep
}

// Shallow is what handing v to a function costs: a string's bytes, or
// ElementSize per element of a list or map, without looking inside;
// what the elements hold was weighed when it was made.
func Shallow(v reflect.Value) int {
	n, _, _ := weigh(v, -1)
	return n
}

// argsSize is the size of a call's arguments with everything their lists
// and maps hold (what printing them reads, and about what it writes),
// and the most values printing one of them pads.
func argsSize(args []any) (n, leaves int) {
	for _, a := range args {
		w, l, _ := weigh(reflect.ValueOf(a), 0)
		n, leaves = addSize(n, w), max(leaves, l)
	}
	return n, leaves
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
