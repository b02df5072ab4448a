package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/internal/memo"
	"github.com/sysprompt/sysprompt/engine/internal/pack"
	"github.com/sysprompt/sysprompt/engine/skills"
	"github.com/sysprompt/sysprompt/engine/view"
)

// The section memo is the engine's only output cache. A section's text is
// a pure function of what its template reads of its dot (the pack is
// fixed for an Engine), so a section is executed again only when one of
// those values changed. Compile finds each section's read set in its
// parse tree (pack.Section.Reads); keyFields below writes each value a
// template can read, field by field, and a section's key is its id, the
// harness, the mode and the hashes of the fields it reads (sectionKey).
// A section whose whole dot escapes is keyed on every field of its view.
// Stable and dynamic sections share the one bounded LRU (a memo.Cache,
// its keys written with a memo.Encoder). A joined layer
// is kept there too, keyed on what all its sections read (layerKey), and
// each layer's stable-prefix sha256 under the keys of its stable
// sections.

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
// output bound); or a layer's stable-prefix sha256.
type memoValue struct {
	outcome sectionOutcome
	layer   *Layer
	omitted []Omission
	kept    int
	sha256  string
}

func (v memoValue) size() int {
	n := len(v.outcome.out) + len(v.sha256) + 128
	if v.layer != nil {
		n += len(v.layer.Text) + 64*(len(v.layer.Sections)+len(v.omitted))
	}
	return n
}

// newMemo returns an empty memo.
func newMemo() *memo.Cache[memoValue] {
	return memo.New(memoEntries, memoBytes, memoValue.size)
}

func writeSettings(k *memo.Encoder, s *config.Settings) {
	k.String(s.Agent)
	k.String(s.Workspace)
	k.Int(s.BootstrapMaxChars)
	k.Int(s.BootstrapTotalMaxChars)
	k.String(s.TruncationWarning)
	k.String(s.UserTimezone)
	k.String(s.TimeFormat)
	k.Bool(s.HeartbeatEnabled)
	k.Bool(s.HeartbeatSection)
	k.String(s.HeartbeatPrompt)
	k.String(s.DelegationMode)
	memo.SortedMap(k, s.PromptOverlays, k.String)
	k.Allowlist(s.SkillsAllowlist)
	k.Int(s.MaxSkillsPromptChars)
	k.Int(s.MaxSkillsInPrompt)
	k.Int(s.MaxPromptChars)
	memo.SortedMap(k, s.ContextLimits, k.Int) // templates can read them in .Config
	k.String(s.MemoryCitations)
	memo.SortedMap(k, s.BootstrapReplace, k.String)
	k.Bool(s.PlanTool)
	memo.SortedMap(k, s.Plugins, k.Bool)
}

func writeFiles(k *memo.Encoder, files []bootstrap.File) {
	if files == nil {
		k.Nil()
		return
	}
	k.Int(len(files))
	for i := range files {
		f := &files[i]
		k.String(f.Name)
		k.String(f.Path)
		k.String(f.Display)
		k.String(f.Content)
		k.Int(f.RawChars)
		k.Int(f.InjectedChars)
		k.String(string(f.Status))
		k.Int(len(f.Causes))
		for _, c := range f.Causes {
			k.String(string(c))
		}
		k.Bool(f.NearLimit)
		k.String(f.Reason)
		k.Bool(f.Dynamic)
		k.Bool(f.Startup)
		k.Bool(f.Private)
	}
}

// catalogKey encodes the skills view a catalog gives templates. It is
// computed once per built catalog, not per render.
func catalogKey(k *memo.Encoder, v *view.SkillsView) memo.Key {
	k.Reset()
	if v.Listed == nil {
		k.Nil()
	} else {
		k.Int(len(v.Listed))
		for i := range v.Listed {
			s := &v.Listed[i]
			k.String(s.Name)
			k.String(s.Description)
			k.String(s.Key)
			k.String(string(s.Source))
			k.String(s.Plugin)
			k.String(s.Path)
			k.String(s.Location)
			k.String(s.Version)
			writeMetadata(k, &s.Meta)
		}
	}
	k.Bool(v.Descriptions)
	k.String(v.Note)
	k.Int(v.Eligible)
	k.String(v.Catalog)
	return k.Sum()
}

