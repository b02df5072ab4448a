package funcs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
)

// A few functions can build a result far larger than their arguments
// (repeat 10000000000 "x"), or run for long on small ones (until), so
// weighing the result afterwards is too late: the process would be out
// of memory first. These work out the size first and refuse it, with the
// same messages as a weighed result. They keep each function's meaning;
// until, untilStep and seq are written here rather than wrapped because
// sprig's loop overflows past the largest int and never ends.
var bounded = map[string]func(m *Meter, orig any) any{
	"repeat": func(m *Meter, _ any) any {
		return func(count int, s string) string {
			size := mulSize(count, len(s))
			m.want("repeat", size)
			m.charge("repeat", size)
			return strings.Repeat(s, count)
		}
	},
	"until": func(m *Meter, _ any) any {
		return func(count int) []int {
			step := 1
			if count < 0 {
				step = -1
			}
			return m.ints("until", 0, count, step)
		}
	},
	"untilStep": func(m *Meter, _ any) any {
		return func(start, stop, step int) []int { return m.ints("untilStep", start, stop, step) }
	},
	"seq": func(m *Meter, _ any) any {
		return func(params ...int) string {
			start, stop, step, ok := seqRange(params)
			if !ok {
				return ""
			}
			n := m.ints("seq", start, stop, step)
			b := make([]byte, 0, len(n)*4)
			for i, v := range n {
				if i > 0 {
					b = append(b, ' ')
				}
				b = strconv.AppendInt(b, int64(v), 10)
			}
			m.weighResult("seq", b)
			return string(b)
		}
	},
	"replace": func(m *Meter, _ any) any {
		return func(old, new, src string) string {
			n := strings.Count(src, old)
			m.want("replace", addSize(len(src), mulSize(n, len(new)-len(old))))
			m.charge("replace", len(src)+len(old)+len(new))
			r := strings.ReplaceAll(src, old, new)
			m.charge("replace", len(r))
			return r
		}
	},
	"regexReplaceAll": func(m *Meter, _ any) any {
		return func(re, s, repl string) string { return must(m.regexReplace("regexReplaceAll", re, s, repl, true)) }
	},
	"regexReplaceAllLiteral": func(m *Meter, _ any) any {
		return func(re, s, repl string) string {
			return must(m.regexReplace("regexReplaceAllLiteral", re, s, repl, false))
		}
	},
	"mustRegexReplaceAll": func(m *Meter, _ any) any {
		return func(re, s, repl string) (string, error) {
			return m.regexReplace("mustRegexReplaceAll", re, s, repl, true)
		}
	},
	"mustRegexReplaceAllLiteral": func(m *Meter, _ any) any {
		return func(re, s, repl string) (string, error) {
			return m.regexReplace("mustRegexReplaceAllLiteral", re, s, repl, false)
		}
	},
	"wrap": func(m *Meter, orig any) any {
		f := m.wrap("wrap", orig).(func(int, string) string)
		return func(width int, s string) string {
			m.want("wrap", wrappedSize(width, 1, s))
			return f(width, s)
		}
	},
	"wrapWith": func(m *Meter, orig any) any {
		f := orig.(func(int, string, string) string)
		return func(width int, sep, s string) string {
			m.want("wrapWith", wrappedSize(width, len(sep), s))
			m.charge("wrapWith", len(sep)+len(s))
			r := f(width, sep, s)
			m.charge("wrapWith", len(r))
			return r
		}
	},
	"join": func(m *Meter, orig any) any {
		f := orig.(func(string, any) string)
		return func(sep string, v any) string {
			n := 1
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
				n = rv.Len()
			}
			m.want("join", mulSize(n, len(sep)+elementSize))
			m.weighArgs("join", sep, v)
			r := f(sep, v)
			m.weighResult("join", r)
			return r
		}
	},
	"indent":  boundedIndent("indent"),
	"nindent": boundedIndent("nindent"),
	"mustToPrettyJson": func(m *Meter, _ any) any {
		return func(v any) (string, error) {
			// Every element may sit on its own line behind two spaces per
			// level.
			size, deep := weigh(v, m.limits.Value)
			if deep {
				panic(&LimitError{Bound: BoundValueDepth, Limit: maxValueDepth, Func: "mustToPrettyJson"})
			}
			m.want("mustToPrettyJson", mulSize(size, 2*maxNesting(v)+2))
			m.charge("mustToPrettyJson", size)
			out, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				return "", err
			}
			m.weighResult("mustToPrettyJson", out)
			return string(out), nil
		}
	},
	// uniq compares every element with every one it kept.
	"uniq":     boundedUniq("uniq"),
	"mustUniq": boundedUniq("mustUniq"),
	// A regular expression costs its program's size per byte matched.
	"regexMatch":       boundedRegex("regexMatch", false),
	"mustRegexMatch":   boundedRegex("mustRegexMatch", false),
	"regexFind":        boundedRegex("regexFind", false),
	"mustRegexFind":    boundedRegex("mustRegexFind", false),
	"regexFindAll":     boundedRegex("regexFindAll", true),
	"mustRegexFindAll": boundedRegex("mustRegexFindAll", true),
	"regexSplit":       boundedRegex("regexSplit", true),
	"mustRegexSplit":   boundedRegex("mustRegexSplit", true),
	// Comparing values reads them through; without compares each
	// element with every value to leave out.
	"deepEqual":   boundedCompare("deepEqual"),
	"has":         boundedCompare("has"),
	"mustHas":     boundedCompare("mustHas"),
	"without":     boundedCompare("without"),
	"mustWithout": boundedCompare("mustWithout"),
	// Splitting makes a list element per piece.
	"split":     boundedSplit("split", func(args []reflect.Value) (string, string, int) { return args[0].String(), args[1].String(), -1 }),
	"splitList": boundedSplit("splitList", func(args []reflect.Value) (string, string, int) { return args[0].String(), args[1].String(), -1 }),
	"splitn": boundedSplit("splitn", func(args []reflect.Value) (string, string, int) {
		return args[0].String(), args[2].String(), int(args[1].Int())
	}),
}

