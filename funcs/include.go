package funcs

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/template"
)

// IncludeDepth is the include nesting limit NewIncluder uses when given zero or less.
const IncludeDepth = 32

var (
	// ErrIncludeDepth is wrapped by the error include returns when the nesting limit is
	// exceeded (usually a partial that includes itself).
	ErrIncludeDepth = errors.New("include depth limit exceeded")
	// ErrNoTemplate is wrapped by the error include returns for an unknown template name.
	ErrNoTemplate = errors.New("no such template")
)

// Includer provides the include function for one template set. It counts nesting, so it
// is not safe for concurrent use: create one per render, bound to that render's clone:
//
//	clone, err := compiled.Clone()
//	…
//	inc := funcs.NewIncluder(clone, funcs.IncludeDepth)
//	clone.Funcs(template.FuncMap{"include": inc.Include})
//	err = clone.ExecuteTemplate(w, section, data)
type Includer struct {
	set       *template.Template
	limit     int
	maxOutput int      // bytes one include may write; 0 for no bound
	chain     []string // names of the includes being executed, outermost first
}

// NewIncluder returns an Includer that executes templates of set, nesting at most
// maxDepth includes deep (IncludeDepth when maxDepth <= 0).
func NewIncluder(set *template.Template, maxDepth int) *Includer {
	if maxDepth <= 0 {
		maxDepth = IncludeDepth
	}
	return &Includer{set: set, limit: maxDepth}
}

// Include executes the template called name with data and returns its output, so that
// a partial's output can be piped: {{ include "file_block" . | indent 2 }}.
func (in *Includer) Include(name string, data any) (string, error) {
	if in.set == nil || in.set.Lookup(name) == nil {
		return "", fmt.Errorf("template %q: %w", name, ErrNoTemplate)
	}
	if len(in.chain) >= in.limit {
		return "", &depthError{chain: append(append([]string(nil), in.chain...), name), limit: in.limit}
	}
	in.chain = append(in.chain, name)
	defer func() { in.chain = in.chain[:len(in.chain)-1] }()

	var b strings.Builder
	var w io.Writer = &b
	if in.maxOutput > 0 {
		w = &capped{w: &b, left: in.maxOutput, bound: BoundSectionOutput, limit: in.maxOutput}
	}
	if err := in.set.ExecuteTemplate(w, name, data); err != nil {
		// Pass a depth error up as it is: wrapping it once per level would repeat the
		// template error prefix limit times.
		if de, ok := errors.AsType[*depthError](err); ok {
			return "", de
		}
		return "", err
	}
	return b.String(), nil
}

// Include returns the metered include function for set: its output is
// held to the section output bound while it executes, and its result is
// weighed like any function's.
func (m *Meter) Include(set *template.Template, maxDepth int) any {
	in := NewIncluder(set, maxDepth)
	in.maxOutput = m.limits.SectionOutput
	return m.wrap("include", in.Include)
}

// depthError names the include chain that hit the limit.
type depthError struct {
	chain []string
	limit int
}

func (e *depthError) Error() string {
	return fmt.Sprintf("%v (limit %d): %s", ErrIncludeDepth, e.limit, strings.Join(e.chain, " > "))
}

func (e *depthError) Unwrap() error { return ErrIncludeDepth }
