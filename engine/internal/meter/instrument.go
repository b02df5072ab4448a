package meter

import (
	"errors"
	"io"
	"reflect"
	"slices"
	"strconv"
	"text/template"
	"text/template/parse"

	"github.com/sysprompt/sysprompt/funcs"
)

// Instrument makes the templates of set report to a Meter what
// text/template does on its own, which no function sees: a pack could
// otherwise loop, or call templates from templates, for as long as it
// likes while writing nothing and calling no function. The added calls
// print nothing and change no value.
//
// A template that can call itself again (through {{template}} or
// include by a constant name, or through an include whose name is
// computed, which may call any template) is framed: entering it counts
// its size and one level of nesting. A template nobody calls with
// {{template}}, or that include may call, counts its size when it
// starts. Any other template's size is counted in each of its callers,
// once per call site, so it costs nothing at run time. Every range body
// counts its size once per iteration, and every range one level of
// nesting while it runs: text/template unwinds an error through nested
// ranges in time quadratic in their depth. The values the comparison and
// indexing builtins are handed are charged.
func Instrument(set *template.Template) {
	g := newGraph(set)
	for _, name := range g.names {
		tree := g.trees[name]
		Walk(tree.Root, func(n parse.Node) {
			switch n := n.(type) {
			case *parse.ListNode:
				leaveRanges(tree, n)
			case *parse.RangeNode:
				n.List.Nodes = append([]parse.Node{call(tree, n.Position(), stepFunc, g.size(n.List))}, n.List.Nodes...)
				n.Pipe.Cmds = append(n.Pipe.Cmds, command(tree, n.Pipe.Position(), rangedFunc))
			case *parse.CommandNode:
				chargeArgs(tree, n)
			}
		})
		root, pos, size := tree.Root, tree.Root.Position(), g.cost[name]
		switch {
		case g.framed[name]:
			root.Nodes = append(append([]parse.Node{call(tree, pos, enterFunc, size)}, root.Nodes...), call(tree, pos, leaveFunc, size))
		case !g.folded(name):
			root.Nodes = append([]parse.Node{call(tree, pos, stepFunc, size)}, root.Nodes...)
		}
	}
}

// leaveRanges puts a leave after every range of list, which ends the
// level of nesting the range's pipeline entered. A break or continue
// ends inside the range; an error ends the whole execution, and with it
// every level.
func leaveRanges(tree *parse.Tree, list *parse.ListNode) {
	for i := 0; i < len(list.Nodes); i++ {
		if r, ok := list.Nodes[i].(*parse.RangeNode); ok {
			list.Nodes = slices.Insert(list.Nodes, i+1, parse.Node(call(tree, r.Position(), leaveFunc, 0)))
			i++
		}
	}
}

// graph is the static call graph of a template set.
type graph struct {
	names    []string // templates with a body, in set order
	trees    map[string]*parse.Tree
	calls    map[string][]string // by {{template}} and constant include
	called   map[string]bool     // named by some {{template}}
	included map[string]bool     // named by some constant include
	computed bool                // some include's name is computed
	framed   map[string]bool     // may be on a call cycle
	cost     map[string]int      // size, folded callees included
}

func newGraph(set *template.Template) *graph {
	g := &graph{trees: map[string]*parse.Tree{}, calls: map[string][]string{}, called: map[string]bool{},
		included: map[string]bool{}, framed: map[string]bool{}, cost: map[string]int{}}
	holders := map[string]bool{} // templates with a computed include
	seen := map[*parse.Tree]bool{}
	for _, t := range set.Templates() {
		if t.Tree == nil || t.Tree.Root == nil || seen[t.Tree] {
			continue
		}
		seen[t.Tree] = true
		name := t.Name()
		g.names = append(g.names, name)
		g.trees[name] = t.Tree
		Walk(t.Tree.Root, func(n parse.Node) {
			switch n := n.(type) {
			case *parse.TemplateNode:
				g.calls[name] = append(g.calls[name], n.Name)
				g.called[n.Name] = true
			case *parse.CommandNode:
				if id, ok := n.Args[0].(*parse.IdentifierNode); !ok || id.Ident != "include" {
					return
				}
				// include's name, or with no argument include itself: computed.
				if s, ok := n.Args[min(1, len(n.Args)-1)].(*parse.StringNode); ok {
					g.calls[name] = append(g.calls[name], s.Text)
					g.included[s.Text] = true
				} else {
					holders[name], g.computed = true, true
				}
			}
		})
	}
	g.findCycles(holders)
	for _, name := range g.names {
		g.cost[name] = g.size(g.trees[name].Root)
	}
	return g
}

// folded reports whether a template's size is counted in its callers.
func (g *graph) folded(name string) bool {
	return !g.framed[name] && g.called[name] && !g.included[name] && !g.computed
}

