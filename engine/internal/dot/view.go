// Package dot is the data a section's template gets as its dot: the
// view types, built from the request's and the derived values' tier tags
// (the stable view has only stable fields, so a stable section cannot
// read a per-turn one), the values the engine derives for templates, and
// the memo key writer of every field a template can read.
package dot

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/internal/memo"
	"github.com/sysprompt/sysprompt/engine/internal/pack"
	"github.com/sysprompt/sysprompt/engine/internal/tidy"
	"github.com/sysprompt/sysprompt/engine/request"
	"github.com/sysprompt/sysprompt/engine/view"
)

// The request types, named here for short.
type (
	Request      = request.Request
	Tool         = request.Tool
	Contribution = request.Contribution
)

// field is one template-visible field of Request or Derived and its tier.
type field struct {
	key   string // template name: the Go field name
	index int
	tier  pack.Tier
}

// tieredFields reads the tier tags of a struct: every field is "stable",
// "volatile" or "-" (not template data).
func tieredFields(t reflect.Type) []field {
	var fields []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		switch tag := f.Tag.Get("tier"); tag {
		case "stable":
			fields = append(fields, field{f.Name, i, pack.TierStable})
		case "volatile":
			fields = append(fields, field{f.Name, i, pack.TierDynamic})
		case "-":
		default:
			panic(fmt.Sprintf("dot: %s.%s has tier tag %q; want stable, volatile or -", t.Name(), f.Name, tag))
		}
	}
	return fields
}

// requestFields and derivedFields are read once from the tier tags;
// Volatile are the names only dynamic sections may read.
var (
	requestFields = tieredFields(reflect.TypeFor[Request]())
	derivedFields = tieredFields(reflect.TypeFor[Derived]())
	Volatile      = func() map[string]bool {
		m := map[string]bool{}
		for _, f := range append(slices.Clip(requestFields), derivedFields...) {
			if f.tier == pack.TierDynamic {
				m[f.key] = true
			}
		}
		return m
	}()
)

// normalizeBlock prepares provider text for the prompt: CRLF to LF,
// trailing spaces stripped from each line, runs of blank lines folded to
// one (the prompt never holds more outside workspace files), trimmed.
// Empty means absent.
func normalizeBlock(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return tidy.Text(strings.Join(lines, "\n"), nil)
}

// Merged is several contributions combined: prefixes and
// suffixes joined with a blank line with duplicates dropped, overrides
// later-wins.
type Merged struct {
	StablePrefix  string
	DynamicSuffix string
	Overrides     map[string]string
}

// noOverrides is the overrides of a turn without any. Nothing writes to
// it: templates cannot change a map, and Merge starts a map
// of its own for the first override.
var noOverrides = map[string]string{}

