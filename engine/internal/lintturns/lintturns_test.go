package lintturns

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sysprompt "github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine/internal/pack"
)

// The full request must reach every branch a field can open, so it sets
// every field of the request, down to the fields of its structs; a field
// added to Request without a lint value fails here. The fields Sweep
// sets itself (mode, harness, chat type, session kind, light) are left
// out.
func TestFullRequestSetsEveryField(t *testing.T) {
	p, errs := pack.Load(sysprompt.Pack)
	require.Empty(t, errs)
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
	check("Request", reflect.ValueOf(fullRequest(p)))
}

// Every combination comes once per request kind, and only a cron run is
// light.
func TestSweepCrossesEveryCombination(t *testing.T) {
	p, errs := pack.Load(sysprompt.Pack)
	require.Empty(t, errs)
	seen := map[string]bool{}
	count := map[string]int{}
	for turn := range Sweep(p, []string{"a", "b"}) {
		r := turn.Request
		assert.Equal(t, turn.Name == "generated-light", r.LightContext)
		if r.LightContext {
			assert.Equal(t, "cron", r.SessionKind)
		}
		assert.False(t, seen[turn.Label()], "%s twice", turn.Label())
		seen[turn.Label()] = true
		count[turn.Name]++
	}
	combos := 2 * len(modes) * len(chats) * len(sessions)
	assert.Equal(t, map[string]int{"generated-full": combos, "generated-empty": combos, "generated-light": combos / len(sessions)}, count)
}
