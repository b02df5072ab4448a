package funcs

import (
	"bytes"
	"context"
	"io"
	"math/bits"
	"reflect"
	"text/template"
)

// The names of the functions a compiled pack calls to let a Meter count
// and weigh what text/template does on its own. They are not in the map
// New returns, so a pack cannot call them itself.
const (
	// EnterFunc and LeaveFunc frame every template's body; EnterFunc
	// takes the body's size in nodes.
	EnterFunc = "_sysprompt_enter"
	LeaveFunc = "_sysprompt_leave"
	// StepFunc starts every range body and takes its size in nodes.
	StepFunc = "_sysprompt_step"
	// ChargeFunc passes a value on unchanged, charging its size; it is
	// put in front of the variables and pipelines handed to the
	// comparison and indexing builtins, whose cost grows with them.
	ChargeFunc = "_sysprompt_charge"
	// RangedFunc passes on the value a range iterates, charging the sort
	// a map's keys get.
	RangedFunc = "_sysprompt_ranged"
)

// ctxEvery is how many bytes of output pass between looks at the
// context.
const ctxEvery = 256

// Meter holds one render set to its Limits. It is the writer executions
// write through, the counter the compiled templates call at every step,
// and the source of a metered copy of the function map whose every call
// is weighed. Like Includer it is not safe for concurrent use: one per
// render set, started again for every render.
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

