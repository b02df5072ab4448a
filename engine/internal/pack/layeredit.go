package pack

import (
	"cmp"
	"slices"
	"strings"

	"github.com/sysprompt/sysprompt/engine/internal/strict"
	"github.com/sysprompt/sysprompt/internal/hint"
)

// A [[harness.layer]] either lists its sections, like a [[layer]], or
// edits a layer of the default harness:
//
//	base = "system"         start from the [[layer]] named "system"
//	remove = ["a", "b"]     drop these ids; each must be in that list
//	add = ["c", "d"]        then insert these, in this order,
//	after = "x"             right after x, or before = "x"; with neither,
//	                        at the end
//
// Removing an id and adding it back moves it. The resulting list is
// checked like a written one: files, ids twice in the harness, tier order.

// layerPos places errors in one layer's table of the manifest text.
type layerPos struct {
	doc     *strict.Scan
	table   string // "layer" or "harness.layer"
	n       int    // which header of that name, counted over the document
	harness string
}

func (c *manifestCheck) layerPos(b *harnessBuild, li int) layerPos {
	lp := layerPos{doc: c.doc, table: "layer", n: li, harness: b.name}
	if b.index >= 0 {
		lp.table = "harness.layer"
		for _, h := range c.m.Harnesses[:b.index] {
			lp.n += len(h.Layers)
		}
	}
	return lp
}

// header is the line of the layer's header, column 1.
func (lp layerPos) header() (int, int) {
	if p, ok := lp.doc.Doc().Table(lp.table, lp.n); ok {
		return p.Line, 1
	}
	return 0, 0
}

// key is where key is written in the layer's table; its header if not.
func (lp layerPos) key(key string) (int, int) {
	if p, ok := lp.doc.Doc().Key(lp.table, lp.n, key); ok {
		return p.Line, p.Col
	}
	return lp.header()
}

// value is where key's value starts; the layer's header if not written.
func (lp layerPos) value(key string) (int, int) {
	if p, ok := lp.doc.Doc().Value(lp.table, lp.n, key); ok {
		return p.Line, p.Col
	}
	return lp.header()
}

// elem is where the i-th element of key's array is written, or 0, 0.
func (lp layerPos) elem(key string, i int) (int, int) {
	if elems := lp.doc.Doc().Elements(lp.table, lp.n, key); i < len(elems) {
		return elems[i].Line, elems[i].Col
	}
	return 0, 0
}

// layerList resolves a layer's ids, in order, with their positions.
func (c *manifestCheck) layerList(lp layerPos, ld harnessLayerDecl) []listed {
	if ld.Base != "" {
		return c.editBase(lp, ld)
	}
	c.checkNoEdits(lp, ld)
	out := make([]listed, len(ld.Sections))
	for i, id := range ld.Sections {
		out[i] = listed{id: id, lp: lp, key: "sections", i: i}
	}
	return out
}

// checkNoEdits refuses edit keys in a layer without a base.
func (c *manifestCheck) checkNoEdits(lp layerPos, ld harnessLayerDecl) {
	for _, k := range []struct {
		key string
		set bool
	}{{"remove", ld.Remove != nil}, {"add", ld.Add != nil}, {"after", ld.After != ""}, {"before", ld.Before != ""}} {
		if k.set {
			l, col := lp.key(k.key)
			c.fail(l, col, "layer %q of harness %q has %s but no base: remove, add, after and before edit a base layer", ld.Name, lp.harness, k.key)
		}
	}
}

// editBase resolves a layer that edits a base layer: the base's ids, less
// those removed, with those added at their place.
func (c *manifestCheck) editBase(lp layerPos, ld harnessLayerDecl) []listed {
	if ld.Sections != nil {
		l, col := lp.key("sections")
		c.fail(l, col, "layer %q of harness %q has both sections and base: list its sections or edit a base layer, not both", ld.Name, lp.harness)
		return nil
	}
	bi := slices.IndexFunc(c.m.Layers, func(l layerDecl) bool { return l.Name == ld.Base })
	if bi < 0 {
		bl, bc := lp.value("base")
		var names []string
		for _, l := range c.m.Layers {
			names = append(names, l.Name)
		}
		c.fail(bl, bc, "base %q is not a layer of the %s harness (%s)", ld.Base, DefaultHarness, cmp.Or(hint.DidYouMean(ld.Base, names), "have "+strings.Join(names, ", ")))
		return nil
	}
	base := c.m.Layers[bi].Sections
	ids := c.removeIDs(lp, ld, base)
	out := make([]listed, 0, len(ids)+len(ld.Add))
	for _, id := range ids {
		out = append(out, listed{id: id, fromBase: true, lp: lp})
	}
	at, ok := c.insertAt(lp, ld, base, ids)
	if !ok {
		return out
	}
	return slices.Insert(out, at, c.addIDs(lp, ld, ids)...)
}

// removeIDs returns base less the ids the layer removes, refusing ids
// that are not in base or are removed twice.
func (c *manifestCheck) removeIDs(lp layerPos, ld harnessLayerDecl, base []string) []string {
	removed := map[string]bool{}
	for i, id := range ld.Remove {
		switch {
		case removed[id]:
			l, col := lp.elem("remove", i)
			c.fail(l, col, "remove: section %q is listed twice", id)
		case !slices.Contains(base, id):
			l, col := lp.elem("remove", i)
			c.fail(l, col, "remove: section %q is not in base layer %q%s", id, ld.Base, hint.Suffix(id, base))
		default:
			removed[id] = true
		}
	}
	return slices.DeleteFunc(slices.Clone(base), func(id string) bool { return removed[id] })
}

// insertAt returns the index in ids where the added ids go; ok is false
// when after or before is wrong (reported).
func (c *manifestCheck) insertAt(lp layerPos, ld harnessLayerDecl, base, ids []string) (at int, ok bool) {
	key, anchor := "after", ld.After
	switch {
	case ld.After != "" && ld.Before != "":
		l, col := lp.key("before")
		c.fail(l, col, "layer %q of harness %q has both after and before: add goes in one place", ld.Name, lp.harness)
		return 0, false
	case ld.Before != "":
		key, anchor = "before", ld.Before
	case ld.After == "":
		return len(ids), true
	}
	if ld.Add == nil {
		l, col := lp.key(key)
		c.fail(l, col, "layer %q of harness %q has %s but nothing to add", ld.Name, lp.harness, key)
		return 0, false
	}
	at = slices.Index(ids, anchor)
	if at < 0 {
		l, col := lp.value(key)
		if slices.Contains(base, anchor) {
			c.fail(l, col, "%s: section %q is removed from this layer", key, anchor)
		} else {
			c.fail(l, col, "%s: section %q is not in base layer %q%s", key, anchor, ld.Base, hint.Suffix(anchor, base))
		}
		return 0, false
	}
	if key == "after" {
		at++
	}
	return at, true
}

// addIDs returns the ids the layer adds, refusing those its list (the
// base less the removed ids) already has.
func (c *manifestCheck) addIDs(lp layerPos, ld harnessLayerDecl, ids []string) []listed {
	var out []listed
	for i, id := range ld.Add {
		if slices.Contains(ids, id) {
			l, col := lp.elem("add", i)
			c.fail(l, col, "add: section %q is already in base layer %q", id, ld.Base)
			continue
		}
		out = append(out, listed{id: id, lp: lp, key: "add", i: i})
	}
	return out
}
