package funcs

import (
	"fmt"
	"reflect"
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
			n, _ := argsSize(args)
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
	m["printf"] = func(format string, args ...any) string {
		n, leaves := argsSize(args)
		n = addSize(n, len(format))
		b.Want("printf", addSize(n, mulSize(formatPadding(format, args), max(leaves, 1))))
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

// formatPadding bounds what format's widths and precisions can add to
// each value fmt prints (fmt pads every element, key and field of a
// list, map or struct), whichever argument each verb prints: the numbers
// after each '%' but an argument index's, and for each '*' the largest
// integer argument (fmt refuses one over 1e6).
func formatPadding(format string, args []any) int {
	star := 0
	for _, a := range args {
		switch v := reflect.ValueOf(a); {
		case v.CanInt():
			star = max(star, int(min(max(v.Int(), -v.Int()), 1e6)))
		case v.CanUint():
			star = max(star, int(min(v.Uint(), 1e6)))
		}
	}
	pad := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		num := 0
		for i++; i < len(format) && strings.IndexByte("+-# .*[0123456789", format[i]) >= 0; i++ {
			switch c := format[i]; {
			case c >= '0' && c <= '9':
				num = min(num*10+int(c-'0'), 1<<40)
				continue
			case c == '*':
				pad = addSize(pad, star)
			case c == '[':
				i += max(strings.IndexByte(format[i:], ']'), 0)
			}
			pad, num = addSize(pad, num), 0
		}
		pad = addSize(pad, num)
	}
	return pad
}
