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
// are all constants; a value piped in is taken to be one byte long.
func constantCall(limits meter.Limits, cmd *parse.CommandNode) error {
	if _, ok := cmd.Args[0].(*parse.IdentifierNode); !ok {
		return nil
	}
	for _, a := range cmd.Args[1:] {
		switch a := a.(type) {
		case *parse.NumberNode:
			if !a.IsInt {
				return nil
			}
		case *parse.StringNode:
		default:
			return nil
		}
	}
	err := meter.CheckCall(limits, cmd.String())
	if _, ok := errors.AsType[*meter.LimitError](err); ok {
		return err
	}
	return nil
}
