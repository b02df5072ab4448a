package engine

import (
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/internal/pack"
)

// Template data. A section's dot is a struct built at init (viewType):
// the stable view holds the stable request fields and the stable derived
// values; the full view adds the volatile ones. A stable section that
// reads a volatile field fails because its view has no such field, which
// is how the cache tier is enforced at render time (New checks it
// statically too).

// Derived view keys: values the engine computes for templates.
const (
	keyConfig        = "Config"        // Settings (stable)
	keyPack          = "Pack"          // PackInfo (stable)
	keyFiles         = "Files"         // FileList of stable bootstrap files (stable)
	keyStablePrefix  = "StablePrefix"  // merged provider stable prefixes (stable)
	keyDynamicFiles  = "DynamicFiles"  // FileList below the boundary (volatile)
	keyDynamicSuffix = "DynamicSuffix" // merged provider dynamic suffixes (volatile)
	keyTruncation    = "Truncation"    // TruncationInfo (volatile: the warning state changes between turns)
	keyToolLines     = "ToolLines"     // []ToolLine in table order (stable)
	keySkills        = "Skills"        // SkillsView (stable)
	keyOverrides     = "Overrides"     // OverrideSet of the active provider overrides (stable)
)

// derivedVolatile are the derived keys only dynamic sections may read.
var derivedVolatile = []string{keyDynamicFiles, keyDynamicSuffix, keyTruncation}

// derivedStable are the derived keys every section may read.
var derivedStable = []string{keyConfig, keyPack, keyFiles, keyStablePrefix, keyToolLines, keySkills, keyOverrides}

// PackInfo is what templates know about the pack itself.
type PackInfo struct {
	Product string            // product name used in headings, default "OpenClaw"
	Vars    map[string]string // free-form [vars] from the manifest
}

// TruncationInfo tells the notice section whether to speak.
type TruncationInfo struct {
	Warn  bool     // show the truncation notice this turn
	Files []string // names of the files that were cut
}

// OverrideSet is the provider section overrides in force this render,
// keyed by override name, so one section can react to another being
// replaced (the exec-approval line steps aside for a provider's own
// tool-call style).
type OverrideSet map[string]string

// Has reports whether the named override is in force.
func (o OverrideSet) Has(name string) bool { _, ok := o[name]; return ok }

// ToolInfo is what templates see of a tool: its name and description.
// Its JSON schema is not template data: providers send schemas as tool
// definitions, never as prompt text, and the context report counts them
// from the request. Keeping schemas out of the prompt's inputs also keeps
// them out of the stable memo key.
type ToolInfo struct {
	Name        string
	Description string
}

// toolInfos converts the request's tools for templates.
func toolInfos(tools []Tool) ToolList {
	if tools == nil {
		return nil
	}
	out := make(ToolList, len(tools))
	for i, t := range tools {
		out[i] = ToolInfo{Name: t.Name, Description: t.Description}
	}
	return out
}

// ToolList is the request's tools with case-insensitive lookups.
type ToolList []ToolInfo

// Has reports whether a tool of that name (any case) is available.
func (l ToolList) Has(name string) bool { return l.Get(name) != nil }

// HasAny reports whether any of the named tools is available.
func (l ToolList) HasAny(names ...string) bool {
	for _, n := range names {
		if l.Has(n) {
			return true
		}
	}
	return false
}

// Get returns the tool with that name (any case), or nil.
func (l ToolList) Get(name string) *ToolInfo {
	for i := range l {
		if strings.EqualFold(l[i].Name, name) {
			return &l[i]
		}
	}
	return nil
}

// Names returns the tool names as given.
func (l ToolList) Names() []string {
	out := make([]string, len(l))
	for i, t := range l {
		out[i] = t.Name
	}
	return out
}

// FileList is a list of bootstrap files as templates see them.
type FileList []bootstrap.File

// Get returns the file with that name, or nil.
func (l FileList) Get(name string) *bootstrap.File {
	for i := range l {
		if l[i].Name == name {
			return &l[i]
		}
	}
	return nil
}

// Injected returns the files that inject text (including markers).
func (l FileList) Injected() FileList {
	var out FileList
	for _, f := range l {
		if f.Content != "" {
			out = append(out, f)
		}
	}
	return out
}

// Except returns the injected files whose names are not listed.
func (l FileList) Except(names ...string) FileList {
	var out FileList
	for _, f := range l.Injected() {
		if !slices.Contains(names, f.Name) {
			out = append(out, f)
		}
	}
	return out
}

// Only returns the injected files whose names are listed, in list order.
func (l FileList) Only(names ...string) FileList {
	var out FileList
	for _, f := range l.Injected() {
		if slices.Contains(names, f.Name) {
			out = append(out, f)
		}
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

// derived holds the values the engine computes for templates, one field
// per derived key, named as the key.
type derived struct {
	Config        config.Settings
	Pack          PackInfo
	Files         FileList
	StablePrefix  string
	DynamicFiles  FileList
	DynamicSuffix string
	Truncation    TruncationInfo
	ToolLines     []ToolLine
	Skills        SkillsView
	Overrides     OverrideSet

	tools ToolList // the Tools view field (a request field in another type)
}

// derivedIndex maps each derived key to its field in derived.
var derivedIndex = func() map[string]int {
	m := map[string]int{}
	t := reflect.TypeFor[derived]()
	for _, k := range append(append([]string{}, derivedStable...), derivedVolatile...) {
		f, ok := t.FieldByName(k)
		if !ok {
			panic("engine: derived has no field for key " + k)
		}
		m[k] = f.Index[0]
	}
	return m
}()

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
			typ = reflect.TypeFor[ToolList]()
			vt.tools = true
		}
		sf = append(sf, reflect.StructField{Name: f.key, Type: typ})
		vt.fields = append(vt.fields, viewField{name: f.key, request: f.index, derived: -1, tools: tools})
	}
	for _, k := range append(append([]string{}, derivedStable...), derivedVolatile...) {
		if !keep(k) {
			continue
		}
		i := derivedIndex[k]
		vt.toolLines = vt.toolLines || k == keyToolLines
		sf = append(sf, reflect.StructField{Name: k, Type: reflect.TypeFor[derived]().Field(i).Type})
		vt.fields = append(vt.fields, viewField{name: k, request: -1, derived: i})
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

// ToolLine is one line of the tool list templates print.
type ToolLine struct {
	Name    string
	Summary string
}

// toolLines orders the request's tools: core tools in table order, then
// the others sorted by lowercase name. Names are trimmed and de-duplicated
// case-insensitively; the first spelling wins.
func toolLines(table []pack.ToolEntry, tools []Tool) []ToolLine {
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
	lines := make([]ToolLine, 0, len(order))
	core := map[string]bool{}
	for _, e := range table {
		key := strings.ToLower(e.Name)
		core[key] = true
		if t, ok := byName[key]; ok {
			lines = append(lines, ToolLine{Name: t.Name, Summary: e.Summary})
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
		lines = append(lines, ToolLine{Name: t.Name, Summary: strings.TrimSpace(summary)})
	}
	return lines
}
