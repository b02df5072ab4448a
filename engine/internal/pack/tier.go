package pack

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/sysprompt/sysprompt/engine/internal/diag"
	"github.com/sysprompt/sysprompt/engine/internal/meter"
	"github.com/sysprompt/sysprompt/internal/hint"
)

// Static checks over the parsed templates. They run at New, so a pack
// that would fail on some request fails for every request, at load time.

// checkReferences reports {{template "x"}} and {{include "x" …}} calls
// that name no template.
func checkReferences(master *template.Template, p *Pack) diag.ErrorList {
	var errs diag.ErrorList
	for _, t := range sortedTemplates(master) {
		if t.Tree == nil {
			continue
		}
		section := sectionOf(p, t.Tree.ParseName)
		meter.Walk(t.Tree.Root, func(n parse.Node) {
			name, ok := calledTemplate(n)
			if ok && master.Lookup(name) == nil {
				errs = append(errs, diag.Node(t.Tree, n, diag.PhaseParse, section,
					fmt.Errorf("template %q is not defined in the pack", name)))
			}
		})
	}
	return errs
}

func sectionOf(p *Pack, file string) string {
	for id, s := range p.Sections {
		if s.File == file {
			return id
		}
	}
	return ""
}

// calledTemplate returns the template a node calls by constant name.
func calledTemplate(n parse.Node) (string, bool) {
	switch n := n.(type) {
	case *parse.TemplateNode:
		return n.Name, true
	case *parse.CommandNode:
		if len(n.Args) >= 2 {
			if id, ok := n.Args[0].(*parse.IdentifierNode); ok && id.Ident == "include" {
				if s, ok := n.Args[1].(*parse.StringNode); ok {
					return s.Text, true
				}
			}
		}
	}
	return "", false
}

// checkTiers finds sections that read a field the view does not have, and
// stable sections that read a volatile field: .Field at the top level of
// the section (where dot is the view), $.Field anywhere, and the same
// inside partials called with the view as their dot. The same walk
// records each section's read set (Section.Reads, Section.ReadsAll).
//
// A variable is taken to hold the view wherever it is ever bound to it
// in the section: text/template scopes variables by block and template,
// and a loop or a branch decides at run time which binding a use sees,
// so a read set must count every binding that may reach a use. The walk
// is repeated until no new binding turns up.
func checkTiers(master *template.Template, p *Pack, fields Fields) diag.ErrorList {
	var errs diag.ErrorList
	listed := map[string]bool{}
	for _, h := range p.Harnesses {
		for _, l := range h.Layers {
			for _, sec := range l.Sections {
				listed[sec.ID] = true
			}
		}
	}
	for _, id := range sortedKeys(p.Sections) {
		sec := p.Sections[id]
		t := master.Lookup(sec.File)
		if t == nil || t.Tree == nil {
			continue
		}
		c := &tierChecker{master: master, fields: fields, section: id, stable: sec.Tier == TierStable,
			viewVars: map[string]bool{}, otherVars: map[string]bool{}}
		if !listed[id] {
			// The manifest's own keys are checked only where it renders
			// the section: a pack may drop vars its unused sections read.
			c.fields.MapKeys = nil
		}
		for c.bound = true; c.bound; {
			c.bound, c.dollar, c.errs, c.escapes = false, isTheView, nil, false
			c.seen, c.reads = map[string]bool{}, map[string]bool{}
			c.list(t.Tree, t.Tree.Root, isTheView)
		}
		errs = append(errs, c.errs...)
		sec.Reads, sec.ReadsAll = sortedKeys(c.reads), c.escapes
	}
	return errs
}

// level says whether a value is the view: not, surely, or maybe (a
// variable bound to the view in one place and to something else in
// another).
type level int8

const (
	notView level = iota
	maybeView
	isTheView
)

type tierChecker struct {
	master  *template.Template
	fields  Fields
	section string
	stable  bool
	errs    diag.ErrorList

	// Variables ever bound to the view, and to anything else; bound says
	// this walk found a binding the last one had not.
	viewVars, otherVars map[string]bool
	bound               bool
	dollar              level           // what $ is in the template being walked
	seen                map[string]bool // partials already walked, by name and level
	reads               map[string]bool // field paths read, "A" or "A.B"
	escapes             bool            // the whole view is used as a value
}

// bind records that a variable is bound to a value of level l.
func (c *tierChecker) bind(name string, l level) {
	for _, set := range []struct {
		vars map[string]bool
		on   bool
	}{{c.viewVars, l != notView}, {c.otherVars, l != isTheView}} {
		if set.on && !set.vars[name] {
			set.vars[name], c.bound = true, true
		}
	}
}

// variable says whether the variable name holds the view.
func (c *tierChecker) variable(name string) level {
	switch {
	case name == "$":
		return c.dollar
	case !c.viewVars[name]:
		return notView
	case c.otherVars[name]:
		return maybeView
	}
	return isTheView
}

