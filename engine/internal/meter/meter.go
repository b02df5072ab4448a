// Package meter holds one render to its Limits: it instruments a pack's
// parse trees once, at compile time, so that execution reports what
// text/template does on its own (steps, range iterations, nesting on call
// cycles, comparisons), and its Meter is, per render, the writer sections
// execute into, the counter those reports reach and the funcs.Budget
// every function call is charged to.
package meter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"text/template"

	"github.com/sysprompt/sysprompt/funcs"
)

// The functions instrumented templates call. They are not in the map a
// pack is parsed with, so a pack cannot call them itself.
const (
	enterFunc  = "_sysprompt_enter"  // frames a template on a call cycle; takes its size
	leaveFunc  = "_sysprompt_leave"  // ends that frame, or a range
	stepFunc   = "_sysprompt_step"   // starts a template or range body; takes its size
	chargeFunc = "_sysprompt_charge" // passes a compared value on, charging its size
	rangedFunc = "_sysprompt_ranged" // enters a range: passes its value on, charging a map's key sort
)

// ctxEvery is how many bytes of output pass between looks at the
// context.
const ctxEvery = 256 << 8

// Meter holds one render set to its Limits. Like the template set it
// belongs to, it is not safe for concurrent use: one per render set,
// started again for every render.
type Meter struct {
	limits Limits
	out    *bytes.Buffer
	ctx    context.Context

	// per render
	steps, depth, work, kept, charges int

	// per execution
	output    capped // into out
	unchecked int    // bytes written since the context was last looked at
}

// New returns a meter writing into out. A zero field of limits takes its
// default.
func New(limits Limits, out *bytes.Buffer) *Meter {
	m := &Meter{limits: limits.WithDefaults(), out: out}
	m.Start(context.Background())
	return m
}

// Start begins a render: every counter is zero and ctx is honoured from
// now on, between steps and between writes.
func (m *Meter) Start(ctx context.Context) {
	*m = Meter{limits: m.limits, out: m.out, ctx: ctx}
	m.Partial()
}

// Section begins the execution of one section: its output may take what
// is left of both the section and the prompt bound. The caller resets
// the buffer.
func (m *Meter) Section() {
	m.Partial()
	if left := m.limits.PromptOutput - m.kept; left < m.output.left {
		m.output = capped{w: m.out, left: max(left, 0), bound: BoundPromptOutput, limit: m.limits.PromptOutput}
	}
}

// Partial begins the execution of a helper partial (a marker, the skills
// catalog), which only the section output bound limits. A template that
// failed never left its frame; nesting starts again from zero.
func (m *Meter) Partial() {
	m.depth = 0
	m.output = capped{w: m.out, left: m.limits.SectionOutput, bound: BoundSectionOutput, limit: m.limits.SectionOutput}
}

// Kept records that n bytes of section output went into the prompt,
// executed now or taken from a cache, and fails once the prompt bound is
// passed, so that output taken from a cache is held to it too.
func (m *Meter) Kept(n int) error {
	if m.kept += n; m.kept > m.limits.PromptOutput {
		return &LimitError{Bound: BoundPromptOutput, Limit: m.limits.PromptOutput}
	}
	return nil
}

// Err reports whether the render's context is done.
func (m *Meter) Err() error { return m.ctx.Err() }

// Write appends p to the output buffer, or refuses it whole when it
// would pass the execution's output bound or the context is done.
func (m *Meter) Write(p []byte) (int, error) {
	if m.unchecked += len(p); m.unchecked >= ctxEvery {
		m.unchecked = 0
		if err := m.ctx.Err(); err != nil {
			return 0, err
		}
	}
	return m.output.Write(p)
}

// capped passes writes on to w until one would take it past left more
// bytes, and refuses that one whole as passing bound (of limit bytes).
type capped struct {
	w     io.Writer
	left  int
	bound Bound
	limit int
}

func (c *capped) Write(p []byte) (int, error) {
	if len(p) > c.left {
		return 0, &LimitError{Bound: c.bound, Limit: c.limit}
	}
	c.left -= len(p)
	return c.w.Write(p)
}