func Merge(list []Contribution) Merged {
	var prefixes, suffixes []string
	overrides := noOverrides // shared, read only, until one is given
	for _, c := range list {
		if p := normalizeBlock(c.StablePrefix); p != "" && !slices.Contains(prefixes, p) {
			prefixes = append(prefixes, p)
		}
		if s := normalizeBlock(c.DynamicSuffix); s != "" && !slices.Contains(suffixes, s) {
			suffixes = append(suffixes, s)
		}
		// Apply in sorted key order so the result never depends on map order.
		for _, k := range sortedKeys(c.SectionOverrides) {
			if v := normalizeBlock(c.SectionOverrides[k]); v != "" {
				if len(overrides) == 0 {
					overrides = map[string]string{}
				}
				overrides[k] = v
			}
		}
	}
	return Merged{
		StablePrefix:  strings.Join(prefixes, "\n\n"),
		DynamicSuffix: strings.Join(suffixes, "\n\n"),
		Overrides:     overrides,
	}
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// A section's dot is a struct built at init (View):
// the stable view holds the stable request fields and the stable derived
// values; the full view adds the volatile ones. A stable section that
// reads a volatile field fails because its view has no such field, which
// is how the cache tier is enforced at render time (New checks it
// statically too).

// ToolInfos converts the request's tools for templates.
func ToolInfos(tools []Tool) view.ToolList {
	if tools == nil {
		return nil
	}
	out := make(view.ToolList, len(tools))
	for i, t := range tools {
		out[i] = view.ToolInfo{Name: t.Name, Description: t.Description}
	}
	return out
}

// View is a struct type built at init from the request's tier tags
// and the derived keys: the stable type has only stable fields, the full
// type has all. A template that names a field its view lacks fails with
// "can't evaluate field", which is how the tier is enforced at render
// time; a struct (unlike a map) also cannot be reached around with index.
type View struct {
	Type      reflect.Type
	Fields    []ViewField
	ToolLines bool // holds ToolLines, which renders compute only when needed
	Tools     bool // holds Tools, likewise
}

type ViewField struct {
	Name    string
	Request int  // index in Request, or -1 for a derived value
	Derived int  // index in Derived, or -1 for a request field
	Tools   bool // Tools: filled from Derived.ToolList
}

// Derived holds the values the engine computes for templates; a field's
// name is its template name and its tier tag says which sections see it.
type Derived struct {
	Config        config.Settings     `tier:"stable"`
	Pack          view.PackInfo       `tier:"stable"`
	Files         view.FileList       `tier:"stable"`   // the bootstrap files above the boundary
	StablePrefix  string              `tier:"stable"`   // the providers' stable prefixes, merged
	DynamicFiles  view.FileList       `tier:"volatile"` // the bootstrap files below the boundary
	DynamicSuffix string              `tier:"volatile"` // the providers' dynamic suffixes, merged
	Truncation    view.TruncationInfo `tier:"volatile"` // what the truncation notice says; it changes between turns
	ToolLines     []view.ToolLine     `tier:"stable"`   // the tools in the core table's order, then the others by name
	Skills        view.SkillsView     `tier:"stable"`
	Overrides     view.OverrideSet    `tier:"stable"` // the provider overrides in force
	// Today is the turn's date in the user's time zone (2006-01-02), ""
	// when the request gives no date or no zone is known.
	Today string `tier:"volatile"`
	// BootstrapMode is "full" when first-run setup is pending and this run
	// can work through it, "limited" when it is pending but the run
	// cannot, and "" otherwise.
	BootstrapMode string `tier:"stable"`
	// SharedChat is true in a group or channel chat, where others read
	// the replies (Request.SharedChat).
	SharedChat bool `tier:"stable"`

	ToolList  view.ToolList `tier:"-"` // the Tools view field (a request field in another type)
	SkillsKey memo.Key      `tier:"-"` // stands for Skills in memo keys
}

var (
	Stable = newView(func(name string) bool { return !Volatile[name] })
	Full   = newView(func(string) bool { return true })
)

// newView builds the view type holding the fields keep accepts, in
// the full view's order.
func newView(keep func(name string) bool) View {
	var vt View
	var sf []reflect.StructField
	rt := reflect.TypeFor[Request]()
	for _, f := range requestFields {
		if !keep(f.key) {
			continue
		}
		typ, tools := rt.Field(f.index).Type, f.key == "Tools"
		if tools {
			typ = reflect.TypeFor[view.ToolList]()
			vt.Tools = true
		}
		sf = append(sf, reflect.StructField{Name: f.key, Type: typ})
		vt.Fields = append(vt.Fields, ViewField{Name: f.key, Request: f.index, Derived: -1, Tools: tools})
	}
	dt := reflect.TypeFor[Derived]()
	for _, f := range derivedFields {
		if !keep(f.key) {
			continue
		}
		vt.ToolLines = vt.ToolLines || f.key == "ToolLines"
		sf = append(sf, reflect.StructField{Name: f.key, Type: dt.Field(f.index).Type})
		vt.Fields = append(vt.Fields, ViewField{Name: f.key, Request: -1, Derived: f.index})
	}
	vt.Type = reflect.StructOf(sf)
	return vt
}

// Keys are every name a section's dot can hold.
var Keys = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range Full.Fields {
		m[f.Name] = true
	}
	return m
}()

// Build fills a view from the request and the derived values.
func (vt View) Build(req *Request, d *Derived) any {
	v := reflect.New(vt.Type)
	s := v.Elem()
	rv := reflect.ValueOf(req).Elem()
	dv := reflect.ValueOf(d).Elem()
	for i, f := range vt.Fields {
		switch {
		case f.Tools:
			s.Field(i).Set(reflect.ValueOf(d.ToolList))
		case f.Request >= 0:
			s.Field(i).Set(rv.Field(f.Request))
		default:
			s.Field(i).Set(dv.Field(f.Derived))
		}
	}
	return v.Interface()
}

// toolLines orders the request's tools: core tools in table order, then
// the others sorted by lowercase name. Names are trimmed and de-duplicated
// case-insensitively; the first spelling wins.
func ToolLines(table []pack.ToolEntry, tools []Tool) []view.ToolLine {
	byName := map[string]Tool{}
	var order []string
	for _, t := range tools {
		name, key := strings.TrimSpace(t.Name), request.ToolKey(t.Name)
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
