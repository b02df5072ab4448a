package engine

import (
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/internal/dot"
	"github.com/sysprompt/sysprompt/engine/internal/memo"
	"github.com/sysprompt/sysprompt/engine/internal/pack"
	"github.com/sysprompt/sysprompt/engine/view"
)

// A mutation changes one value a template could read, somewhere under
// the view field top (and its field sub, when top is a struct).
type mutation struct {
	name, top, sub string
	apply          func(r *Request, d *dot.Derived)
}

// populated returns a request and derived values with every exported
// field, element and entry set, so that every value has a mutation.
func populated() (*Request, *dot.Derived) {
	r, d := &Request{}, &dot.Derived{}
	populate(reflect.ValueOf(r).Elem(), 0)
	populate(reflect.ValueOf(d).Elem(), 0)
	return r, d
}

func populate(v reflect.Value, depth int) {
	if depth > 6 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("s")
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				populate(v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		populate(v.Index(0), depth+1)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		e := reflect.New(v.Type().Elem()).Elem()
		populate(e, depth+1)
		v.SetMapIndex(reflect.ValueOf("k"), e)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		populate(v.Elem(), depth+1)
	case reflect.Interface:
		v.Set(reflect.ValueOf("s"))
	}
}

// mutations lists a change of every value under every field of the full
// view, found by walking the populated types.
func mutations() []mutation {
	var out []mutation
	r0, d0 := populated()
	for _, f := range dot.Full.Fields {
		root, index := reflect.ValueOf(r0).Elem(), f.Request
		if f.Request < 0 {
			root, index = reflect.ValueOf(d0).Elem(), f.Derived
		}
		var steps []int
		var walkValue func(v reflect.Value, name, sub string)
		walkValue = func(v reflect.Value, name, sub string) {
			path := slices.Clone(steps)
			at := func(r *Request, d *dot.Derived) reflect.Value {
				v := reflect.ValueOf(r).Elem()
				if f.Request < 0 {
					v = reflect.ValueOf(d).Elem()
				}
				v = v.Field(index)
				for _, s := range path {
					switch v.Kind() {
					case reflect.Struct:
						v = v.Field(s)
					case reflect.Slice:
						v = v.Index(s)
					case reflect.Pointer:
						v = v.Elem()
					}
				}
				return v
			}
			add := func(op string, do func(v reflect.Value)) {
				out = append(out, mutation{name: f.Name + name + " " + op, top: f.Name, sub: sub,
					apply: func(r *Request, d *dot.Derived) { do(at(r, d)) }})
			}
			switch v.Kind() {
			case reflect.String:
				add("changed", func(v reflect.Value) { v.SetString(v.String() + "~") })
			case reflect.Bool:
				add("flipped", func(v reflect.Value) { v.SetBool(!v.Bool()) })
			case reflect.Int, reflect.Int64:
				add("changed", func(v reflect.Value) { v.SetInt(v.Int() + 1) })
			case reflect.Uint64:
				add("changed", func(v reflect.Value) { v.SetUint(v.Uint() + 1) })
			case reflect.Pointer:
				add("nil", func(v reflect.Value) { v.Set(reflect.Zero(v.Type())) })
				steps = append(steps, 0)
				walkValue(v.Elem(), name, sub)
				steps = steps[:len(steps)-1]
			case reflect.Slice:
				add("nil", func(v reflect.Value) { v.Set(reflect.Zero(v.Type())) })
				add("empty", func(v reflect.Value) { v.Set(reflect.MakeSlice(v.Type(), 0, 0)) })
				add("longer", func(v reflect.Value) { v.Set(reflect.Append(v, v.Index(0))) })
				steps = append(steps, 0)
				walkValue(v.Index(0), name+"[0]", sub)
				steps = steps[:len(steps)-1]
			case reflect.Map:
				add("nil", func(v reflect.Value) { v.Set(reflect.Zero(v.Type())) })
				add("empty", func(v reflect.Value) { v.Set(reflect.MakeMap(v.Type())) })
				add("another key", func(v reflect.Value) {
					m := reflect.MakeMap(v.Type())
					m.SetMapIndex(reflect.ValueOf("j"), v.MapIndex(reflect.ValueOf("k")))
					v.Set(m)
				})
				if k := v.Type().Elem().Kind(); k == reflect.String || k == reflect.Bool || k == reflect.Int {
					add("another value", func(v reflect.Value) {
						e := reflect.New(v.Type().Elem()).Elem()
						e.Set(v.MapIndex(reflect.ValueOf("k")))
						switch k {
						case reflect.String:
							e.SetString(e.String() + "~")
						case reflect.Bool:
							e.SetBool(!e.Bool())
						default:
							e.SetInt(e.Int() + 1)
						}
						m := reflect.MakeMap(v.Type())
						m.SetMapIndex(reflect.ValueOf("k"), e)
						v.Set(m)
					})
				}
			case reflect.Struct:
				for i := range v.NumField() {
					sf := v.Type().Field(i)
					if !sf.IsExported() {
						continue
					}
					s := sub
					if len(steps) == 0 {
						s = sf.Name
					}
					steps = append(steps, i)
					walkValue(v.Field(i), name+"."+sf.Name, s)
					steps = steps[:len(steps)-1]
				}
			}
		}
		walkValue(root.Field(index), "", "")
	}
	return out
}

