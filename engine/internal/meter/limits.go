package meter

import (
	"cmp"
	"fmt"
	"reflect"
)

// Limits bound what the templates of one render may do, whatever the pack
// says. A zero field takes its default from DefaultLimits. The defaults
// are far above what a real prompt needs (the built-in pack writes about
// 40 KB and executes a few thousand template nodes), so only a runaway
// template meets them.
type Limits struct {
	// SectionOutput is how many bytes one section (or one include) may
	// write.
	SectionOutput int
	// PromptOutput is how many bytes all sections of one render may
	// write together.
	PromptOutput int
	// Value is the largest value a function may return, in about the
	// bytes it takes: a string's length, 16 for each element of a list or
	// map plus what the element holds.
	Value int
	// Work is how much one render's function calls may handle in all:
	// the sizes of every argument and result added up, in the same
	// units.
	Work int
	// Steps is how much template one render may execute, in nodes
	// (text, actions, control structures): each template's body counts
	// once per call and each range body once per iteration, whatever
	// they write or call.
	Steps int
	// Depth is how deeply template calls and range loops may nest
	// together, calls counted only in the templates that can call
	// themselves (through others, or through an include whose name is
	// computed).
	Depth int
}

// DefaultLimits returns the bounds a zero Limits stands for.
func DefaultLimits() Limits {
	return Limits{
		SectionOutput: 1 << 20,
		PromptOutput:  4 << 20,
		Value:         1 << 20,
		Work:          64 << 20,
		Steps:         500_000,
		Depth:         100,
	}
}

// WithDefaults returns l with every zero or negative field set to its
// default.
func (l Limits) WithDefaults() Limits {
	v, d := reflect.ValueOf(&l).Elem(), reflect.ValueOf(DefaultLimits())
	for i := range v.NumField() {
		if v.Field(i).Int() <= 0 {
			v.Field(i).Set(d.Field(i))
		}
	}
	return l
}

// Bound names one of the limits, as errors print it.
type Bound string

// The bounds a LimitError can name.
const (
	BoundSectionOutput Bound = "section output"
	BoundPromptOutput  Bound = "prompt output"
	BoundValue         Bound = "value size"
	BoundValueDepth    Bound = "value depth"
	BoundWork          Bound = "work"
	BoundSteps         Bound = "steps"
	BoundDepth         Bound = "template depth"
)

// LimitError is a render stopped by one of its Limits.
type LimitError struct {
	Bound Bound
	Limit int
	// Func is the function that met the bound, "" when the bound was met
	// by the template itself (output, steps, depth).
	Func string
	// Size is about what the call's result would take, for the value
	// size bound.
	Size int
}

// limitMessages are the messages of LimitError by bound, formatted with
// its Func, Limit and Size.
var limitMessages = map[Bound]string{
	BoundSectionOutput: "output exceeds the section output bound of %[2]d bytes",
	BoundPromptOutput:  "output exceeds the prompt output bound of %[2]d bytes for all sections together",
	BoundSteps:         "more than %[2]d template nodes executed in one render, counting each call and each range iteration (the steps bound)",
	BoundDepth:         "template calls and range loops nest more than %[2]d deep (the template depth bound)",
	BoundWork:          "%[1]s: function calls in one render handled more than %[2]d bytes (the work bound)",
	BoundValueDepth:    "%[1]s: the result nests more than %[2]d levels deep (the value depth bound)",
	BoundValue:         "%[1]s: the result would take about %[3]d bytes, over the value size bound of %[2]d",
}

func (e *LimitError) Error() string {
	return fmt.Sprintf(cmp.Or(limitMessages[e.Bound], limitMessages[BoundValue]), e.Func, e.Limit, e.Size)
}
