package engine

import (
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/internal/pack"
	"github.com/sysprompt/sysprompt/engine/view"
)

// Template data. A section's dot is a struct built at init (viewType):
// the stable view holds the stable request fields and the stable derived
// values; the full view adds the volatile ones. A stable section that
// reads a volatile field fails because its view has no such field, which
// is how the cache tier is enforced at render time (New checks it
// statically too).

// toolInfos converts the request's tools for templates.
func toolInfos(tools []Tool) view.ToolList {
	if tools == nil {
		return nil
	}
	out := make(view.ToolList, len(tools))
	for i, t := range tools {
		out[i] = view.ToolInfo{Name: t.Name, Description: t.Description}
	}
	return out
}

// viewType is a struct type built at init from the request's tier tags
// and the derived keys: the stable type has only stable fields, the full
// type has all. A template that names a field its view lacks fails with
// "can't evaluate field", which is how the tier is enforced at render
// time; a struct (unlike a map) also cannot be reached around with index.
type viewType struct {
	typ       reflect.Type
	fields    []viewField
	toolLines bool // holds ToolLines, which renders compute only when needed
	tools     bool // holds Tools, likewise
}

type viewField struct {
	name    string
	request int  // index in Request, or -1 for a derived value
	derived int  // index in derived, or -1 for a request field
	tools   bool // Tools: filled from derived.tools
}

// derived holds the values the engine computes for templates; a field's
// name is its template name and its tier tag says which sections see it.
type derived struct {
	Config        config.Settings     `tier:"stable"`
	Pack          view.PackInfo       `tier:"stable"`
	Files         view.FileList       `tier:"stable"`   // bootstrap files above the boundary
	StablePrefix  string              `tier:"stable"`   // merged provider stable prefixes
	DynamicFiles  view.FileList       `tier:"volatile"` // bootstrap files below the boundary
	DynamicSuffix string              `tier:"volatile"` // merged provider dynamic suffixes
	Truncation    view.TruncationInfo `tier:"volatile"` // the warning state changes between turns
	ToolLines     []view.ToolLine     `tier:"stable"`   // in the core table's order
	Skills        view.SkillsView     `tier:"stable"`
	Overrides     view.OverrideSet    `tier:"stable"` // the provider overrides in force

	tools view.ToolList `tier:"-"` // the Tools view field (a request field in another type)
}

var (
	stableView = newViewType(func(name string) bool { return !volatileKeys[name] })
	fullView   = newViewType(func(string) bool { return true })
)

// newViewType builds the view type holding the fields keep accepts, in
// the full view's order.
func newViewType(keep func(name string) bool) viewType {
	var vt viewType
	var sf []reflect.StructField
	rt := reflect.TypeFor[Request]()
	for _, f := range requestFields {
		if !keep(f.key) {
			continue
		}
		typ, tools := rt.Field(f.index).Type, f.key == "Tools"
		if tools {
			typ = reflect.TypeFor[view.ToolList]()
			vt.tools = true
		}
		sf = append(sf, reflect.StructField{Name: f.key, Type: typ})
		vt.fields = append(vt.fields, viewField{name: f.key, request: f.index, derived: -1, tools: tools})
	}
	dt := reflect.TypeFor[derived]()
	for _, f := range derivedFields {
		if !keep(f.key) {
			continue
		}
		vt.toolLines = vt.toolLines || f.key == "ToolLines"
		sf = append(sf, reflect.StructField{Name: f.key, Type: dt.Field(f.index).Type})
		vt.fields = append(vt.fields, viewField{name: f.key, request: -1, derived: f.index})
	}
	vt.typ = reflect.StructOf(sf)
	return vt
}

// viewKeys are every name a section's dot can hold.
var viewKeys = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range fullView.fields {
		m[f.name] = true
	}
	return m
}()

// build fills a view from the request and the derived values.
func (vt viewType) build(req *Request, d *derived) any {
	v := reflect.New(vt.typ)
	s := v.Elem()
	rv := reflect.ValueOf(req).Elem()
	dv := reflect.ValueOf(d).Elem()
	for i, f := range vt.fields {
		switch {
		case f.tools:
			s.Field(i).Set(reflect.ValueOf(d.tools))
		case f.request >= 0:
			s.Field(i).Set(rv.Field(f.request))
		default:
			s.Field(i).Set(dv.Field(f.derived))
		}
	}
	return v.Interface()
}

// toolLines orders the request's tools: core tools in table order, then
// the others sorted by lowercase name. Names are trimmed and de-duplicated
// case-insensitively; the first spelling wins.
func toolLines(table []pack.ToolEntry, tools []Tool) []view.ToolLine {
	byName := map[string]Tool{}
	var order []string
	for _, t := range tools {
		name := strings.TrimSpace(t.Name)
		key := strings.ToLower(name)
		if name == "" || slices.Contains(order, key) {
			continue
		}
		t.Name = name
		byName[key] = t
		order = append(order, key)
	}
	lines := make([]view.ToolLine, 0, len(order))
	core := map[string]bool{}
	for _, e := range table {
		key := strings.ToLower(e.Name)
		core[key] = true
		if t, ok := byName[key]; ok {
			lines = append(lines, view.ToolLine{Name: t.Name, Summary: e.Summary})
		}
	}
	var rest []string
	for _, key := range order {
		if !core[key] {
			rest = append(rest, key)
		}
	}
	sort.Strings(rest)
	for _, key := range rest {
		t := byName[key]
		summary, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
		lines = append(lines, view.ToolLine{Name: t.Name, Summary: strings.TrimSpace(summary)})
	}
	return lines
}
