package engine

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

// The request types live in engine/request; these names keep them the
// engine's own.
type (
	Request      = request.Request
	Session      = request.Session
	Tool         = request.Tool
	Channel      = request.Channel
	Runtime      = request.Runtime
	Workspace    = request.Workspace
	Docs         = request.Docs
	Sandbox      = request.Sandbox
	Heartbeat    = request.Heartbeat
	Reactions    = request.Reactions
	Contribution = request.Contribution
)

// Bounds on request documents and their one-line fields (see
// engine/request).
const (
	MaxRequestBytes     = request.MaxRequestBytes
	MaxTOMLRequestBytes = request.MaxTOMLRequestBytes
	MaxDepth            = request.MaxDepth
	MaxIDBytes          = request.MaxIDBytes
	MaxLineBytes        = request.MaxLineBytes
)

// ParseRequest decodes a TOML or JSON request (JSON when the first
// non-space byte is '{'); name is used in error messages.
func ParseRequest(name string, src []byte) (Request, error) { return request.Parse(name, src) }

// field is one template-visible field of Request or derived and its tier.
type field struct {
	key   string // template name: the Go field name
	index int
	tier  Tier
}

// tieredFields reads the tier tags of a struct: every field is "stable",
// "volatile" or "-" (not template data).
func tieredFields(t reflect.Type) []field {
	var fields []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		switch tag := f.Tag.Get("tier"); tag {
		case "stable":
			fields = append(fields, field{f.Name, i, TierStable})
		case "volatile":
			fields = append(fields, field{f.Name, i, TierDynamic})
		case "-":
		default:
			panic(fmt.Sprintf("engine: %s.%s has tier tag %q; want stable, volatile or -", t.Name(), f.Name, tag))
		}
	}
	return fields
}

// requestFields and derivedFields are read once from the tier tags;
// volatileKeys are the names only dynamic sections may read.
var (
	requestFields = tieredFields(reflect.TypeFor[Request]())
	derivedFields = tieredFields(reflect.TypeFor[derived]())
	volatileKeys  = func() map[string]bool {
		m := map[string]bool{}
		for _, f := range append(slices.Clip(requestFields), derivedFields...) {
			if f.tier == TierDynamic {
				m[f.key] = true
			}
		}
		return m
	}()
)

// VolatileFields lists the template names of the volatile fields, sorted.
func VolatileFields() []string {
	out := make([]string, 0, len(volatileKeys))
	for k := range volatileKeys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

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

// merged is several contributions combined: prefixes and
// suffixes joined with a blank line with duplicates dropped, overrides
// later-wins.
type merged struct {
	stablePrefix  string
	dynamicSuffix string
	overrides     map[string]string
}

// noOverrides is the overrides of a turn without any. Nothing writes to
// it: templates cannot change a map, and mergeContributions starts a map
// of its own for the first override.
var noOverrides = map[string]string{}

func mergeContributions(list []Contribution) merged {
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
	return merged{
		stablePrefix:  strings.Join(prefixes, "\n\n"),
		dynamicSuffix: strings.Join(suffixes, "\n\n"),
		overrides:     overrides,
	}
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// overlayContributions returns the contributions of every overlay that
// applies to the run, in file order.
func (e *Engine) overlayContributions(req *Request, s *config.Settings) ([]Contribution, error) {
	var out []Contribution
	for _, o := range e.pack.Overlays {
		if !o.Applies(req.Runtime.Provider, req.Runtime.Model) {
			continue
		}
		setting := ""
		if o.Setting != "" {
			setting = s.PromptOverlays[o.Setting]
		}
		overrides, err := o.Style(setting)
		if err != nil {
			return nil, err
		}
		out = append(out, Contribution{StablePrefix: o.StablePrefix, DynamicSuffix: o.Dynamic, SectionOverrides: overrides})
	}
	return out, nil
}

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
	// Today is the turn's date in the user's time zone (2006-01-02), ""
	// when the request gives no date or no zone is known.
	Today string `tier:"volatile"`
	// BootstrapMode is "full" when first-run setup is pending and this run
	// can work through it, "limited" when it is pending but the run
	// cannot, and "" otherwise.
	BootstrapMode string `tier:"stable"`
	// SharedChat is Request.SharedChat, for templates.
	SharedChat bool `tier:"stable"`

	tools     view.ToolList `tier:"-"` // the Tools view field (a request field in another type)
	skillsKey memo.Key      `tier:"-"` // stands for Skills in memo keys
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