func writeMetadata(k *memo.Encoder, m *skills.Metadata) {
	k.Strings(m.OS)
	k.Bool(m.Always)
	k.String(m.SkillKey)
	k.String(m.PrimaryEnv)
	k.Strings(m.Requires.Bins)
	k.Strings(m.Requires.AnyBins)
	k.Strings(m.Requires.Env)
	k.Strings(m.Requires.Config)
}

// keyField writes one value a template can read.
type keyField struct {
	path  string // "Channel" or "Channel.Delivery"
	write func(k *memo.Encoder, r *Request, d *derived)
}

// keyFields has a writer for every field of the full view, and for the
// parts of the volatile fields that change turn by turn, so that a
// section reading .Channel.Delivery is not executed again for a new
// .Channel.ID. A field with parts is written as all of its parts.
// TestKeyFieldsFollowTheirFields checks every one against the types.
var keyFields = func() []keyField {
	str := func(path string, get func(r *Request, d *derived) string) keyField {
		return keyField{path, func(k *memo.Encoder, r *Request, d *derived) { k.String(get(r, d)) }}
	}
	channel := []keyField{
		str("Channel.ID", func(r *Request, _ *derived) string { return r.Channel.ID }),
		str("Channel.Delivery", func(r *Request, _ *derived) string { return r.Channel.Delivery }),
		{"Channel.Capabilities", func(k *memo.Encoder, r *Request, _ *derived) { k.Strings(r.Channel.Capabilities) }},
		str("Channel.SilentReplies", func(r *Request, _ *derived) string { return r.Channel.SilentReplies }),
	}
	session := []keyField{
		str("Session.Key", func(r *Request, _ *derived) string { return r.Session.Key }),
		str("Session.ID", func(r *Request, _ *derived) string { return r.Session.ID }),
		{"Session.Reset", func(k *memo.Encoder, r *Request, _ *derived) { k.Bool(r.Session.Reset) }},
	}
	runtime := []keyField{
		str("Runtime.Host", func(r *Request, _ *derived) string { return r.Runtime.Host }),
		str("Runtime.OS", func(r *Request, _ *derived) string { return r.Runtime.OS }),
		str("Runtime.Arch", func(r *Request, _ *derived) string { return r.Runtime.Arch }),
		str("Runtime.Version", func(r *Request, _ *derived) string { return r.Runtime.Version }),
		str("Runtime.Provider", func(r *Request, _ *derived) string { return r.Runtime.Provider }),
		str("Runtime.Model", func(r *Request, _ *derived) string { return r.Runtime.Model }),
		str("Runtime.DefaultModel", func(r *Request, _ *derived) string { return r.Runtime.DefaultModel }),
		str("Runtime.RepoRoot", func(r *Request, _ *derived) string { return r.Runtime.RepoRoot }),
		str("Runtime.Shell", func(r *Request, _ *derived) string { return r.Runtime.Shell }),
		str("Runtime.Thinking", func(r *Request, _ *derived) string { return r.Runtime.Thinking }),
		str("Runtime.Reasoning", func(r *Request, _ *derived) string { return r.Runtime.Reasoning }),
	}
	whole := func(path string, parts []keyField) keyField {
		return keyField{path, func(k *memo.Encoder, r *Request, d *derived) {
			for _, p := range parts {
				p.write(k, r, d)
			}
		}}
	}
	tools := func(k *memo.Encoder, r *Request, _ *derived) { writeTools(k, r.Tools) }
	fields := []keyField{
		str("Mode", func(r *Request, _ *derived) string { return string(r.Mode) }),
		str("Harness", func(r *Request, _ *derived) string { return r.Harness }),
		str("Agent", func(r *Request, _ *derived) string { return r.Agent }),
		str("SessionKind", func(r *Request, _ *derived) string { return r.SessionKind }),
		str("ChatType", func(r *Request, _ *derived) string { return r.ChatType }),
		{"LightContext", func(k *memo.Encoder, r *Request, _ *derived) { k.Bool(r.LightContext) }},
		whole("Session", session),
		{"Tools", tools},
		whole("Channel", channel),
		whole("Runtime", runtime),
		{"Workspace", func(k *memo.Encoder, r *Request, _ *derived) {
			k.String(r.Workspace.Path)
			k.OptionalBool(r.Workspace.BrandNew)
		}},
		{"Docs", func(k *memo.Encoder, r *Request, _ *derived) {
			k.String(r.Docs.Path)
			k.String(r.Docs.URL)
			k.String(r.Docs.Source)
		}},
		{"Sandbox", func(k *memo.Encoder, r *Request, _ *derived) {
			k.Bool(r.Sandbox.Enabled)
			k.String(r.Sandbox.Workdir)
			k.String(r.Sandbox.MountSource)
			k.String(r.Sandbox.WorkspaceAccess)
			k.Bool(r.Sandbox.Elevated)
			k.Bool(r.Sandbox.ElevatedFull)
		}},
		str("Date", func(r *Request, _ *derived) string { return r.Date }),
		str("Timezone", func(r *Request, _ *derived) string { return r.Timezone }),
		str("ElevatedLevel", func(r *Request, _ *derived) string { return r.ElevatedLevel }),
		str("Heartbeat", func(r *Request, _ *derived) string { return r.Heartbeat.Prompt }),
		{"Owners", func(k *memo.Encoder, r *Request, _ *derived) { k.Strings(r.Owners) }},
		str("TTSHint", func(r *Request, _ *derived) string { return r.TTSHint }),
		{"ModelAliases", func(k *memo.Encoder, r *Request, _ *derived) { memo.SortedMap(k, r.ModelAliases, k.String) }},
		str("Reactions", func(r *Request, _ *derived) string { return r.Reactions.Level }),
		str("ExtraSystemPrompt", func(r *Request, _ *derived) string { return r.ExtraSystemPrompt }),

		{"Config", func(k *memo.Encoder, _ *Request, d *derived) { writeSettings(k, &d.Config) }},
		{"Pack", func(*memo.Encoder, *Request, *derived) {}}, // fixed for the Engine, whose memo this is
		{"Files", func(k *memo.Encoder, _ *Request, d *derived) { writeFiles(k, d.Files) }},
		str("StablePrefix", func(_ *Request, d *derived) string { return d.StablePrefix }),
		{"DynamicFiles", func(k *memo.Encoder, _ *Request, d *derived) { writeFiles(k, d.DynamicFiles) }},
		str("DynamicSuffix", func(_ *Request, d *derived) string { return d.DynamicSuffix }),
		{"Truncation", func(k *memo.Encoder, _ *Request, d *derived) {
			k.Bool(d.Truncation.Warn)
			k.Strings(d.Truncation.Files)
			k.Strings(d.Truncation.Skipped)
		}},
		{"ToolLines", tools}, // the tools ordered by the pack's table
		{"Skills", func(k *memo.Encoder, _ *Request, d *derived) {
			k.Uint(d.skillsKey[0])
			k.Uint(d.skillsKey[1])
		}},
		{"Overrides", func(k *memo.Encoder, _ *Request, d *derived) { memo.SortedMap(k, d.Overrides, k.String) }},
		str("BootstrapMode", func(_ *Request, d *derived) string { return d.BootstrapMode }),
		str("Today", func(_ *Request, d *derived) string { return d.Today }),
		{"SharedChat", func(k *memo.Encoder, _ *Request, d *derived) { k.Bool(d.SharedChat) }},
	}
	return slices.Concat(fields, channel, session, runtime)
}()