// boundedCompare charges a comparing function for what it may read:
// both values, or for without, the list once per value left out.
func boundedCompare(name string) func(m *Meter, orig any) any {
	return func(m *Meter, orig any) any {
		charge := func(a any, b ...any) {
			left := m.limits.Work - m.work + 1
			wb := 0
			for _, v := range b {
				wb = addSize(wb, weighAll(v, left))
			}
			m.charge(name, addSize(mulSize(weighAll(a, left), len(b)), wb))
		}
		switch f := orig.(type) {
		case func(any, any) bool: // deepEqual, has
			return func(a, b any) bool { charge(a, b); return f(a, b) }
		case func(any, any) (bool, error): // mustHas
			return func(a, b any) (bool, error) { charge(a, b); return f(a, b) }
		case func(any, ...any) []any: // without
			return func(l any, omit ...any) []any {
				charge(l, omit...)
				r := f(l, omit...)
				m.weighResult(name, r)
				return r
			}
		case func(any, ...any) ([]any, error): // mustWithout
			return func(l any, omit ...any) ([]any, error) {
				charge(l, omit...)
				r, err := f(l, omit...)
				if err == nil {
					m.weighResult(name, r)
				}
				return r, err
			}
		}
		panic("funcs: " + name + " has a shape boundedCompare does not know")
	}
}

// boundedRegex charges a regex function for the matching, program size
// times input, before it runs, and when the function lists matches or
// pieces, refuses more of them than the value bound holds. The function
// takes the expression and the text first, then a count when it lists.
func boundedRegex(name string, lists bool) func(m *Meter, orig any) any {
	return func(m *Meter, orig any) any {
		call := reflect.ValueOf(m.wrap(name, orig))
		return reflect.MakeFunc(call.Type(), func(args []reflect.Value) []reflect.Value {
			expr, s := args[0].String(), args[1].String()
			if re, err := regexp.Compile(expr); err == nil {
				m.charge(name, mulSize(programSize(expr), len(s)+1))
				if most := m.limits.Value / elementSize; lists && (args[2].Int() < 0 || args[2].Int() > int64(most)) {
					if n := len(re.FindAllStringIndex(s, most+1)); n > most {
						m.want(name, mulSize(n, elementSize))
					}
				}
			}
			return call.Call(args)
		}).Interface()
	}
}

// programSize is how many instructions expr compiles to, which is what
// matching costs per byte of input at worst.
func programSize(expr string) int {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return 1
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 1
	}
	return len(prog.Inst)
}

// boundedSplit refuses, before splitting, more pieces than the value
// bound holds; args reads the separator, the text and the most pieces
// wanted (negative for all) from a call's arguments.
func boundedSplit(name string, args func([]reflect.Value) (sep, s string, n int)) func(m *Meter, orig any) any {
	return func(m *Meter, orig any) any {
		call := reflect.ValueOf(m.wrap(name, orig))
		return reflect.MakeFunc(call.Type(), func(in []reflect.Value) []reflect.Value {
			sep, s, n := args(in)
			pieces := strings.Count(s, sep) + 1
			if n >= 0 {
				pieces = min(pieces, n)
			}
			m.want(name, mulSize(pieces, elementSize))
			return call.Call(in)
		}).Interface()
	}
}

