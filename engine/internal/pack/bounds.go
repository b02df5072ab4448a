package pack

import (
	"errors"
	"text/template"
	"text/template/parse"

	"github.com/sysprompt/sysprompt/engine/internal/diag"
	"github.com/sysprompt/sysprompt/engine/internal/meter"
)

// checkConstants finds calls whose constant arguments are sure to pass a
// bound ({{ repeat 10000000000 "x" }}, {{ range 100000000 }}), so lint
// reports them rather than the first render.
func checkConstants(set *template.Template, p *Pack, limits meter.Limits) diag.ErrorList {
	var errs diag.ErrorList
	for _, t := range sortedTemplates(set) {
		if t.Tree == nil || t.Root == nil {
			continue
		}
		section := sectionOf(p, t.Tree.ParseName)
		meter.Walk(t.Root, func(n parse.Node) {
			var err error
			switch n := n.(type) {
			case *parse.CommandNode:
				err = constantCall(limits, n)
			case *parse.RangeNode:
				if c := n.Pipe.Cmds; len(n.Pipe.Decl) <= 2 && len(c) == 1 && len(c[0].Args) == 1 {
					if num, ok := c[0].Args[0].(*parse.NumberNode); ok && num.IsInt && num.Int64 > int64(limits.Steps) {
						err = &meter.LimitError{Bound: meter.BoundSteps, Limit: limits.Steps}
					}
				}
			}
			if err != nil {
				errs = append(errs, diag.Node(t.Tree, n, diag.PhaseParse, section, err))
			}
		})
	}
	return errs
}

// constantCall checks one command whose arguments after the function name
// are all constants, or constant calls in parentheses ({{ printf "%9d"
// (until 300) }}); a value piped in is taken to be one byte long. A bound
// met inside a parenthesized call is left to that call's own check.
func constantCall(limits meter.Limits, cmd *parse.CommandNode) error {
	fn, ok := cmd.Args[0].(*parse.IdentifierNode)
	if !ok || !constantArgs(cmd) {
		return nil
	}
	err := meter.CheckCall(limits, cmd.String())
	if le, ok := errors.AsType[*meter.LimitError](err); ok && (le.Func == "" || le.Func == fn.Ident) {
		return err
	}
	return nil
}

// constantArgs reports whether every argument of cmd after the first is
// a string, an integer, or a pipeline of calls with such arguments.
func constantArgs(cmd *parse.CommandNode) bool {
	for _, a := range cmd.Args[1:] {
		switch a := a.(type) {
		case *parse.NumberNode:
			if !a.IsInt {
				return false
			}
		case *parse.StringNode:
		case *parse.PipeNode:
			for _, c := range a.Cmds {
				if _, ok := c.Args[0].(*parse.IdentifierNode); !ok || len(a.Decl) > 0 || !constantArgs(c) {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}