// keySlot returns the index in keyFields that covers the read path: the
// path's own writer, else its first name's.
func keySlot(path string) (int, bool) {
	if i := slices.IndexFunc(keyFields, func(f keyField) bool { return f.path == path }); i >= 0 {
		return i, true
	}
	top, _, _ := strings.Cut(path, ".")
	i := slices.IndexFunc(keyFields, func(f keyField) bool { return f.path == top })
	return i, i >= 0
}

// readSlots returns the keyFields a section's key is made of, sorted:
// those covering its read set, or every field of its view when the view
// escapes.
func readSlots(sec *pack.Section, vt *viewType) ([]int, error) {
	var slots []int
	add := func(path string) error {
		i, ok := keySlot(path)
		if !ok {
			return fmt.Errorf("section %s reads %s, which no memo key field covers", sec.ID, path)
		}
		if !slices.Contains(slots, i) {
			slots = append(slots, i)
		}
		return nil
	}
	paths := sec.Reads
	if sec.ReadsAll {
		paths = nil
		for _, f := range vt.fields {
			paths = append(paths, f.name)
		}
	}
	for _, p := range paths {
		if err := add(p); err != nil {
			return nil, err
		}
	}
	slices.Sort(slots)
	return slots, nil
}

// sectionPlan is what New works out for a section's memo key: the key
// fields it reads; which file lists it reads, whose texts tidy must
// leave alone; whether it reads the tool lines, which cost a sort.
type sectionPlan struct {
	slots                          []int
	files, dynamicFiles, toolLines bool
}

