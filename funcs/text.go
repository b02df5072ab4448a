package funcs

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"text/template"
	"unicode/utf8"
)

// maxIndent bounds the width indent and nindent accept, so a typo cannot
// allocate without limit.
const maxIndent = 256

// addText adds the string functions to m. Each charges what it reads;
// the few whose result can outgrow their arguments many times over
// (repeat, replace, indent, printf) ask for its size before building it,
// and the rest check theirs after, when it is at most a small multiple
// of the arguments.
func addText(m template.FuncMap, b Budget) {
	unary := func(fn string, f func(string) string) func(string) string {
		return func(s string) string { b.Charge(fn, len(s)); return built(b, fn, f(s)) }
	}
	// variadic prints its arguments and escapes the text, each byte into
	// at most grow bytes.
	variadic := func(fn string, grow int, f func(...any) string) func(...any) string {
		return func(args ...any) string {
			n := argsSize(args)
			b.Want(fn, mulSize(n, grow))
			b.Charge(fn, n)
			return built(b, fn, f(args...))
		}
	}
	m["lower"] = unary("lower", strings.ToLower)
	m["upper"] = unary("upper", strings.ToUpper)
	m["trim"] = unary("trim", strings.TrimSpace)
	m["xml"] = unary("xml", escapeXML)
	m["sha256"] = unary("sha256", sha256Hex)
	m["contains"] = subjectLast(b, "contains", strings.Contains)
	m["hasPrefix"] = subjectLast(b, "hasPrefix", strings.HasPrefix)
	m["hasSuffix"] = subjectLast(b, "hasSuffix", strings.HasSuffix)
	m["trimPrefix"] = subjectLast(b, "trimPrefix", strings.TrimPrefix)
	m["trimSuffix"] = subjectLast(b, "trimSuffix", strings.TrimSuffix)
	m["print"] = variadic("print", 1, fmt.Sprint)
	m["println"] = variadic("println", 1, fmt.Sprintln)
	m["html"] = variadic("html", len("&#34;"), template.HTMLEscaper)
	m["js"] = variadic("js", len(`\u003C`), template.JSEscaper)
	m["urlquery"] = variadic("urlquery", len("%3C"), template.URLQueryEscaper)
	m["quote"] = variadic("quote", len(`\x00`), quote)
	m["printf"] = func(format string, args ...any) string {
		n := addSize(len(format), argsSize(args))
		b.Want("printf", addSize(n, formatPadding(format, args)))
		b.Charge("printf", n)
		return built(b, "printf", fmt.Sprintf(format, args...))
	}
	m["repeat"] = func(count int, s string) string {
		take(b, "repeat", mulSize(count, len(s)))
		return strings.Repeat(s, max(count, 0))
	}
	m["replace"] = func(old, new, s string) string {
		b.Want("replace", addSize(len(s), mulSize(strings.Count(s, old), len(new)-len(old))))
		b.Charge("replace", len(old)+len(new)+len(s))
		return built(b, "replace", strings.ReplaceAll(s, old, new))
	}
	m["trunc"] = func(n int, s string) string {
		b.Charge("trunc", len(s))
		if n < 0 {
			return s[max(len(s)+n, 0):]
		}
		return s[:min(n, len(s))]
	}
	m["indent"] = indenter(b, "indent", "")
	m["nindent"] = indenter(b, "nindent", "\n")
	// tokens estimates a token count as ceil(n/4), where n is the number
	// of code points in a string (an invalid UTF-8 byte counts as one) or
	// a character count given as an integer.
	m["tokens"] = func(v any) (int, error) {
		var n int
		switch v := v.(type) {
		case string:
			b.Charge("tokens", len(v))
			n = utf8.RuneCountInString(v)
		case int:
			n = v
		default:
			return 0, fmt.Errorf("tokens: want a string or a character count, got %T", v)
		}
		if n < 0 {
			return 0, fmt.Errorf("tokens: negative character count %d", n)
		}
		return n/4 + min(n%4, 1), nil
	}
}

// built checks and charges a string result, and hands it on.
func built(b Budget, fn, r string) string {
	take(b, fn, len(r))
	return r
}