// read records a chain of names read from a value of level l: its first
// two, since a second name is a field (or a method) of the first. A
// surely-view read is checked; a maybe-view one counts only where it
// names a field of the view (elsewhere the variable held something else).
// detail narrows a read of exactly two names: "?" when only its truth is
// used, or the constant arguments of a method call (` "BOOTSTRAP.md"`).
func (c *tierChecker) read(tree *parse.Tree, n parse.Node, prefix int, ident []string, l level, detail string) {
	switch {
	case l == isTheView:
		if c.field(tree, n, ident[0]) {
			c.chain(tree, n.Position()+parse.Pos(prefix), ident)
		}
	case l == notView, !c.fields.All[ident[0]]:
		return
	}
	if len(ident) != 2 {
		ident, detail = ident[:min(len(ident), 2)], ""
	}
	c.reads[strings.Join(ident, ".")+detail] = true
}

// field checks one top-level field name read at node n; ok says the
// view has it.
func (c *tierChecker) field(tree *parse.Tree, n parse.Node, name string) (ok bool) {
	switch {
	case !c.fields.All[name]:
		want := cmp.Or(hint.DidYouMean(name, sortedKeys(c.fields.All)), "fields: "+strings.Join(sortedKeys(c.fields.All), ", "))
		c.errs = append(c.errs, diag.Node(tree, n, diag.PhaseParse, c.section,
			fmt.Errorf("the section data has no field %s (%s)", name, want)))
		return false
	case c.stable && c.fields.Volatile[name]:
		c.errs = append(c.errs, diag.Node(tree, n, diag.PhaseTier, c.section, &diag.TierError{Field: name}))
	}
	return true
}

// chain checks the names after the first of a chain read from the view
// (.Tools.HasAny, $.Pack.Vars.cli) against the view's type, as executing
// it would resolve them: a method, a struct field, a key of a map whose
// keys are known. Each error is at its name; pos is where the dot before
// the first name is.
func (c *tierChecker) chain(tree *parse.Tree, pos parse.Pos, ident []string) {
	t := c.fields.Type
	if t == nil {
		return
	}
	for i, name := range ident {
		pos++ // the dot before name
		path := strings.Join(ident[:i], ".")
		next, err := member(t, path, name, c.fields.MapKeys)
		if err != nil {
			c.errs = append(c.errs, diag.Node(tree, &parse.TextNode{NodeType: parse.NodeText, Pos: pos}, diag.PhaseParse, c.section, err))
			return
		}
		if next == nil {
			return // a value of no known type, or a method's result
		}
		t, pos = next, pos+parse.Pos(len(name))
	}
}

// member is the type of name read from a value of type t at path, nil
// when that cannot be known before a render, or the error executing it
// is sure to give.
func member(t reflect.Type, path, name string, mapKeys map[string][]string) (reflect.Type, error) {
	if t.Kind() == reflect.Interface {
		return nil, nil
	}
	// Fields of the view are addressable, so pointer methods count too.
	if m, ok := reflect.PointerTo(t).MethodByName(name); ok {
		if m.Type.NumOut() == 0 {
			return nil, nil
		}
		return m.Type.Out(0), nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if f, ok := t.FieldByName(name); ok && f.IsExported() {
			return f.Type, nil
		}
	case reflect.Map:
		keys, known := mapKeys[path]
		if !known || slices.Contains(keys, name) {
			return t.Elem(), nil
		}
		return nil, fmt.Errorf(".%s has no key %s (%s)", path, name, cmp.Or(hint.DidYouMean(name, keys), "keys: "+strings.Join(keys, ", ")))
	case reflect.Interface:
		return nil, nil
	}
	return nil, fmt.Errorf(".%s has no field or method %s%s", path, name, hint.Suffix(name, members(t)))
}

// members lists the methods of t and, for a struct, its exported fields.
func members(t reflect.Type) []string {
	var out []string
	for i := range reflect.PointerTo(t).NumMethod() {
		out = append(out, reflect.PointerTo(t).Method(i).Name)
	}
	if t.Kind() == reflect.Struct {
		for _, f := range reflect.VisibleFields(t) {
			if f.IsExported() {
				out = append(out, f.Name)
			}
		}
	}
	return out
}

func (c *tierChecker) list(tree *parse.Tree, l *parse.ListNode, root level) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		c.node(tree, n, root)
	}
}

func (c *tierChecker) node(tree *parse.Tree, n parse.Node, root level) {
	switch n := n.(type) {
	case *parse.ActionNode:
		c.pipe(tree, n.Pipe, root, len(n.Pipe.Decl) > 0)
	case *parse.IfNode:
		if f, ok := soleField(n.Pipe); ok {
			c.read(tree, at(f.Pos, f.Ident, 1), 0, f.Ident, root, "?")
		} else {
			c.pipe(tree, n.Pipe, root, false)
		}
		c.list(tree, n.List, root)
		c.list(tree, n.ElseList, root)
	case *parse.WithNode:
		c.pipe(tree, n.Pipe, root, true)
		c.list(tree, n.List, c.isView(n.Pipe, root)) // {{ with $ }} keeps the view as dot
		c.list(tree, n.ElseList, root)
	case *parse.RangeNode:
		c.pipe(tree, n.Pipe, root, false)
		c.list(tree, n.List, notView)
		c.list(tree, n.ElseList, root)
	case *parse.TemplateNode:
		c.pipe(tree, n.Pipe, root, true)
		c.call(n.Name, n.Pipe, root)
	}
}

