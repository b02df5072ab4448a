package engine

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	sysprompt "github.com/sysprompt/sysprompt"
)

// Lint's generated request must reach every branch a field can open, so
// it sets every field of the request, down to the fields of its structs;
// a field added to Request without a lint value fails here. The fields
// lint sweeps itself (mode, harness, chat type, session kind, and a light
// cron run) are left out.
func TestLintRequestSetsEveryField(t *testing.T) {
	e, err := New(sysprompt.Pack)
	require.NoError(t, err)
	swept := map[string]bool{"Mode": true, "Harness": true, "ChatType": true, "SessionKind": true, "LightContext": true}
	var check func(path string, v reflect.Value)
	check = func(path string, v reflect.Value) {
		if v.IsZero() {
			t.Errorf("lint's full request leaves %s unset", path)
			return
		}
		if v.Kind() == reflect.Struct {
			for i := range v.NumField() {
				if f := v.Type().Field(i); f.IsExported() && !swept[f.Name] {
					check(path+"."+f.Name, v.Field(i))
				}
			}
		}
	}
	check("Request", reflect.ValueOf(e.fullRequest()))
}
