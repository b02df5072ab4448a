package meter

import (
	"fmt"
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
	// Depth is how deeply template calls may nest, counted only in
	// the templates that can call themselves (through others, or through
	// an include whose name is computed).
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
	d := DefaultLimits()
	for _, f := range []struct{ v, def *int }{
		{&l.SectionOutput, &d.SectionOutput}, {&l.PromptOutput, &d.PromptOutput},
		{&l.Value, &d.Value}, {&l.Work, &d.Work}, {&l.Steps, &d.Steps}, {&l.Depth, &d.Depth},
	} {
		if *f.v <= 0 {
			*f.v = *f.def
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

func (e *LimitError) Error() string {
	switch e.Bound {
	case BoundSectionOutput:
		return fmt.Sprintf("output exceeds the section output bound of %d bytes", e.Limit)
	case BoundPromptOutput:
		return fmt.Sprintf("output exceeds the prompt output bound of %d bytes for all sections together", e.Limit)
	case BoundSteps:
		return fmt.Sprintf("more than %d template nodes executed in one render, counting each call and each range iteration (the steps bound)", e.Limit)
	case BoundDepth:
		return fmt.Sprintf("template calls nest more than %d deep (the template depth bound)", e.Limit)
	case BoundWork:
		return fmt.Sprintf("%s: function calls in one render handled more than %d bytes (the work bound)", e.Func, e.Limit)
	case BoundValueDepth:
		return fmt.Sprintf("%s: the result nests more than %d levels deep (the value depth bound)", e.Func, e.Limit)
	}
	return fmt.Sprintf("%s: the result would take about %d bytes, over the value size bound of %d", e.Func, e.Size, e.Limit)
}