// NewMeter returns a meter writing into out. A zero field of limits takes
// its default.
func NewMeter(limits Limits, out *bytes.Buffer) *Meter {
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
// catalog), which only the section output bound limits.
func (m *Meter) Partial() {
	m.depth = 0
	m.output = capped{w: m.out, left: m.limits.SectionOutput, bound: BoundSectionOutput, limit: m.limits.SectionOutput}
}

// Kept records that n bytes of section output went into the prompt,
// executed now or taken from a cache, so the prompt bound holds the same
// either way.
func (m *Meter) Kept(n int) { m.kept += n }

// Err reports whether the render's context is done.
func (m *Meter) Err() error { return m.ctx.Err() }

// Write appends p to the output buffer, or refuses it whole when it
// would pass the execution's output bound or the context is done.
func (m *Meter) Write(p []byte) (int, error) {
	if m.unchecked += len(p); m.unchecked >= ctxEvery<<8 {
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

// step counts n nodes of a template about to run, and looks at the
// context. Like every failure inside a function it panics, and
// text/template turns that into an execution error.
func (m *Meter) step(n int) string {
	if m.steps += max(n, 1); m.steps > m.limits.Steps {
		panic(&LimitError{Bound: BoundSteps, Limit: m.limits.Steps})
	}
	if err := m.ctx.Err(); err != nil {
		panic(err)
	}
	return ""
}

// enter counts a template of n nodes and one level of nesting. A
// template that fails never leaves, but its failure ends the execution,
// and the next one starts again at depth zero.
func (m *Meter) enter(n int) string {
	if m.depth++; m.depth > m.limits.Depth {
		panic(&LimitError{Bound: BoundDepth, Limit: m.limits.Depth})
	}
	return m.step(n)
}

func (m *Meter) leave() string {
	m.depth--
	return ""
}

// chargeValue charges v's shallow size and hands it on untouched.
func (m *Meter) chargeValue(v reflect.Value) reflect.Value {
	m.charge("comparison", shallow(v))
	return v
}

// ranged charges a map's key sort and hands v on untouched.
func (m *Meter) ranged(v any) any {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Map {
		n := rv.Len()
		m.charge("range", mulSize(mulSize(n, elementSize), bits.Len(uint(n))))
	}
	return v
}

// charge adds n to the render's work, failing past the work bound.
// Every so many calls it looks at the context too, so that a loop of
// cheap calls in one step still stops at a deadline.
func (m *Meter) charge(fn string, n int) {
	if m.work += max(n, 0); m.work > m.limits.Work {
		panic(&LimitError{Bound: BoundWork, Limit: m.limits.Work, Func: fn})
	}
	if m.charges++; m.charges%64 == 0 {
		if err := m.ctx.Err(); err != nil {
			panic(err)
		}
	}
}

// want refuses, before it is built, a result of size n over the value
// bound. Like every failure inside a function it panics: text/template
// turns a function's panic into an execution error, and the typed
// wrappers below have no error result to return it through.
func (m *Meter) want(fn string, n int) {
	if n < 0 || n > m.limits.Value {
		panic(&LimitError{Bound: BoundValue, Limit: m.limits.Value, Func: fn, Size: n})
	}
}

// weighArgs charges what a call is handed.
func (m *Meter) weighArgs(fn string, args ...any) {
	n := 0
	for _, a := range args {
		if s, ok := a.(string); ok {
			n += len(s)
			continue
		}
		n = addSize(n, shallow(reflect.ValueOf(a)))
	}
	m.charge(fn, n)
}

// weighResult checks a result against the value bounds and charges it.
func (m *Meter) weighResult(fn string, v any) {
	n, deep := weigh(v, m.limits.Value)
	if deep {
		panic(&LimitError{Bound: BoundValueDepth, Limit: maxValueDepth, Func: fn})
	}
	if n > m.limits.Value {
		panic(&LimitError{Bound: BoundValue, Limit: m.limits.Value, Func: fn})
	}
	m.charge(fn, n)
}

// Funcs returns a metered copy of fm: every function's arguments and
// result are weighed, the functions whose result can outgrow their
// arguments many times over (repeat, until, replace, printf…) refuse an
// oversized result before building it, and the step counters are added.
// text/template's own print, printf, println, html, js and urlquery are
// replaced by metered equivalents.
func (m *Meter) Funcs(fm template.FuncMap) template.FuncMap {
	out := make(template.FuncMap, len(fm)+len(textBuiltins)+3)
	for name, fn := range textBuiltins {
		out[name] = m.wrap(name, fn)
	}
	for name, fn := range fm {
		if b, ok := bounded[name]; ok {
			out[name] = b(m, fn)
			continue
		}
		out[name] = m.wrap(name, fn)
	}
	out["printf"] = m.printf
	out[StepFunc], out[EnterFunc], out[LeaveFunc] = m.step, m.enter, m.leave
	out[ChargeFunc], out[RangedFunc] = m.chargeValue, m.ranged
	return out
}

// textBuiltins are text/template's builtins that can build large strings;
// a function map may override a builtin, and these equivalents do
// exactly what the builtins do (fmt.Sprint and the escapers the template
// package exports).
var textBuiltins = map[string]any{
	"print":    fmtSprint,
	"println":  fmtSprintln,
	"html":     template.HTMLEscaper,
	"js":       template.JSEscaper,
	"urlquery": template.URLQueryEscaper,
}

// wrap returns fn metered: its arguments are charged, and its result is
// checked against the value bounds and charged. The common shapes keep
// their type and skip reflection; the rest go through reflect.MakeFunc.
func (m *Meter) wrap(name string, fn any) any {
	if w := m.wrapText(name, fn); w != nil {
		return w
	}
	if w := m.wrapValue(name, fn); w != nil {
		return w
	}
	return m.wrapReflect(name, reflect.ValueOf(fn))
}

// wrapText wraps the common shapes that make or test strings, or returns
// nil.
func (m *Meter) wrapText(name string, fn any) any {
	switch f := fn.(type) {
	case func(string) string:
		return func(s string) string {
			m.charge(name, len(s))
			return m.weighText(name, f(s))
		}
	case func(string, string) string:
		return func(a, b string) string {
			m.charge(name, len(a)+len(b))
			return m.weighText(name, f(a, b))
		}
	case func(string, string) bool:
		return func(a, b string) bool {
			m.charge(name, len(a)+len(b))
			return f(a, b)
		}
	case func(int, string) string:
		return func(n int, s string) string {
			m.charge(name, len(s))
			return m.weighText(name, f(n, s))
		}
	case func(string, any) (string, error):
		return func(s string, v any) (string, error) {
			m.weighArgs(name, s, v)
			r, err := f(s, v)
			if err != nil {
				return r, err
			}
			return m.weighText(name, r), nil
		}
	case func(...any) string:
		return func(args ...any) string {
			m.weighArgs(name, args...)
			return m.weighText(name, f(args...))
		}
	}
	return nil
}

// wrapValue wraps the common shapes that pass values and lists on, or
// returns nil.
func (m *Meter) wrapValue(name string, fn any) any {
	switch f := fn.(type) {
	case func(any, ...any) any: // default
		return func(v any, rest ...any) any {
			m.weighArgs(name, v)
			m.weighArgs(name, rest...)
			r := f(v, rest...)
			m.weighResult(name, r)
			return r
		}
	case func(...any) []any: // list
		return func(args ...any) []any {
			m.weighArgs(name, args...)
			r := f(args...)
			m.weighResult(name, r)
			return r
		}
	case func(any, any) []any: // append
		return func(a, b any) []any {
			m.weighArgs(name, a, b)
			r := f(a, b)
			m.weighResult(name, r)
			return r
		}
	case func(map[string]any, string) any: // get
		return func(d map[string]any, k string) any {
			m.weighArgs(name, d, k)
			r := f(d, k)
			m.weighResult(name, r)
			return r
		}
	}
	return nil
}

// weighText checks a string result against the value bound, charges it
// and hands it on.
func (m *Meter) weighText(fn, r string) string {
	m.want(fn, len(r))
	m.charge(fn, len(r))
	return r
}

func (m *Meter) wrapReflect(name string, fn reflect.Value) any {
	t := fn.Type()
	return reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		n := 0
		for _, a := range args {
			n = addSize(n, shallow(a))
		}
		m.charge(name, n)
		var out []reflect.Value
		if t.IsVariadic() {
			out = fn.CallSlice(args)
		} else {
			out = fn.Call(args)
		}
		if len(out) == 2 && !out[1].IsNil() {
			return out
		}
		if len(out) > 0 && out[0].IsValid() && out[0].CanInterface() {
			m.weighResult(name, out[0].Interface())
		}
		return out
	}).Interface()
}