func boundedIndent(name string) func(m *Meter, orig any) any {
	return func(m *Meter, orig any) any {
		f := orig.(func(int, string) (string, error))
		return func(width int, s string) (string, error) {
			lines := strings.Count(s, "\n") + 1
			m.want(name, addSize(len(s)+1, mulSize(max(width, 0), lines)))
			m.charge(name, len(s))
			r, err := f(width, s)
			m.charge(name, len(r))
			return r, err
		}
	}
}

func boundedUniq(name string) func(m *Meter, orig any) any {
	return func(m *Meter, orig any) any {
		call := reflect.ValueOf(orig)
		return reflect.MakeFunc(call.Type(), func(args []reflect.Value) []reflect.Value {
			n := 0
			if l := args[0]; l.Kind() == reflect.Interface && !l.IsNil() {
				if e := l.Elem(); e.Kind() == reflect.Slice || e.Kind() == reflect.Array {
					n = e.Len()
				}
			}
			m.charge(name, mulSize(mulSize(n, n), elementSize))
			return call.Call(args)
		}).Interface()
	}
}

// printf is text/template's printf, refusing before formatting a format
// whose widths and precisions alone pass the value bound
// (printf "%999999d" in a loop, say).
func (m *Meter) printf(format string, args ...any) string {
	m.want("printf", addSize(len(format), formatPadding(format)))
	m.weighArgs("printf", append([]any{format}, args...)...)
	return m.weighText("printf", fmt.Sprintf(format, args...))
}

func fmtSprint(args ...any) string   { return fmt.Sprint(args...) }
func fmtSprintln(args ...any) string { return fmt.Sprintln(args...) }

// formatPadding adds up the widths and precisions a format asks for; a
// '*' takes its number from an argument, up to fmt's own cap of 1e6.
func formatPadding(format string) int {
	total := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		for i++; i < len(format) && strings.IndexByte("+-# 0123456789.*[]", format[i]) >= 0; i++ {
			switch c := format[i]; {
			case c == '*':
				total = addSize(total, 1_000_000)
			case c >= '1' && c <= '9' && format[i-1] != '[':
				j := i
				for j < len(format) && format[j] >= '0' && format[j] <= '9' {
					j++
				}
				n, err := strconv.Atoi(format[i:j])
				if err != nil {
					n = 1_000_000
				}
				total = addSize(total, n)
				i = j - 1
			}
		}
	}
	return total
}

// ints is untilStep, refusing a list over the value bound before making
// it.
func (m *Meter) ints(fn string, start, stop, step int) []int {
	n := stepCount(start, stop, step)
	if n > uint64(m.limits.Value/elementSize) {
		panic(&LimitError{Bound: BoundValue, Limit: m.limits.Value, Func: fn, Size: mulSize(int(min(n, 1<<40)), elementSize)})
	}
	m.charge(fn, int(n)*elementSize)
	v := make([]int, n)
	for k := range v {
		v[k] = start + k*step
	}
	return v
}

// stepCount is how many values start, start+step, … lie before stop,
// counted without overflow; a step pointing away from stop gives none.
func stepCount(start, stop, step int) uint64 {
	var span, by uint64
	switch {
	case start < stop && step > 0:
		span, by = uint64(stop)-uint64(start), uint64(step)
	case start > stop && step < 0:
		span, by = uint64(start)-uint64(stop), -uint64(step)
	default:
		return 0
	}
	n := span / by
	if span%by != 0 {
		n++
	}
	return n
}

// seqRange reads seq's one to three arguments (end; start end; start step
// end) into an untilStep range whose stop is one step past end.
func seqRange(p []int) (start, stop, step int, ok bool) {
	dir := func(from, to int) int {
		if to < from {
			return -1
		}
		return 1
	}
	switch len(p) {
	case 1:
		d := dir(1, p[0])
		return 1, p[0] + d, d, true
	case 2:
		d := dir(p[0], p[1])
		return p[0], p[1] + d, d, true
	case 3:
		d := dir(p[0], p[2])
		if d < 0 && p[1] > 0 {
			return 0, 0, 0, false
		}
		return p[0], p[2] + d, p[1], true
	}
	return 0, 0, 0, false
}

