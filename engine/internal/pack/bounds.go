package pack

import (
	"errors"
	"strconv"
	"text/template"
	"text/template/parse"

	"github.com/sysprompt/sysprompt/engine/internal/diag"
	"github.com/sysprompt/sysprompt/funcs"
)

// instrument makes the templates of the set count and weigh what
// text/template does on its own, which no function of the map sees: a
// pack could otherwise loop, or call templates from templates, for as
// long as it likes while writing nothing and calling no function. Every
// template's body is framed by funcs.EnterFunc (given its size in
// nodes) and funcs.LeaveFunc, every range body starts with
// funcs.StepFunc (given its size) and hands what it ranges over through
// funcs.RangedFunc, and the variables and pipelines given to the
// comparison and indexing builtins pass through funcs.ChargeFunc. The
// added calls print nothing and change no value.
func instrument(set *template.Template) {
	done := map[*parse.Tree]bool{}
	for _, t := range set.Templates() {
		tree := t.Tree
		if tree == nil || tree.Root == nil || done[tree] {
			continue
		}
		done[tree] = true
		root := tree.Root
		size := nodes(root)
		walk(root, func(n parse.Node) {
			switch n := n.(type) {
			case *parse.RangeNode:
				n.List.Nodes = append([]parse.Node{call(tree, n.Position(), funcs.StepFunc, nodes(n.List))}, n.List.Nodes...)
				n.Pipe.Cmds = append(n.Pipe.Cmds, command(tree, n.Pipe.Position(), funcs.RangedFunc))
			case *parse.CommandNode:
				chargeArgs(tree, n)
			}
		})
		pos := root.Position()
		framed := make([]parse.Node, 0, len(root.Nodes)+2)
		framed = append(framed, call(tree, pos, funcs.EnterFunc, size))
		framed = append(framed, root.Nodes...)
		framed = append(framed, call(tree, pos, funcs.LeaveFunc, -1))
		root.Nodes = framed
	}
}

// weighedBuiltins are text/template's builtins whose cost grows with
// their arguments: comparing or hashing a long string.
var weighedBuiltins = map[string]bool{"eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true, "index": true}

// chargeArgs routes the plain variables ($x) and pipelines given to a
// weighed builtin through funcs.ChargeFunc. Those are where a large
// value built by a function can reach it; fields of the dot are the
// caller's data, bounded when it was read. A variable or pipeline gives
// the builtin the same value with the charge in between, so the result
// and any error are unchanged.
func chargeArgs(tree *parse.Tree, cmd *parse.CommandNode) {
	id, ok := cmd.Args[0].(*parse.IdentifierNode)
	if !ok || !weighedBuiltins[id.Ident] {
		return
	}
	for i, a := range cmd.Args[1:] {
		switch a := a.(type) {
		case *parse.PipeNode:
			if len(a.Decl) == 0 {
				a.Cmds = append(a.Cmds, command(tree, a.Position(), funcs.ChargeFunc))
			}
		case *parse.VariableNode:
			if len(a.Ident) == 1 {
				cmd.Args[i+1] = &parse.PipeNode{NodeType: parse.NodePipe, Pos: a.Position(), Cmds: []*parse.CommandNode{
					{NodeType: parse.NodeCommand, Pos: a.Position(), Args: []parse.Node{a}},
					command(tree, a.Position(), funcs.ChargeFunc),
				}}
			}
		}
	}
}

// nodes is the size of a body in nodes, counting both branches of an if
// or with; a range body is counted on its own, once per iteration.
func nodes(list *parse.ListNode) int {
	if list == nil {
		return 0
	}
	n := 0
	for _, c := range list.Nodes {
		n++
		switch c := c.(type) {
		case *parse.IfNode:
			n += nodes(c.List) + nodes(c.ElseList)
		case *parse.WithNode:
			n += nodes(c.List) + nodes(c.ElseList)
		case *parse.RangeNode:
			n += nodes(c.ElseList)
		}
	}
	return n
}

// call is the action {{name}}, or {{name arg}} when arg is not negative,
// at pos.
func call(tree *parse.Tree, pos parse.Pos, name string, arg int) *parse.ActionNode {
	cmd := command(tree, pos, name)
	if arg >= 0 {
		cmd.Args = append(cmd.Args, &parse.NumberNode{NodeType: parse.NodeNumber, Pos: pos, IsInt: true, Int64: int64(arg), Text: strconv.Itoa(arg)})
	}
	pipe := &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Cmds: []*parse.CommandNode{cmd}}
	return &parse.ActionNode{NodeType: parse.NodeAction, Pos: pos, Pipe: pipe}
}

// command is the command calling the function name with no arguments of
// its own (it may take a piped value).
func command(tree *parse.Tree, pos parse.Pos, name string) *parse.CommandNode {
	id := parse.NewIdentifier(name).SetTree(tree).SetPos(pos)
	return &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{id}}
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
