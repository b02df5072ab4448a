package skills

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// stringsOf fills every list under v with one element and returns every
// string the catalog type can hold, found from the types, so a string
// field added later is checked too.
func stringsOf(v reflect.Value) []reflect.Value {
	switch v.Kind() {
	case reflect.String:
		return []reflect.Value{v}
	case reflect.Struct:
		var out []reflect.Value
		for i := range v.NumField() {
			out = append(out, stringsOf(v.Field(i))...)
		}
		return out
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		return stringsOf(v.Index(0))
	}
	return nil
}

// Catalog.Bytes counts every string a catalog holds: each one made
// longer makes it grow by as much.
func TestCatalogBytesCountsEveryString(t *testing.T) {
	var c Catalog
	fields := stringsOf(reflect.ValueOf(&c).Elem())
	assert.Greater(t, len(fields), 20)
	long := strings.Repeat("x", 1000)
	for i, f := range fields {
		before := c.Bytes()
		f.SetString(long)
		assert.GreaterOrEqual(t, c.Bytes()-before, len(long), "string %d of the catalog (%s) is not counted", i, f.Type())
	}
}