// regexReplace replaces every match of re in s with repl, expanding $1
// and the like when expand is set. Matches do not overlap, so all the
// groups one $-reference can copy add up to at most len(s): the result
// holds at most len(s) + refs*len(s) + matches*len(repl) bytes. Matches
// are counted only as far as the value bound allows.
func (m *Meter) regexReplace(fn, re, s, repl string, expand bool) (string, error) {
	r, err := regexp.Compile(re)
	if err != nil {
		return "", err
	}
	m.charge(fn, addSize(mulSize(programSize(re), len(s)+1), len(repl)))
	size := len(s)
	if expand {
		size = addSize(size, mulSize(strings.Count(repl, "$"), len(s)))
	}
	m.want(fn, size)
	if len(repl) > 0 {
		most := (m.limits.Value - size) / len(repl)
		if matches := len(r.FindAllStringIndex(s, most+1)); matches > most {
			m.want(fn, addSize(size, mulSize(matches, len(repl))))
		}
	}
	var out string
	if expand {
		out = r.ReplaceAllString(s, repl)
	} else {
		out = r.ReplaceAllLiteralString(s, repl)
	}
	m.charge(fn, len(out))
	return out, nil
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

// wrappedSize bounds a wrap of s at width: a separator at most every
// width bytes.
func wrappedSize(width, sepLen int, s string) int {
	return addSize(len(s), mulSize(len(s)/max(width, 1)+1, sepLen))
}

// maxNesting is how deeply lists and maps nest in v (at most
// maxValueDepth, which weigh has already checked).
func maxNesting(v any) int {
	var walk func(reflect.Value, int) int
	walk = func(v reflect.Value, d int) int {
		for v.Kind() == reflect.Interface && !v.IsNil() {
			v = v.Elem()
		}
		if d >= maxValueDepth {
			return d
		}
		deepest := d
		switch v.Kind() {
		case reflect.Slice, reflect.Array:
			for i := 0; i < v.Len(); i++ {
				deepest = max(deepest, walk(v.Index(i), d+1))
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				deepest = max(deepest, walk(it.Value(), d+1))
			}
		}
		return deepest
	}
	return walk(reflect.ValueOf(v), 0)
}

// mulSize and addSize are a*b and a+b for sizes, saturating rather than
// wrapping round; a negative size is treated as zero.
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

// CheckConstantCall reports the bound that calling name with these
// constant arguments would pass, by running the bounded function on a
// throwaway meter: args are int64 or string constants, and a missing
// last argument (one piped in at run time) is taken to be one byte
// long. It returns nil for a function with no bound of its own, and for
// arguments of the wrong types, whose error the render reports.
func (l Limits) CheckConstantCall(name string, args []any) (err error) {
	m := NewMeter(l, new(bytes.Buffer))
	var fn any
	switch b, ok := bounded[name]; {
	case name == "printf":
		fn = m.printf
	case ok:
		fn = b(m, base()[name])
	default:
		return nil
	}
	fv := reflect.ValueOf(fn)
	in, ok := constantArgs(fv.Type(), args)
	if !ok {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err, _ = r.(*LimitError)
		}
	}()
	if out := fv.Call(in); len(out) == 2 && !out[1].IsNil() {
		err, _ = out[1].Interface().(*LimitError)
	}
	return err
}

// constantArgs converts constants to the parameter types of t, filling
// one missing last parameter with a one-byte stand-in.
func constantArgs(t reflect.Type, args []any) ([]reflect.Value, bool) {
	want := t.NumIn()
	if t.IsVariadic() {
		want = max(len(args), want-1)
	}
	if len(args) > want || len(args) < want-1 {
		return nil, false
	}
	in := make([]reflect.Value, 0, want)
	for i := range want {
		pt := t.In(min(i, t.NumIn()-1))
		if t.IsVariadic() && i >= t.NumIn()-1 {
			pt = pt.Elem()
		}
		var v any = "x"
		if pt.Kind() == reflect.Int {
			v = int64(1)
		}
		if i < len(args) {
			v = args[i]
		}
		switch x := v.(type) {
		case int64:
			if pt.Kind() != reflect.Int && pt.Kind() != reflect.Interface {
				return nil, false
			}
			in = append(in, reflect.ValueOf(x).Convert(pt))
		case string:
			if pt.Kind() != reflect.String && pt.Kind() != reflect.Interface {
				return nil, false
			}
			in = append(in, reflect.ValueOf(x).Convert(pt))
		}
	}
	return in, true
}
