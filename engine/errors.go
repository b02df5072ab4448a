package engine

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"text/template"

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

// posError wraps a strict decoding error as an *Error at file.
func posError(phase Phase, file string, err error) *Error {
	var pe *strict.PosError
	if errors.As(err, &pe) {
		return &Error{Phase: phase, File: file, Line: pe.Line, Col: pe.Col, Err: errors.New(pe.Msg)}
	}
	return &Error{Phase: phase, File: file, Err: err}
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

// parseTemplateError reads text/template's location prefix. It is the only
// place that reads the standard library's message text; its table test
// pins the formats it accepts.
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
	if i := strings.Index(rest, "executing \""); i == 0 {
		if j := strings.Index(rest, ": "); j > 0 {
			rest = rest[j+2:]
		}
	}
	return templateLocation{Name: m[1], Line: line, Col: col, Rest: rest}, true
}

// missingFieldRe matches a field the view struct lacks; the type it
// names is the long generated view type, which the message drops.
var missingFieldRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`can't evaluate field (\w+) in type \*?struct \{.*$`)
})

// execError converts an error from executing a section's template into an
// *Error, turning "no entry for key" on a stable view into a TierError.
func execError(sec *section, err error) *Error {
	var own *Error
	if errors.As(err, &own) {
		return own
	}
	e := &Error{Phase: PhaseExec, File: sec.file, Section: sec.id, Err: err}
	var xerr template.ExecError
	msg := err.Error()
	if errors.As(err, &xerr) {
		msg = xerr.Err.Error()
	}
	loc, ok := parseTemplateError(msg)
	if !ok {
		return e
	}
	e.File, e.Line, e.Col = loc.Name, loc.Line, loc.Col
	cause := errors.Unwrap(xerr.Err)
	switch m := missingFieldRe().FindStringSubmatch(loc.Rest); {
	case m != nil && sec.tier == TierStable && volatileKeys[m[1]]:
		e.Phase = PhaseTier
		e.Err = &TierError{Field: m[1]}
	case m != nil:
		e.Err = fmt.Errorf("the section data has no field %s", m[1])
	case cause != nil:
		e.Err = fmt.Errorf("%s: %w", trimCalling(loc.Rest, cause), cause)
	default:
		e.Err = errors.New(loc.Rest)
	}
	return e
}

// trimCalling keeps the part of an exec message before the wrapped cause
// ("error calling required") so the cause is not printed twice.
func trimCalling(rest string, cause error) string {
	return strings.TrimSuffix(strings.TrimSuffix(rest, cause.Error()), ": ")
}