// sums computes every key field's hash for r and d as a render would:
// the skills key stands for the skills view.
func sums(r *Request, d *dot.Derived) []memo.Key {
	var k memo.Encoder
	d.SkillsKey = dot.CatalogKey(&k, &d.Skills)
	out := make([]memo.Key, len(dot.KeyFields))
	for i, f := range dot.KeyFields {
		k.Reset()
		f.Write(&k, r, d)
		out[i] = k.Sum()
	}
	return out
}

// expected is the key fields a mutation must move: its field's own and,
// for a change inside a struct field, that part's; and a truth test of
// its field ("Files.Injected?") where the mutation changes what an if
// over it decides.
func expected(m mutation) []int {
	switch {
	case m.top == "Pack", m.top == "ToolLines":
		return nil // fixed for the Engine; a function of Tools
	case strings.HasPrefix(m.name, "Tools[0].Schema"):
		return nil // templates never see schemas
	}
	var want []int
	for i, f := range dot.KeyFields {
		if f.Path == m.top || m.sub != "" && f.Path == m.top+"."+m.sub || m.top == "Tools" && f.Path == "ToolLines" {
			want = append(want, i)
		}
		if test, ok := strings.CutSuffix(f.Path, "?"); ok && strings.HasPrefix(test, m.top+".") {
			r0, d0 := populated()
			r, d := populated()
			m.apply(r, d)
			if truth(test, r0, d0) != truth(test, r, d) {
				want = append(want, i)
			}
		}
	}
	return want
}

// truth is what {{ if .PATH }} decides over the full view of r and d.
func truth(path string, r *Request, d *dot.Derived) bool {
	var b strings.Builder
	tmpl := template.Must(template.New("").Parse("{{ if ." + path + " }}1{{ end }}"))
	if err := tmpl.Execute(&b, dot.Full.Build(r, d)); err != nil {
		panic(err)
	}
	return b.String() == "1"
}

// Every value a template can read moves the key fields that stand for
// it, and no other.
func TestKeyFieldsFollowTheirFields(t *testing.T) {
	require.LessOrEqual(t, len(dot.KeyFields), 64, "fieldSums holds 64")
	for _, f := range dot.Full.Fields {
		_, ok := dot.KeySlot(f.Name)
		assert.True(t, ok, "no key field writes %s", f.Name)
	}
	r0, d0 := populated()
	base := sums(r0, d0)
	assert.Equal(t, base, sums(r0, d0), "the same values, the same sums")
	ms := mutations()
	require.Greater(t, len(ms), 150)
	for _, m := range ms {
		r, d := populated()
		m.apply(r, d)
		var moved []int
		for i, s := range sums(r, d) {
			if s != base[i] {
				moved = append(moved, i)
			}
		}
		assert.Equal(t, expected(m), moved, "%s: moved %v", m.name, paths(moved))
	}
}

func paths(slots []int) []string {
	var out []string
	for _, i := range slots {
		out = append(out, dot.KeyFields[i].Path)
	}
	return out
}

