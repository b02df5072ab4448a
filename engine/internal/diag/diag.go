// Package diag is the one error type of loading and rendering a pack,
// and the one place that turns a text/template or decoder error into a
// file:line:col position.
package diag

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"

	"github.com/sysprompt/sysprompt/engine/internal/strict"
)

// Phase names the stage of work an error comes from.
type Phase string

// The phases of loading and rendering.
const (
	PhaseManifest    Phase = "manifest"
	PhaseFrontMatter Phase = "front matter"
	PhaseParse       Phase = "parse"
	PhaseExec        Phase = "exec"
	PhaseTier        Phase = "tier"
	PhaseConfig      Phase = "config"
	PhaseRequest     Phase = "request"
	PhaseWorkspace   Phase = "workspace"
)

// Error is the one error type of loading and rendering. Error() is a
// single line: "file:line:col: section id: message".
type Error struct {
	Phase   Phase
	File    string // pack-relative or user-given path; may be empty
	Line    int    // 1-based; 0 when unknown
	Col     int    // 1-based; 0 when unknown
	Section string // section id, when the error belongs to one
	Err     error
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
			if e.Col > 0 {
				fmt.Fprintf(&b, ":%d", e.Col)
			}
		}
		b.WriteString(": ")
	}
	if e.Section != "" {
		fmt.Fprintf(&b, "section %s: ", e.Section)
	}
	msg := "unknown error"
	if e.Err != nil {
		msg = e.Err.Error()
	}
	b.WriteString(strings.ReplaceAll(msg, "\n", " "))
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorList holds every problem found while loading a pack. Error() names
// the first and counts the rest; range over it for all of them.
type ErrorList []*Error

func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more)", l[0].Error(), len(l)-1)
}

// Unwrap lets errors.As find an *Error inside the list.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// TierError is a stable section reaching for a volatile request field.
type TierError struct {
	Field string
}

func (e *TierError) Error() string {
	return fmt.Sprintf("stable section uses volatile field %s: the cached prefix must not depend on it (move the use to a dynamic section)", e.Field)
}

// Decode wraps a strict TOML or JSON decoding error as an *Error at file,
// with the position the decoder found.
func Decode(phase Phase, file string, err error) *Error {
	var pe *strict.PosError
	if errors.As(err, &pe) {
		return &Error{Phase: phase, File: file, Line: pe.Line, Col: pe.Col, Err: errors.New(pe.Msg)}
	}
	return &Error{Phase: phase, File: file, Err: err}
}

// Template converts an error of parsing or executing a text/template into
// an *Error at the file, line and column the template names; exec errors
// keep their cause for errors.Is and errors.As.
func Template(phase Phase, file, section string, err error) *Error {
	var own *Error
	if errors.As(err, &own) {
		return own
	}
	e := &Error{Phase: phase, File: file, Section: section, Err: err}
	// An include wraps its template's ExecError in the caller's; the
	// innermost one says where the error happened.
	var xerr template.ExecError
	for inner := error(err); errors.As(inner, &xerr); inner = xerr.Err {
		err = xerr
	}
	loc, ok := parseTemplateError(err.Error())
	if !ok {
		return e
	}
	e.File, e.Line, e.Col = loc.Name, loc.Line, loc.Col
	if errors.As(err, &xerr) {
		if cause := errors.Unwrap(xerr.Err); cause != nil {
			e.Err = fmt.Errorf("%s: %w", trimCalling(loc.Rest, cause), cause)
			return e
		}
	}
	e.Err = errors.New(loc.Rest)
	return e
}

// Node builds an *Error at a parse node of tree, using the position
// text/template's ErrorContext gives.
func Node(tree *parse.Tree, node parse.Node, phase Phase, section string, err error) *Error {
	loc, _ := tree.ErrorContext(node)
	l, c := splitLoc(loc)
	return &Error{Phase: phase, File: tree.ParseName, Line: l, Col: c, Section: section, Err: err}
}

// splitLoc reads the "file:line:col" that ErrorContext returns, whose
// column counts from 0, and returns a 1-based column.
func splitLoc(loc string) (line, col int) {
	i := strings.LastIndexByte(loc, ':')
	if i < 0 {
		return 0, 0
	}
	j := strings.LastIndexByte(loc[:i], ':')
	if j < 0 {
		return 0, 0
	}
	line, _ = strconv.Atoi(loc[j+1 : i])
	col, _ = strconv.Atoi(loc[i+1:])
	return line, col + 1
}

// templateLocation is what the text/template error prefix
// "template: NAME:LINE:COL: rest" (or NAME:LINE:) says.
type templateLocation struct {
	Name      string
	Line, Col int
	Rest      string
}

// templatePrefixRe is compiled on the first error, not at package init.
var templatePrefixRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^template: ([^:]+):(\d+):(?:(\d+):)? ?(.*)$`)
})

// parseTemplateError reads text/template's location prefix. Parse errors
// carry no node, so their message is the only source of the position;
// this is the one place that reads the standard library's message text,
// and its table test pins the formats it accepts.
func parseTemplateError(msg string) (templateLocation, bool) {
	m := templatePrefixRe().FindStringSubmatch(msg)
	if m == nil {
		return templateLocation{}, false
	}
	line, _ := strconv.Atoi(m[2])
	col := 0
	if m[3] != "" {
		// text/template counts columns from 0; we count from 1 like editors.
		c, _ := strconv.Atoi(m[3])
		col = c + 1
	}
	rest := m[4]
	// Exec errors repeat the name: `executing "NAME" at <.X>: msg`.
	if strings.HasPrefix(rest, "executing \"") {
		if j := strings.Index(rest, ": "); j > 0 {
			rest = rest[j+2:]
		}
	}
	return templateLocation{Name: m[1], Line: line, Col: col, Rest: rest}, true
}

// MissingField returns the field name of a "can't evaluate field X in
// type struct {...}" exec error, whose long generated type name means
// nothing to a prompt author. The phrase is looked for anywhere in the
// message: through include it follows "error calling include: …".
func MissingField(err *Error) (string, bool) {
	m := missingFieldRe().FindStringSubmatch(err.Err.Error())
	if m == nil {
		return "", false
	}
	return m[1], true
}

// UndefinedFunction returns the name of a parse error's
// `function "X" not defined`.
func UndefinedFunction(err *Error) (string, bool) {
	m := undefinedFuncRe().FindStringSubmatch(err.Err.Error())
	if m == nil {
		return "", false
	}
	return m[1], true
}

var undefinedFuncRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^function "([^"]+)" not defined$`)
})

var missingFieldRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`can't evaluate field (\w+) in type \*?struct \{.*$`)
})

// trimCalling keeps the part of an exec message before the wrapped cause
// ("error calling required") so the cause is not printed twice.
func trimCalling(rest string, cause error) string {
	return strings.TrimSuffix(strings.TrimSuffix(rest, cause.Error()), ": ")
}