// layerPlan is a layer's part of the memo: every key field its sections
// read, and the provider overrides that may replace one of them. A
// layer's text is a function of these, the harness and the mode.
type layerPlan struct {
	slots     []int
	overrides []string
}

// plans returns the plan of every section of p, and of every layer of
// its harnesses.
func plans(p *pack.Pack) (map[*pack.Section]*sectionPlan, map[*pack.Layer]*layerPlan, error) {
	if len(keyFields) > len(fieldSums{}.sum) {
		return nil, nil, fmt.Errorf("%d memo key fields, more than the %d a render can hold", len(keyFields), len(fieldSums{}.sum))
	}
	out := make(map[*pack.Section]*sectionPlan, len(p.Sections))
	for _, sec := range p.Sections {
		vt := &fullView
		if sec.Tier == TierStable {
			vt = &stableView
		}
		slots, err := readSlots(sec, vt)
		if err != nil {
			return nil, nil, err
		}
		plan := &sectionPlan{slots: slots}
		for _, i := range slots {
			plan.files = plan.files || keyFields[i].path == "Files"
			plan.dynamicFiles = plan.dynamicFiles || keyFields[i].path == "DynamicFiles"
			plan.toolLines = plan.toolLines || keyFields[i].path == "ToolLines"
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
			keyFields[i].write(k, st.req, &st.d)
			sums.sum[i], sums.have = k.Sum(), sums.have|1<<i
		}
	}
	return sums
}

// sectionKey is the memo key of sec's outcome in this render.
func (st *renderState) sectionKey(sec *pack.Section, slots []int) memo.Key {
	sums, k := st.sums(slots), &st.set.key
	k.Reset()
	k.String("section")
	k.String(sec.ID)
	k.String(st.req.Harness)
	k.String(string(st.req.Mode))
	for _, i := range slots {
		k.Uint(sums.sum[i][0])
		k.Uint(sums.sum[i][1])
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
		text, ok := st.contrib.overrides[name]
		k.Bool(ok)
		k.String(text)
	}
	for _, i := range lp.slots {
		k.Uint(sums.sum[i][0])
		k.Uint(sums.sum[i][1])
	}
	return k.Sum()
}

func writeTools(k *memo.Encoder, tools []Tool) {
	if tools == nil {
		k.Nil()
		return
	}
	k.Int(len(tools))
	for _, t := range tools { // what templates see of them: not the schemas
		k.String(t.Name)
		k.String(t.Description)
	}
}
