package pack

import (
	"errors"
	"text/template"
	"text/template/parse"

	"github.com/sysprompt/sysprompt/engine/internal/diag"
	"github.com/sysprompt/sysprompt/funcs"
)

// instrument makes the templates of the set count themselves: every
// range body starts with a call to funcs.StepFunc, and the body of every
// template that calls another (template, block or include) is framed by
// calls to funcs.EnterFunc and funcs.LeaveFunc. text/template offers no
// hook per template or per iteration, and without one a pack can loop,
// or call templates from templates, for as long as it likes while
// writing nothing and calling no other function. A template that calls
// none runs once per call from one that is counted, so it needs no
// frame of its own. The calls print nothing.
func instrument(set *template.Template) {
	done := map[*parse.Tree]bool{}
	for _, t := range set.Templates() {
		tree := t.Tree
		if tree == nil || tree.Root == nil || done[tree] {
			continue
		}
		done[tree] = true
		root := tree.Root
		countIterations(tree, root)
		if !callsTemplates(root) {
			continue
		}
		pos := root.Position()
		nodes := make([]parse.Node, 0, len(root.Nodes)+2)
		nodes = append(nodes, call(tree, pos, funcs.EnterFunc))
		nodes = append(nodes, root.Nodes...)
		nodes = append(nodes, call(tree, pos, funcs.LeaveFunc))
		root.Nodes = nodes
	}
}

// callsTemplates reports whether anything under n executes a template.
func callsTemplates(n parse.Node) bool {
	found := false
	walk(n, func(n parse.Node) {
		switch n := n.(type) {
		case *parse.TemplateNode:
			found = true
		case *parse.IdentifierNode:
			found = found || n.Ident == "include"
		}
	})
	return found
}

// countIterations puts a step call at the top of every range body
// under root.
func countIterations(tree *parse.Tree, root *parse.ListNode) {
	walk(root, func(n parse.Node) {
		if r, ok := n.(*parse.RangeNode); ok {
			r.List.Nodes = append([]parse.Node{call(tree, r.Position(), funcs.StepFunc)}, r.List.Nodes...)
		}
	})
}

// call is the node {{name}} at pos: an action calling a function of no
// arguments.
func call(tree *parse.Tree, pos parse.Pos, name string) *parse.ActionNode {
	id := parse.NewIdentifier(name).SetTree(tree).SetPos(pos)
	cmd := &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{id}}
	pipe := &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Cmds: []*parse.CommandNode{cmd}}
	return &parse.ActionNode{NodeType: parse.NodeAction, Pos: pos, Pipe: pipe}
}

// checkConstants finds calls whose constant arguments are sure to pass a
// bound ({{ repeat 10000000000 "x" }}, {{ range 100000000 }}), so lint
// reports them rather than the first render.
func checkConstants(set *template.Template, p *Pack, limits funcs.Limits) diag.ErrorList {
	var errs diag.ErrorList
	for _, t := range sortedTemplates(set) {
		if t.Tree == nil || t.Root == nil {
			continue
		}
		section := sectionOf(p, t.Tree.ParseName)
		walk(t.Root, func(n parse.Node) {
			var err error
			switch n := n.(type) {
			case *parse.CommandNode:
				err = constantCall(limits, n)
			case *parse.RangeNode:
				if c := n.Pipe.Cmds; len(n.Pipe.Decl) <= 2 && len(c) == 1 && len(c[0].Args) == 1 {
					if num, ok := c[0].Args[0].(*parse.NumberNode); ok && num.IsInt && num.Int64 > int64(limits.Steps) {
						err = &funcs.LimitError{Bound: funcs.BoundSteps, Limit: limits.Steps}
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
func constantCall(limits funcs.Limits, cmd *parse.CommandNode) error {
	id, ok := cmd.Args[0].(*parse.IdentifierNode)
	if !ok {
		return nil
	}
	args := make([]any, 0, len(cmd.Args)-1)
	for _, a := range cmd.Args[1:] {
		switch a := a.(type) {
		case *parse.NumberNode:
			if !a.IsInt {
				return nil
			}
			args = append(args, a.Int64)
		case *parse.StringNode:
			args = append(args, a.Text)
		default:
			return nil
		}
	}
	err := limits.CheckConstantCall(id.Ident, args)
	if _, ok := errors.AsType[*funcs.LimitError](err); ok {
		return err
	}
	return nil
}