// indenter returns indent (or, with prefix "\n", nindent): it prefixes
// every line holding something other than white space with width spaces.
// Blank lines (empty or white space only) come out empty, so the result
// never gains trailing white space. nindent puts a newline in front, for
// use after a key on the same line.
func indenter(b Budget, fn, prefix string) func(int, string) (string, error) {
	return func(width int, s string) (string, error) {
		b.Want(fn, addSize(len(s)+1, mulSize(width, strings.Count(s, "\n")+1)))
		b.Charge(fn, len(s))
		if width < 0 || width > maxIndent {
			return "", fmt.Errorf("indent width %d out of range [0, %d]", width, maxIndent)
		}
		lines := strings.Split(s, "\n")
		for i, line := range lines {
			lines[i] = ""
			if strings.TrimSpace(line) != "" {
				lines[i] = strings.Repeat(" ", width) + line
			}
		}
		return built(b, fn, prefix+strings.Join(lines, "\n")), nil
	}
}

// subjectLast is f(s, arg) called as f arg s, the way templates pipe the
// subject in last (contains "x" .S), charged for both.
func subjectLast[R any](b Budget, fn string, f func(string, string) R) func(string, string) R {
	return func(arg, s string) R { b.Charge(fn, len(arg)+len(s)); return f(s, arg) }
}

// formatPadding is about what format's widths and precisions add to its
// arguments. fmt applies a verb's width and precision to every element
// of a list, map or struct it prints, so each counts once per element of
// the verb's argument. A '*' takes its number from an argument, capped
// at 1e6 like fmt's own.
func formatPadding(format string, args []any) int {
	total, arg := 0, 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		for i++; i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0; i++ {
		}
		pad := 0
		for part := range 2 { // the width, then the precision after a '.'
			if part == 1 {
				if i >= len(format) || format[i] != '.' {
					break
				}
				i++
			}
			i, arg = argIndex(format, i, arg)
			if i < len(format) && format[i] == '*' {
				pad, arg, i = addSize(pad, starArg(args, arg)), arg+1, i+1
				continue
			}
			j := i
			for j < len(format) && format[j] >= '0' && format[j] <= '9' {
				j++
			}
			if j > i {
				n, err := strconv.Atoi(format[i:j])
				if err != nil || n > 1_000_000 {
					n = 1_000_000
				}
				pad, i = addSize(pad, n), j
			}
		}
		if i, arg = argIndex(format, i, arg); i >= len(format) || format[i] == '%' {
			continue
		}
		if pad > 0 {
			total = addSize(total, mulSize(pad, printedLeaves(args, arg)))
		}
		arg++
	}
	return total
}

// argIndex reads an explicit argument index ("[2]") at i, and returns
// where the format goes on and the argument it names.
func argIndex(format string, i, arg int) (int, int) {
	if i >= len(format) || format[i] != '[' {
		return i, arg
	}
	end := strings.IndexByte(format[i:], ']')
	if end < 0 {
		return i, arg
	}
	if n, err := strconv.Atoi(format[i+1 : i+end]); err == nil && n > 0 {
		arg = n - 1
	}
	return i + end + 1, arg
}

// starArg is the width or precision a '*' takes from args[i].
func starArg(args []any, i int) int {
	if i >= len(args) {
		return 0
	}
	var n int64
	switch v := reflect.ValueOf(args[i]); {
	case v.CanInt():
		n = v.Int()
	case v.CanUint():
		n = int64(min(v.Uint(), 1_000_000))
	}
	return int(min(max(n, -n), 1_000_000))
}

// maxLeaves stops printedLeaves counting: past it, a padded value is far
// over any value size bound anyway.
const maxLeaves = 1 << 24

// printedLeaves is how many values fmt pads when it prints args[i]: one
// for a plain value, one per element (and map key), field and byte of a
// list, map, struct or byte slice, counted down to MaxDepth levels.
func printedLeaves(args []any, i int) int {
	if i >= len(args) {
		return 1
	}
	n := 0
	var count func(v reflect.Value, depth int)
	count = func(v reflect.Value, depth int) {
		for (v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer && depth == 0) && !v.IsNil() {
			v = v.Elem()
		}
		switch {
		case n >= maxLeaves:
		case depth >= MaxDepth:
			n++
		case v.Kind() == reflect.Map:
			for it := v.MapRange(); it.Next() && n < maxLeaves; {
				count(it.Key(), depth+1)
				count(it.Value(), depth+1)
			}
		case v.Kind() == reflect.Struct:
			for f := 0; f < v.NumField() && n < maxLeaves; f++ {
				count(v.Field(f), depth+1)
			}
		case v.Kind() == reflect.Slice || v.Kind() == reflect.Array:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				n += v.Len()
				return
			}
			for e := 0; e < v.Len() && n < maxLeaves; e++ {
				count(v.Index(e), depth+1)
			}
		default:
			n++
		}
	}
	count(reflect.ValueOf(args[i]), 0)
	return max(min(n, maxLeaves), 1)
}
