package funcs

import (
	"reflect"
)

// elementSize is what each element of a list or map weighs besides what
// it holds: about what an interface value takes in memory.
const elementSize = 16

// weigh returns what v weighs for the bounds, roughly the bytes it takes:
// a string's bytes, elementSize for each element of a list or map plus
// what the element holds, through any nesting, and 1 for anything else
// (numbers, and structs and pointers, which only the section data holds:
// templates cannot build them). It stops counting once past limit, and
// reports a value nesting deeper than maxValueDepth.
func weigh(v any, limit int) (n int, deep bool) {
	switch x := v.(type) {
	case nil:
		return 0, false
	case string:
		return len(x), false
	case []byte:
		return len(x), false
	case bool, int, int64, float64:
		return 1, false
	}
	return weighValue(reflect.ValueOf(v), 0, limit, false)
}

// weighAll is weigh looking into structs and through pointers too: what
// comparing v with another value may have to read.
func weighAll(v any, limit int) int {
	n, _ := weighValue(reflect.ValueOf(v), 0, limit, true)
	return n
}

func weighValue(v reflect.Value, depth, limit int, all bool) (n int, deep bool) {
	switch v.Kind() {
	case reflect.Invalid:
		return 0, false
	case reflect.String:
		return v.Len(), false
	case reflect.Interface:
		if v.IsNil() {
			return 0, false
		}
		return weighValue(v.Elem(), depth, limit, all)
	case reflect.Pointer:
		if v.IsNil() || !all {
			return 1, false
		}
		if depth >= maxValueDepth { // a pointer may lead back round
			return 0, true
		}
		return weighValue(v.Elem(), depth+1, limit, all)
	case reflect.Struct:
		if !all {
			return 1, false
		}
	case reflect.Slice, reflect.Array, reflect.Map:
	default:
		return 1, false
	}
	if v.Kind() != reflect.Map && v.Type().Elem().Kind() == reflect.Uint8 {
		return v.Len(), false
	}
	if depth >= maxValueDepth {
		return 0, true
	}
	if v.Kind() == reflect.Struct {
		for i := 0; i < v.NumField() && n <= limit && !deep; i++ {
			var w int
			w, deep = weighValue(v.Field(i), depth+1, limit-n, all)
			n += w
		}
		return n, deep
	}
	n = mulSize(v.Len(), elementSize)
	add := func(e reflect.Value) bool {
		w, d := weighValue(e, depth+1, limit-n, all)
		n += w
		deep = d
		return !d && n <= limit
	}
	if v.Kind() == reflect.Map {
		for it := v.MapRange(); it.Next(); {
			if !add(it.Key()) || !add(it.Value()) {
				break
			}
		}
		return n, deep
	}
	for i := 0; i < v.Len() && add(v.Index(i)); i++ {
	}
	return n, deep
}

// shallow is what handing v to a function costs: a string's bytes, or
// elementSize per element of a list or map, without looking inside. What
// the elements hold was weighed when it was made.
func shallow(v reflect.Value) int {
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		return v.Len()
	case reflect.Slice, reflect.Array, reflect.Map:
		if v.Kind() != reflect.Map && v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Len()
		}
		return mulSize(v.Len(), elementSize)
	}
	return 1
}