// Every section's key moves with each value its template reads, as the
// read set found in its parse tree says, and with no other.
func TestSectionKeysFollowTheirReadSets(t *testing.T) {
	e, err := New(os.DirFS(".."))
	require.NoError(t, err)
	ms := mutations()
	set := e.newRenderSet()
	key := func(sec sectionPlanned, r *Request, d *dot.Derived) memo.Key {
		d.SkillsKey = dot.CatalogKey(&memo.Encoder{}, &d.Skills)
		set.sums.have = 0
		st := &renderState{e: e, set: set, req: r, d: *d}
		return st.sectionKey(sec.sec, sec.plan)
	}
	// A section reading a file by name sees a change only to that file:
	// the values are populated once as they are, then with the one file
	// of each list named as each file a section reads.
	names := []string{""}
	for _, sec := range planned(e) {
		for _, fr := range sec.plan.fileReads {
			if !slices.Contains(names, fr.Name) {
				names = append(names, fr.Name)
			}
		}
	}
	require.Greater(t, len(names), 2, "the built-in pack reads files by name")
	for _, name := range names {
		base := func() (*Request, *dot.Derived) {
			r, d := populated()
			if name != "" {
				d.Files[0].Name, d.DynamicFiles[0].Name = name, name
			}
			return r, d
		}
		type variant struct {
			r *Request
			d *dot.Derived
		}
		variants := make([]variant, len(ms))
		for i, m := range ms {
			r, d := base()
			m.apply(r, d)
			variants[i] = variant{r, d}
		}
		r0, d0 := base()
		for _, sec := range planned(e) {
			k0 := key(sec, r0, d0)
			for i, m := range ms {
				// Every key holds the harness and the mode.
				want := m.top == "Mode" || m.top == "Harness" ||
					slices.ContainsFunc(expected(m), func(i int) bool { return slices.Contains(sec.plan.slots, i) }) ||
					slices.ContainsFunc(sec.plan.fileReads, func(fr dot.FileRead) bool {
						return !reflect.DeepEqual(getFile(fr, d0), getFile(fr, variants[i].d))
					})
				assert.Equal(t, want, key(sec, variants[i].r, variants[i].d) != k0,
					"%s reads %v (all: %v); %s, file %q", sec.sec.ID, sec.sec.Reads, sec.sec.ReadsAll, m.name, name)
			}
		}
	}
}

// getFile is what {{ .LIST.Get "NAME" }} returns over d.
func getFile(fr dot.FileRead, d *dot.Derived) *bootstrap.File {
	files := d.Files
	if fr.List == "DynamicFiles" {
		files = d.DynamicFiles
	}
	return view.FileList(files).Get(fr.Name)
}

type sectionPlanned struct {
	sec  *pack.Section
	plan *sectionPlan
}

func planned(e *Engine) []sectionPlanned {
	var out []sectionPlanned
	for _, id := range slices.Sorted(maps.Keys(e.pack.Sections)) {
		sec := e.pack.Sections[id]
		out = append(out, sectionPlanned{sec, e.plans[sec]})
	}
	return out
}

// A layer's key moves exactly when one of its sections' keys does, and
// with the provider overrides of its sections.
func TestLayerKeysFollowTheirSections(t *testing.T) {
	e, err := New(os.DirFS(".."))
	require.NoError(t, err)
	set := e.newRenderSet()
	state := func(r *Request, d *dot.Derived, overrides map[string]string) *renderState {
		d.SkillsKey = dot.CatalogKey(&memo.Encoder{}, &d.Skills)
		set.sums.have = 0
		return &renderState{e: e, set: set, req: r, d: *d, contrib: dot.Merged{Overrides: overrides}}
	}
	ms := mutations()
	for _, name := range e.Harnesses() {
		for _, ly := range e.pack.Harnesses[name].Layers {
			// As populated, then with the one file of each list named as
			// each file the layer reads by name.
			for _, file := range append([]dot.FileRead{{}}, e.layerPlans[ly].fileReads...) {
				values := func() (*Request, *dot.Derived) {
					r, d := populated()
					if file.Name != "" {
						d.Files[0].Name, d.DynamicFiles[0].Name = file.Name, file.Name
					}
					r.Harness = name
					return r, d
				}
				r0, d0 := values()
				base := state(r0, d0, nil).layerKey(ly)
				var sections0 []memo.Key
				for _, sec := range ly.Sections {
					sections0 = append(sections0, state(r0, d0, nil).sectionKey(sec, e.plans[sec]))
				}
				for _, m := range ms {
					r, d := values()
					m.apply(r, d)
					moved := false
					for i, sec := range ly.Sections {
						moved = moved || state(r, d, nil).sectionKey(sec, e.plans[sec]) != sections0[i]
					}
					assert.Equal(t, moved, state(r, d, nil).layerKey(ly) != base, "%s/%s: %s, file %q", name, ly.Name, m.name, file.Name)
				}
				for _, o := range e.layerPlans[ly].overrides {
					assert.NotEqual(t, base, state(r0, d0, map[string]string{o: "x"}).layerKey(ly), "%s/%s: override %s", name, ly.Name, o)
				}
			}
		}
	}
}