// Funcs returns the function map for set, a clone of a compiled pack
// that this meter executes: every function charged to the meter, include
// bound to set, and the functions instrumented templates call.
func (m *Meter) Funcs(set *template.Template) template.FuncMap {
	fm := funcs.New(m)
	fm["include"] = m.include(set)
	fm[stepFunc], fm[enterFunc], fm[leaveFunc] = m.step, m.enter, m.leave
	fm[chargeFunc], fm[rangedFunc] = m.chargeValue, m.ranged
	return fm
}

// include executes a template of set and returns its output, held to
// the section output bound. A template include can reach again is framed
// (see Instrument), so the depth bound stops a recursion through it.
func (m *Meter) include(set *template.Template) func(string, any) (string, error) {
	return func(name string, data any) (string, error) {
		m.Charge("include", len(name))
		t := set.Lookup(name)
		if t == nil {
			return "", fmt.Errorf("template %q is not defined", name)
		}
		var b strings.Builder
		if err := t.Execute(&capped{w: &b, left: m.limits.SectionOutput, bound: BoundSectionOutput, limit: m.limits.SectionOutput}, data); err != nil {
			// Pass a bound up as it is, not wrapped once per level of a
			// recursion.
			if le, ok := errors.AsType[*LimitError](err); ok {
				err = le
			}
			return "", err
		}
		m.Want("include", b.Len())
		m.Charge("include", b.Len())
		return b.String(), nil
	}
}

// Like every failure inside a function, the counters below panic:
// text/template turns a function's panic into an execution error.

// step counts n nodes of a template about to run, and looks at the
// context.
func (m *Meter) step(n int) string {
	if m.steps += max(n, 1); m.steps > m.limits.Steps || m.steps < 0 {
		panic(&LimitError{Bound: BoundSteps, Limit: m.limits.Steps})
	}
	if err := m.ctx.Err(); err != nil {
		panic(err)
	}
	return ""
}

// enter counts a template of n nodes and, as a range does, one level of
// nesting.
func (m *Meter) enter(n int) string {
	m.ranged(nil)
	return m.step(n)
}

// leave ends a frame or a range. It takes the size enter took, unused, so that every
// call Instrument adds has the one shape {{name n}}.
func (m *Meter) leave(n int) string {
	m.depth--
	return ""
}

// chargeValue charges v's shallow size and hands it on untouched.
func (m *Meter) chargeValue(v reflect.Value) reflect.Value {
	m.Charge("comparison", funcs.Shallow(v))
	return v
}

// ranged counts one level of nesting, charges a map's key sort and hands
// v on untouched.
func (m *Meter) ranged(v any) any {
	if m.depth++; m.depth > m.limits.Depth {
		panic(&LimitError{Bound: BoundDepth, Limit: m.limits.Depth})
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Map {
		m.Charge("range", funcs.SortWork(rv))
	}
	return v
}

// Charge adds n to the render's work, failing past the work bound.
// Every so many calls it looks at the context too, so that a loop of
// cheap calls in one step still stops at a deadline.
func (m *Meter) Charge(fn string, n int) {
	if m.work += max(n, 0); m.work > m.limits.Work || m.work < 0 {
		panic(&LimitError{Bound: BoundWork, Limit: m.limits.Work, Func: fn})
	}
	if m.charges++; m.charges%64 == 0 {
		if err := m.ctx.Err(); err != nil {
			panic(err)
		}
	}
}

// Want, Deep and Charge (above) make the meter the functions' funcs.Budget.

// Want refuses a value of about n bytes over the value bound.
func (m *Meter) Want(fn string, n int) {
	if n < 0 || n > m.limits.Value {
		panic(&LimitError{Bound: BoundValue, Limit: m.limits.Value, Func: fn, Size: n})
	}
}

// Deep refuses a value nesting deeper than funcs.MaxDepth.
func (m *Meter) Deep(fn string) {
	panic(&LimitError{Bound: BoundValueDepth, Limit: funcs.MaxDepth, Func: fn})
}
