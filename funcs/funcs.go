// Package funcs is the function map every template of a sysprompt pack is
// parsed and executed with: a short allowlist, each function typed and
// written here, none reading the clock, the environment, the host or
// randomness. A function not in the map is not there: a template calling
// it fails to parse with "function ... not defined". testdata/names.golden
// lists the names and documents each with an example its test runs.
//
// Trust model: a pack is the operator's code, run with the operator's
// authority. The bounds guard the embedding process against accidents
// and against packs the operator did not write: every function that can
// build a value larger than its arguments works out the size first and
// asks the [Budget] before building it, and every call charges the
// budget for the bytes it handles. What the budget allows, and the bounds
// on template execution itself, belong to the engine.
package funcs

import (
	"maps"
	"slices"
	"text/template"
)

// Budget is what a render allows its function calls. Each method panics
// once its bound is passed; text/template turns the panic into the
// call's error, which keeps the panic's value for errors.As.
type Budget interface {
	// Want refuses a value of about size bytes before it is built.
	Want(fn string, size int)
	// Deep refuses a value nesting more than MaxDepth levels.
	Deep(fn string)
	// Charge adds work, in bytes handled, to the render's total.
	Charge(fn string, work int)
}

// free is the budget of New(nil): everything is allowed.
type free struct{}

func (free) Want(string, int)   {}
func (free) Deep(string)        {}
func (free) Charge(string, int) {}

// New returns the function map, every call held to b (nil for no bound).
// include is a stand-in that fails: it executes templates, so the engine
// binds its own per template set. Build the map once per template set:
// every function is a closure over b.
func New(b Budget) template.FuncMap {
	if b == nil {
		b = free{}
	}
	m := template.FuncMap{
		"include": func(string, any) (string, error) { return "", errIncludeUnbound },
	}
	addText(m, b)
	addValues(m, b)
	addDicts(m, b)
	return m
}

// Names returns the names of every function in the map, sorted.
func Names() []string {
	return slices.Sorted(maps.Keys(New(nil)))
}
