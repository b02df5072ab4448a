package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/sysprompt/sysprompt/engine/internal/lintturns"
	"github.com/sysprompt/sysprompt/engine/internal/pack"
)

// LintResult is what Lint found in a pack.
type LintResult struct {
	Errors    ErrorList // load, parse, tier and execution errors; the pack does not render
	Warnings  []*Error  // findings that do not stop a render
	Sections  int       // section files found
	Harnesses int
	Turns     int // turns whose sections were executed
}

// LintRequest is a request Lint executes as it is, besides the ones it
// generates; Name says which in an error (a file name, say).
type LintRequest struct {
	Name    string
	Request Request
}

// MaxLintTurns bounds the generated turns Lint executes; past it, Lint
// stops with a warning.
const MaxLintTurns = 4096

// Lint validates a pack the way New does, and then executes what a render
// would: every section of every harness, in every mode, chat type and
// session kind, over a request that sets every field and one that sets
// none, with a workspace holding every bootstrap file and a skill, and
// over the requests given as they are (those naming a harness the pack
// does not declare are skipped). Each execution error is reported
// once, at its position, naming the first turn that met it. It also
// returns the warnings New tolerates, such as a section file listed in no
// layer.
func Lint(packFS fs.FS, requests ...LintRequest) LintResult {
	e, err := New(packFS)
	if err != nil {
		// New reports every load problem as an ErrorList.
		list, ok := err.(ErrorList)
		if !ok {
			list = ErrorList{{Err: err}}
		}
		return LintResult{Errors: list}
	}
	e.opts.fs = lintturns.Files(e.pack.Bootstrap.Files)
	res := LintResult{Warnings: e.pack.Warnings, Sections: len(e.pack.Sections), Harnesses: len(e.pack.Harnesses)}
	seen, spent := map[string]bool{}, map[*pack.Section]bool{}
	run := func(t lintturns.Turn) {
		res.Turns++
		for _, err := range e.lintTurn(t.Request, spent) {
			if key := err.Error(); !seen[key] {
				seen[key] = true
				c := *err
				c.Err = fmt.Errorf("%s: %w", t.Label(), err.Err)
				res.Errors = append(res.Errors, &c)
			}
		}
	}
	for t := range lintturns.Sweep(e.pack, e.Harnesses()) {
		if res.Turns == MaxLintTurns {
			res.Warnings = append(res.Warnings, &Error{Phase: PhaseExec,
				Err: fmt.Errorf("lint executed the first %d turns only, stopping in harness %q", res.Turns, t.Request.Harness)})
			break
		}
		run(t)
	}
	for _, r := range requests {
		req := r.Request
		if _, ok := e.pack.Harnesses[cmp.Or(req.Harness, DefaultHarness)]; !ok {
			continue // an example for a harness this pack does not declare
		}
		if req.Workspace.Path != "" {
			req.Workspace.Path = lintturns.Workspace // the files are Lint's own
		}
		run(lintturns.Turn{Name: r.Name, Request: req})
	}
	// In file order, whichever turn met them first.
	slices.SortStableFunc(res.Errors, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	return res
}

// lintTurn executes every section of req's harness that req's mode
// renders, and returns every error, not only the first. A section that
// passed one of the Limits is marked spent and not executed again: it
// cost up to the limit, and its error is known.
func (e *Engine) lintTurn(req Request, spent map[*pack.Section]bool) []*Error {
	set := e.pool.Get().(*renderSet)
	defer e.pool.Put(set)
	ctx := context.Background()
	set.meter.Start(ctx)
	st, h, _, err := e.begin(ctx, set, &req)
	if err != nil {
		return []*Error{asList(PhaseRequest, err)[0]}
	}
	var errs []*Error
	for _, ly := range h.Layers {
		for _, sec := range ly.Sections {
			if spent[sec] {
				continue
			}
			set.meter.Start(ctx) // each section on its own budget: a render stops at the first error
			if key, o := st.key(sec); o.pending {
				if _, err := st.run(sec, key); err != nil {
					errs = append(errs, asList(PhaseExec, err)[0])
					_, limit := errors.AsType[*LimitError](err)
					spent[sec] = limit
				}
			}
		}
	}
	return errs
}