// pipe checks a pipeline. wholeViewOK says the pipeline may be the whole
// view without it escaping: it is bound to a variable, made dot by with,
// or passed to a partial, all of which the checker follows.
func (c *tierChecker) pipe(tree *parse.Tree, p *parse.PipeNode, root level, wholeViewOK bool) {
	if p == nil {
		return
	}
	isView := c.isView(&parse.PipeNode{Cmds: p.Cmds}, root)
	for _, v := range p.Decl {
		c.bind(v.Ident[0], isView)
	}
	if isView != notView && wholeViewOK {
		return
	}
	for i, cmd := range p.Cmds {
		// A later command also gets the value piped in as an argument.
		if f, args, ok := methodWithConstants(cmd); ok && i == 0 {
			c.read(tree, at(f.Pos, f.Ident, 1), 0, f.Ident, root, args)
			continue
		}
		name, calls := calledTemplate(cmd)
		for i, a := range cmd.Args {
			if calls && i == 2 && c.isView(&parse.PipeNode{Cmds: []*parse.CommandNode{{Args: cmd.Args[2:3]}}}, root) != notView {
				continue // include "x" . — followed by call below
			}
			c.arg(tree, a, root)
		}
		if calls && len(cmd.Args) >= 3 {
			c.call(name, &parse.PipeNode{Cmds: []*parse.CommandNode{{Args: cmd.Args[2:3]}}}, root)
		}
	}
}

func (c *tierChecker) arg(tree *parse.Tree, a parse.Node, root level) {
	switch a := a.(type) {
	case *parse.FieldNode:
		// A chained field's position is its second element's.
		c.read(tree, at(a.Pos, a.Ident, 1), 0, a.Ident, root, "")
	case *parse.DotNode:
		c.escapes = c.escapes || root != notView
	case *parse.VariableNode:
		l := c.variable(a.Ident[0])
		switch {
		case len(a.Ident) > 1:
			c.read(tree, at(a.Pos, a.Ident, 0), len(a.Ident[0]), a.Ident[1:], l, "")
		case l != notView:
			c.escapes = true
		}
	case *parse.ChainNode:
		c.arg(tree, a.Node, root)
	case *parse.PipeNode:
		c.pipe(tree, a, root, false)
	}
}

// soleField returns the field chain an if tests when it is the whole
// pipeline ({{ if .Files.Injected }}): only its truth is used.
func soleField(p *parse.PipeNode) (*parse.FieldNode, bool) {
	if len(p.Decl) > 0 || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return nil, false
	}
	f, ok := p.Cmds[0].Args[0].(*parse.FieldNode)
	return f, ok
}

// methodWithConstants returns the field chain of a command that calls it
// with constant strings only ({{ .Files.Get "BOOTSTRAP.md" }}), and those
// arguments as a template writes them.
func methodWithConstants(cmd *parse.CommandNode) (*parse.FieldNode, string, bool) {
	f, ok := cmd.Args[0].(*parse.FieldNode)
	if !ok || len(cmd.Args) < 2 {
		return nil, "", false
	}
	var args strings.Builder
	for _, a := range cmd.Args[1:] {
		s, ok := a.(*parse.StringNode)
		if !ok {
			return nil, "", false
		}
		args.WriteString(" " + strconv.Quote(s.Text))
	}
	return f, args.String(), true
}

// isView says whether a pipeline is the whole view: "." where dot is the
// view, "$", or a variable bound to the view.
func (c *tierChecker) isView(p *parse.PipeNode, root level) level {
	if p == nil || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return notView
	}
	switch a := p.Cmds[0].Args[0].(type) {
	case *parse.DotNode:
		return root
	case *parse.VariableNode:
		if len(a.Ident) == 1 {
			return c.variable(a.Ident[0])
		}
	}
	return notView
}

// call follows a partial invoked with the (maybe) view as its dot, where
// $ is that dot too.
func (c *tierChecker) call(name string, p *parse.PipeNode, root level) {
	l := c.isView(p, root)
	key := fmt.Sprint(name, "\x00", l)
	if l == notView || c.seen[key] {
		return
	}
	c.seen[key] = true
	if t := c.master.Lookup(name); t != nil && t.Tree != nil {
		dollar := c.dollar
		c.dollar = l
		c.list(t.Tree, t.Tree.Root, l)
		c.dollar = dollar
	}
}

// at points at the start of a field chain: text/template positions a
// chain (.A.B, $.A) at its second element, so step back over the first.
func at(pos parse.Pos, ident []string, dot int) parse.Node {
	if len(ident) > 1 {
		pos -= parse.Pos(len(ident[0]) + dot)
	}
	return &parse.TextNode{NodeType: parse.NodeText, Pos: pos}
}