// findCycles frames every template on a cycle of the graph (Tarjan's
// strongly connected components), and every template holding a computed
// include or able to reach one, which may call it back. On return,
// holders holds every template of the second kind.
func (g *graph) findCycles(holders map[string]bool) {
	index, low, onStack := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	var connect func(string)
	connect = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack, onStack[v] = append(stack, v), true
		for _, w := range g.calls[v] {
			if _, seen := index[w]; !seen && g.trees[w] != nil {
				connect(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var comp []string
		for w := ""; w != v; {
			w, stack = stack[len(stack)-1], stack[:len(stack)-1]
			onStack[w], comp = false, append(comp, w)
		}
		// Components come callees first: whether a callee reaches a
		// computed include is known.
		reaches := false
		for _, w := range comp {
			reaches = reaches || holders[w] || slices.ContainsFunc(g.calls[w], func(c string) bool { return holders[c] })
		}
		cycle := len(comp) > 1 || slices.Contains(g.calls[v], v)
		for _, w := range comp {
			holders[w], g.framed[w] = reaches, reaches || cycle
		}
	}
	for _, v := range g.names {
		if _, seen := index[v]; !seen {
			connect(v)
		}
	}
}

// weighedBuiltins are text/template's builtins whose cost grows with
// their arguments: comparing or hashing a long string.
var weighedBuiltins = map[string]bool{"eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true, "index": true}

// chargeArgs routes the plain variables ($x) and pipelines given to a
// weighed builtin through chargeFunc. Those are where a large
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
				a.Cmds = append(a.Cmds, command(tree, a.Position(), chargeFunc))
			}
		case *parse.VariableNode:
			if len(a.Ident) == 1 {
				cmd.Args[i+1] = &parse.PipeNode{NodeType: parse.NodePipe, Pos: a.Position(), Cmds: []*parse.CommandNode{
					{NodeType: parse.NodeCommand, Pos: a.Position(), Args: []parse.Node{a}},
					command(tree, a.Position(), chargeFunc),
				}}
			}
		}
	}
}

// size is the nodes of a body, counting both branches of an if or with,
// and the size of every template it calls whose size is folded in; a
// range body counts on its own, once per iteration. Sizes saturate, so a
// pack of templates each calling the next twice cannot overflow them.
func (g *graph) size(list *parse.ListNode) int {
	if list == nil {
		return 0
	}
	n := 0
	for _, c := range list.Nodes {
		n = sat(n, 1)
		switch c := c.(type) {
		case *parse.IfNode:
			n = sat(n, sat(g.size(c.List), g.size(c.ElseList)))
		case *parse.WithNode:
			n = sat(n, sat(g.size(c.List), g.size(c.ElseList)))
		case *parse.RangeNode:
			n = sat(n, g.size(c.ElseList))
		case *parse.TemplateNode:
			if t, ok := g.trees[c.Name]; ok && g.folded(c.Name) {
				if _, done := g.cost[c.Name]; !done {
					g.cost[c.Name] = g.size(t.Root)
				}
				n = sat(n, g.cost[c.Name])
			}
		}
	}
	return n
}

// sat is a+b for sizes, stopping at 2^40 rather than wrapping round.
func sat(a, b int) int { return min(a+b, 1<<40) }

// call is the action {{name arg}} at pos.
func call(tree *parse.Tree, pos parse.Pos, name string, arg int) *parse.ActionNode {
	cmd := command(tree, pos, name)
	cmd.Args = append(cmd.Args, &parse.NumberNode{NodeType: parse.NodeNumber, Pos: pos, IsInt: true, Int64: int64(arg), Text: strconv.Itoa(arg)})
	pipe := &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Cmds: []*parse.CommandNode{cmd}}
	return &parse.ActionNode{NodeType: parse.NodeAction, Pos: pos, Pipe: pipe}
}

// command is the command calling the function name with no arguments of
// its own (it may take a piped value).
func command(tree *parse.Tree, pos parse.Pos, name string) *parse.CommandNode {
	id := parse.NewIdentifier(name).SetTree(tree).SetPos(pos)
	return &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{id}}
}

// Walk visits every node under n, depth first.
func Walk(n parse.Node, visit func(parse.Node)) {
	if n == nil || reflect.ValueOf(n).IsNil() {
		return
	}
	visit(n)
	var kids []parse.Node
	switch n := n.(type) {
	case *parse.ListNode:
		kids = n.Nodes
	case *parse.ActionNode:
		kids = []parse.Node{n.Pipe}
	case *parse.PipeNode:
		for _, c := range n.Cmds {
			kids = append(kids, c)
		}
	case *parse.CommandNode:
		kids = n.Args
	case *parse.ChainNode:
		kids = []parse.Node{n.Node}
	case *parse.IfNode:
		kids = []parse.Node{n.Pipe, n.List, n.ElseList}
	case *parse.WithNode:
		kids = []parse.Node{n.Pipe, n.List, n.ElseList}
	case *parse.RangeNode:
		kids = []parse.Node{n.Pipe, n.List, n.ElseList}
	case *parse.TemplateNode:
		kids = []parse.Node{n.Pipe}
	}
	for _, k := range kids {
		Walk(k, visit)
	}
}

// CheckCall reports the bound that call, the source of a command whose
// arguments are all constants ({{ repeat 10000000000 "x" }} without the
// braces), would pass, by running it on a throwaway meter. When the call
// lacks an argument it is tried again with one piped in, as at run time:
// "x", then 1. It returns nil for a call within the bounds, and for one
// that fails otherwise, whose error the render reports.
func CheckCall(l Limits, call string) error {
	for _, src := range []string{call, `"x" | ` + call, "1 | " + call} {
		t, err := template.New("").Funcs(funcs.New(New(l, nil))).Parse("{{ " + src + " }}")
		if err == nil {
			err = t.Execute(io.Discard, nil)
		}
		if le, ok := errors.AsType[*LimitError](err); ok {
			return le
		} else if err == nil {
			return nil
		}
	}
	return nil
}
