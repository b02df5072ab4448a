package engine

import (
	"fmt"
	"slices"

	"github.com/sysprompt/sysprompt/engine/internal/dot"
	"github.com/sysprompt/sysprompt/engine/internal/memo"
	"github.com/sysprompt/sysprompt/engine/internal/pack"
)

// The section memo is the engine's only output cache. A section's text is
// a pure function of what its template reads of its dot (the pack is
// fixed for an Engine), so a section is executed again only when one of
// those values changed. Compile finds each section's read set in its
// parse tree (pack.Section.Reads); dot.KeyFields (engine/internal/dot) writes each value a
// template can read, field by field, and a section's key is its id, the
// harness, the mode and the hashes of the fields it reads (sectionKey).
// A section whose whole dot escapes is keyed on every field of its view.
// Stable and dynamic sections share the one bounded LRU (a memo.Cache,
// its keys written with a memo.Encoder). A joined layer
// is kept there too, keyed on what all its sections read (layerKey), and
// each layer's stable-prefix digest (hashed only when asked for) under
// the keys of its stable sections.

// Bounds of the memo: past either, the least recently used entry goes.
const (
	memoEntries = 4096
	memoBytes   = 32 << 20
)

// sectionOutcome is what one section produced in a render.
type sectionOutcome struct {
	out        string // rendered text; "" when omitted
	reason     string // why it was omitted
	overridden bool
	chars      int
	pending    bool // the template has yet to run (or be found in the memo)
}

// memoValue is a section's outcome; a joined layer, the sections it left
// out and the bytes its sections wrote (which count against the prompt's
// output bound); or a layer's stable-prefix digest.
type memoValue struct {
	outcome sectionOutcome
	layer   *Layer
	omitted []Omission
	kept    int
	digest  *stableDigest
}

func (v memoValue) size() int {
	n := len(v.outcome.out) + 128
	if v.digest != nil {
		n += len(v.digest.text) // also its layer's, but it may outlive that entry
	}
	if v.layer != nil {
		n += len(v.layer.Text) + 64*(len(v.layer.Sections)+len(v.omitted))
	}
	return n
}

// newMemo returns an empty memo.
func newMemo() *memo.Cache[memoValue] {
	return memo.New(memoEntries, memoBytes, memoValue.size)
}

// sectionPlan is what New works out for a section's memo key: the key
// fields and the files by name it reads; which file lists it reads, whose
// texts tidy leaves alone; whether it reads the tool lines (a sort).
type sectionPlan struct {
	slots                          []int
	fileReads                      []dot.FileRead // files read by name alone
	files, dynamicFiles, toolLines bool
}

// layerPlan is a layer's part of the memo: every key field its sections
// read, and the provider overrides that may replace one of them. A
// layer's text is a function of these, the harness and the mode.
type layerPlan struct {
	slots     []int
	fileReads []dot.FileRead
	overrides []string
}

// plans returns the plan of every section of p, and of every layer of
// its harnesses.
func plans(p *pack.Pack) (map[*pack.Section]*sectionPlan, map[*pack.Layer]*layerPlan, error) {
	if len(dot.KeyFields) > len(fieldSums{}.sum) {
		return nil, nil, fmt.Errorf("%d memo key fields, more than the %d a render can hold", len(dot.KeyFields), len(fieldSums{}.sum))
	}
	out := make(map[*pack.Section]*sectionPlan, len(p.Sections))
	for _, sec := range p.Sections {
		vt := &dot.Full
		if sec.Tier == TierStable {
			vt = &dot.Stable
		}
		slots, fileReads, err := dot.ReadSlots(sec, vt)
		if err != nil {
			return nil, nil, err
		}
		plan := &sectionPlan{slots: slots, fileReads: fileReads}
		for _, i := range slots {
			plan.files = plan.files || dot.KeyFields[i].Path == "Files"
			plan.dynamicFiles = plan.dynamicFiles || dot.KeyFields[i].Path == "DynamicFiles"
			plan.toolLines = plan.toolLines || dot.KeyFields[i].Path == "ToolLines"
		}
		out[sec] = plan
	}
	return out, layerPlans(p, out), nil
}

// layerPlans returns the plan of every layer of p's harnesses, from its
// sections' plans.
func layerPlans(p *pack.Pack, sections map[*pack.Section]*sectionPlan) map[*pack.Layer]*layerPlan {
	layers := map[*pack.Layer]*layerPlan{}
	for _, h := range p.Harnesses {
		for _, ly := range h.Layers {
			lp := &layerPlan{}
			for _, sec := range ly.Sections {
				lp.slots = append(lp.slots, sections[sec].slots...)
				lp.fileReads = append(lp.fileReads, sections[sec].fileReads...)
				if sec.Override != "" {
					lp.overrides = append(lp.overrides, sec.Override)
				}
			}
			slices.Sort(lp.slots)
			slices.Sort(lp.overrides)
			lp.slots, lp.overrides = slices.Compact(lp.slots), slices.Compact(lp.overrides)
			layers[ly] = lp
		}
	}
	return layers
}

// fieldSums is what one render knows of the key fields: each one's hash,
// computed the first time a section needs it.
type fieldSums struct {
	sum  [64]memo.Key
	have uint64 // bit i: sum[i] is set
}

// sums returns this render's hashes of the key fields, working out
// those of slots it has not yet.
func (st *renderState) sums(slots []int) *fieldSums {
	k, sums := &st.set.key, &st.set.sums
	for _, i := range slots {
		if sums.have&(1<<i) == 0 {
			k.Reset()
			dot.KeyFields[i].Write(k, st.req, &st.d)
			sums.sum[i], sums.have = k.Sum(), sums.have|1<<i
		}
	}
	return sums
}

// sectionKey is the memo key of sec's outcome in this render.
func (st *renderState) sectionKey(sec *pack.Section, plan *sectionPlan) memo.Key {
	sums, k := st.sums(plan.slots), &st.set.key
	k.Reset()
	k.String("section")
	k.String(sec.ID)
	k.String(st.req.Harness)
	k.String(string(st.req.Mode))
	for _, i := range plan.slots {
		k.Uint(sums.sum[i][0])
		k.Uint(sums.sum[i][1])
	}
	for _, r := range plan.fileReads {
		r.Write(k, &st.d)
	}
	return k.Sum()
}

// layerKey is the memo key of a joined layer in this render: what its
// sections read, the overrides in force for them, the harness and the
// mode. It needs no section's own key, so a layer found in the memo
// costs one hash of its fields.
func (st *renderState) layerKey(ly *pack.Layer) memo.Key {
	lp := st.e.layerPlans[ly]
	sums, k := st.sums(lp.slots), &st.set.key
	k.Reset()
	k.String("layer")
	k.String(ly.Name)
	k.String(st.req.Harness)
	k.String(string(st.req.Mode))
	for _, name := range lp.overrides {
		text, ok := st.contrib.Overrides[name]
		k.Bool(ok)
		k.String(text)
	}
	for _, i := range lp.slots {
		k.Uint(sums.sum[i][0])
		k.Uint(sums.sum[i][1])
	}
	for _, r := range lp.fileReads {
		r.Write(k, &st.d)
	}
	return k.Sum()
}
