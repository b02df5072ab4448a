package engine

import (
	"container/list"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"
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
// Stable and dynamic sections share the one bounded LRU. A joined layer
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

type memoKey [2]uint64

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

func (v *memoValue) size() int {
	n := len(v.outcome.out) + len(v.sha256) + 128
	if v.layer != nil {
		n += len(v.layer.Text) + 64*(len(v.layer.Sections)+len(v.omitted))
	}
	return n
}

// memo is an LRU of memoValues, bounded in entries and in bytes.
type memo struct {
	mu    sync.Mutex
	lru   *list.List // of *memoEntry, most recent first
	items map[memoKey]*list.Element
	bytes int
}

type memoEntry struct {
	key   memoKey
	value memoValue
}

func newMemo() *memo {
	return &memo{lru: list.New(), items: map[memoKey]*list.Element{}}
}

func (m *memo) get(k memoKey) (memoValue, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.items[k]
	if !ok {
		return memoValue{}, false
	}
	m.lru.MoveToFront(el)
	return el.Value.(*memoEntry).value, true
}

func (m *memo) put(k memoKey, v memoValue) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.items[k]; ok {
		m.lru.MoveToFront(el)
		return
	}
	m.items[k] = m.lru.PushFront(&memoEntry{key: k, value: v})
	m.bytes += v.size()
	for m.lru.Len() > memoEntries || m.bytes > memoBytes {
		last := m.lru.Back()
		e := last.Value.(*memoEntry)
		delete(m.items, e.key)
		m.bytes -= e.value.size()
		m.lru.Remove(last)
	}
}

// memoSeeds are the two hash seeds of this process; the memo lives in
// memory only, so the seeds need not be stable across runs.
var memoSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// keyEncoder writes values into a buffer that is hashed once at the end
// with two independent 64-bit hashes. Every value is written with its
// length or a presence mark first, so different inputs never encode alike.
type keyEncoder struct {
	buf  []byte
	keys []string // scratch for sorting map keys
}

func (k *keyEncoder) reset() { k.buf = k.buf[:0] }

func (k *keyEncoder) sum() memoKey {
	return memoKey{maphash.Bytes(memoSeeds[0], k.buf), maphash.Bytes(memoSeeds[1], k.buf)}
}

func (k *keyEncoder) uint(v uint64) { k.buf = binary.LittleEndian.AppendUint64(k.buf, v) }
func (k *keyEncoder) int(v int)     { k.uint(uint64(v)) }

func (k *keyEncoder) bool(b bool) {
	if b {
		k.buf = append(k.buf, 1)
	} else {
		k.buf = append(k.buf, 0)
	}
}

// optionalBool writes an unset, false or true value as three distinct bytes.
func (k *keyEncoder) optionalBool(b *bool) {
	switch {
	case b == nil:
		k.buf = append(k.buf, 2)
	default:
		k.bool(*b)
	}
}

// longString is the length from which a string is hashed on its own
// rather than copied into the buffer (file contents, prefixes). One
// 64-bit hash with the process's secret seed, beside the length, is
// enough to tell two such texts apart: hashing every file twice was a
// tenth of a warm turn.
const longString = 256

// string writes the length first, so ("ab","c") and ("a","bc") differ.
func (k *keyEncoder) string(s string) {
	k.uint(uint64(len(s)))
	if len(s) < longString {
		k.buf = append(k.buf, s...)
		return
	}
	k.uint(maphash.String(memoSeeds[0], s))
}

// nilMark stands for a nil list or map, which templates can tell from an
// empty one (mustToJson prints null or []).
const nilMark = math.MaxUint64

func (k *keyEncoder) strings(list []string) {
	if list == nil {
		k.uint(nilMark)
		return
	}
	k.int(len(list))
	for _, s := range list {
		k.string(s)
	}
}

// allowlist writes an agent's skills allowlist: unset (all skills) and
// empty (none) differ.
func (k *keyEncoder) allowlist(list *[]string) {
	if list == nil {
		k.uint(nilMark)
		return
	}
	k.uint(0)
	k.strings(*list)
}

// sortedMap writes m's size and its entries in key order.
func sortedMap[V any](k *keyEncoder, m map[string]V, value func(V)) {
	if m == nil {
		k.uint(nilMark)
		return
	}
	k.int(len(m))
	base := len(k.keys)
	for key := range m {
		k.keys = append(k.keys, key)
	}
	slices.Sort(k.keys[base:])
	for i := base; i < base+len(m); i++ {
		k.string(k.keys[i])
		value(m[k.keys[i]])
	}
	k.keys = k.keys[:base]
}

func (k *keyEncoder) settings(s *config.Settings) {
	k.string(s.Agent)
	k.string(s.Workspace)
	k.int(s.BootstrapMaxChars)
	k.int(s.BootstrapTotalMaxChars)
	k.string(s.TruncationWarning)
	k.string(s.UserTimezone)
	k.string(s.TimeFormat)
	k.bool(s.HeartbeatEnabled)
	k.bool(s.HeartbeatSection)
	k.string(s.HeartbeatPrompt)
	k.string(s.DelegationMode)
	sortedMap(k, s.PromptOverlays, k.string)
	k.allowlist(s.SkillsAllowlist)
	k.int(s.MaxSkillsPromptChars)
	k.int(s.MaxSkillsInPrompt)
	k.int(s.MaxPromptChars)
	sortedMap(k, s.ContextLimits, k.int) // templates can read them in .Config
	k.string(s.MemoryCitations)
	sortedMap(k, s.BootstrapReplace, k.string)
	k.bool(s.PlanTool)
	sortedMap(k, s.Plugins, k.bool)
}

func (k *keyEncoder) files(files []bootstrap.File) {
	if files == nil {
		k.uint(nilMark)
		return
	}
	k.int(len(files))
	for i := range files {
		f := &files[i]
		k.string(f.Name)
		k.string(f.Path)
		k.string(f.Display)
		k.string(f.Content)
		k.int(f.RawChars)
		k.int(f.InjectedChars)
		k.string(string(f.Status))
		k.int(len(f.Causes))
		for _, c := range f.Causes {
			k.string(string(c))
		}
		k.bool(f.NearLimit)
		k.string(f.Reason)
		k.bool(f.Dynamic)
		k.bool(f.Startup)
		k.bool(f.Private)
	}
}

// catalogKey encodes the skills view a catalog gives templates. It is
// computed once per built catalog, not per render.
func catalogKey(k *keyEncoder, v *view.SkillsView) memoKey {
	k.reset()
	if v.Listed == nil {
		k.uint(nilMark)
	} else {
		k.int(len(v.Listed))
		for i := range v.Listed {
			s := &v.Listed[i]
			k.string(s.Name)
			k.string(s.Description)
			k.string(s.Key)
			k.string(string(s.Source))
			k.string(s.Plugin)
			k.string(s.Path)
			k.string(s.Location)
			k.string(s.Version)
			k.metadata(&s.Meta)
		}
	}
	k.bool(v.Descriptions)
	k.string(v.Note)
	k.int(v.Eligible)
	k.string(v.Catalog)
	return k.sum()
}

func (k *keyEncoder) metadata(m *skills.Metadata) {
	k.strings(m.OS)
	k.bool(m.Always)
	k.string(m.SkillKey)
	k.string(m.PrimaryEnv)
	k.strings(m.Requires.Bins)
	k.strings(m.Requires.AnyBins)
	k.strings(m.Requires.Env)
	k.strings(m.Requires.Config)
}

// keyField writes one value a template can read.
type keyField struct {
	path  string // "Channel" or "Channel.Delivery"
	write func(k *keyEncoder, r *Request, d *derived)
}

// keyFields has a writer for every field of the full view, and for the
// parts of the volatile fields that change turn by turn, so that a
// section reading .Channel.Delivery is not executed again for a new
// .Channel.ID. A field with parts is written as all of its parts.
// TestKeyFieldsFollowTheirFields checks every one against the types.
var keyFields = func() []keyField {
	str := func(path string, get func(r *Request, d *derived) string) keyField {
		return keyField{path, func(k *keyEncoder, r *Request, d *derived) { k.string(get(r, d)) }}
	}
	channel := []keyField{
		str("Channel.ID", func(r *Request, _ *derived) string { return r.Channel.ID }),
		str("Channel.Delivery", func(r *Request, _ *derived) string { return r.Channel.Delivery }),
		{"Channel.Capabilities", func(k *keyEncoder, r *Request, _ *derived) { k.strings(r.Channel.Capabilities) }},
		str("Channel.SilentReplies", func(r *Request, _ *derived) string { return r.Channel.SilentReplies }),
	}
	session := []keyField{
		str("Session.Key", func(r *Request, _ *derived) string { return r.Session.Key }),
		str("Session.ID", func(r *Request, _ *derived) string { return r.Session.ID }),
		{"Session.Reset", func(k *keyEncoder, r *Request, _ *derived) { k.bool(r.Session.Reset) }},
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
		return keyField{path, func(k *keyEncoder, r *Request, d *derived) {
			for _, p := range parts {
				p.write(k, r, d)
			}
		}}
	}
	tools := func(k *keyEncoder, r *Request, _ *derived) { k.tools(r.Tools) }
	fields := []keyField{
		str("Mode", func(r *Request, _ *derived) string { return string(r.Mode) }),
		str("Harness", func(r *Request, _ *derived) string { return r.Harness }),
		str("Agent", func(r *Request, _ *derived) string { return r.Agent }),
		str("SessionKind", func(r *Request, _ *derived) string { return r.SessionKind }),
		str("ChatType", func(r *Request, _ *derived) string { return r.ChatType }),
		whole("Session", session),
		{"Tools", tools},
		whole("Channel", channel),
		whole("Runtime", runtime),
		{"Workspace", func(k *keyEncoder, r *Request, _ *derived) {
			k.string(r.Workspace.Path)
			k.optionalBool(r.Workspace.BrandNew)
		}},
		{"Docs", func(k *keyEncoder, r *Request, _ *derived) {
			k.string(r.Docs.Path)
			k.string(r.Docs.URL)
			k.string(r.Docs.Source)
		}},
		{"Sandbox", func(k *keyEncoder, r *Request, _ *derived) {
			k.bool(r.Sandbox.Enabled)
			k.string(r.Sandbox.Workdir)
			k.string(r.Sandbox.WorkspaceAccess)
			k.bool(r.Sandbox.Elevated)
		}},
		str("Date", func(r *Request, _ *derived) string { return r.Date }),
		str("Timezone", func(r *Request, _ *derived) string { return r.Timezone }),
		str("Heartbeat", func(r *Request, _ *derived) string { return r.Heartbeat.Prompt }),
		{"Owners", func(k *keyEncoder, r *Request, _ *derived) { k.strings(r.Owners) }},
		str("TTSHint", func(r *Request, _ *derived) string { return r.TTSHint }),
		{"ModelAliases", func(k *keyEncoder, r *Request, _ *derived) { sortedMap(k, r.ModelAliases, k.string) }},
		str("Reactions", func(r *Request, _ *derived) string { return r.Reactions.Level }),
		str("ExtraSystemPrompt", func(r *Request, _ *derived) string { return r.ExtraSystemPrompt }),

		{"Config", func(k *keyEncoder, _ *Request, d *derived) { k.settings(&d.Config) }},
		{"Pack", func(*keyEncoder, *Request, *derived) {}}, // fixed for the Engine, whose memo this is
		{"Files", func(k *keyEncoder, _ *Request, d *derived) { k.files(d.Files) }},
		str("StablePrefix", func(_ *Request, d *derived) string { return d.StablePrefix }),
		{"DynamicFiles", func(k *keyEncoder, _ *Request, d *derived) { k.files(d.DynamicFiles) }},
		str("DynamicSuffix", func(_ *Request, d *derived) string { return d.DynamicSuffix }),
		{"Truncation", func(k *keyEncoder, _ *Request, d *derived) {
			k.bool(d.Truncation.Warn)
			k.strings(d.Truncation.Files)
			k.strings(d.Truncation.Skipped)
		}},
		{"ToolLines", tools}, // the tools ordered by the pack's table
		{"Skills", func(k *keyEncoder, _ *Request, d *derived) {
			k.uint(d.skillsKey[0])
			k.uint(d.skillsKey[1])
		}},
		{"Overrides", func(k *keyEncoder, _ *Request, d *derived) { sortedMap(k, d.Overrides, k.string) }},
		str("BootstrapMode", func(_ *Request, d *derived) string { return d.BootstrapMode }),
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
	sum  [64]memoKey
	have uint64 // bit i: sum[i] is set
}

// sums returns this render's hashes of the key fields, working out
// those of slots it has not yet.
func (st *renderState) sums(slots []int) *fieldSums {
	k, sums := &st.set.key, &st.set.sums
	for _, i := range slots {
		if sums.have&(1<<i) == 0 {
			k.reset()
			keyFields[i].write(k, st.req, &st.d)
			sums.sum[i], sums.have = k.sum(), sums.have|1<<i
		}
	}
	return sums
}

// sectionKey is the memo key of sec's outcome in this render.
func (st *renderState) sectionKey(sec *pack.Section, slots []int) memoKey {
	sums, k := st.sums(slots), &st.set.key
	k.reset()
	k.string("section")
	k.string(sec.ID)
	k.string(st.req.Harness)
	k.string(string(st.req.Mode))
	for _, i := range slots {
		k.uint(sums.sum[i][0])
		k.uint(sums.sum[i][1])
	}
	return k.sum()
}

// layerKey is the memo key of a joined layer in this render: what its
// sections read, the overrides in force for them, the harness and the
// mode. It needs no section's own key, so a layer found in the memo
// costs one hash of its fields.
func (st *renderState) layerKey(ly *pack.Layer) memoKey {
	lp := st.e.layerPlans[ly]
	sums, k := st.sums(lp.slots), &st.set.key
	k.reset()
	k.string("layer")
	k.string(ly.Name)
	k.string(st.req.Harness)
	k.string(string(st.req.Mode))
	for _, name := range lp.overrides {
		text, ok := st.contrib.overrides[name]
		k.bool(ok)
		k.string(text)
	}
	for _, i := range lp.slots {
		k.uint(sums.sum[i][0])
		k.uint(sums.sum[i][1])
	}
	return k.sum()
}

// ofKeys is the key of what is made of the things keyed by list (a
// layer's stable prefix, made of its stable sections). kind and name tell
// it from other keys.
func (k *keyEncoder) ofKeys(kind, name string, list []memoKey) memoKey {
	k.reset()
	k.string(kind)
	k.string(name)
	for _, key := range list {
		k.uint(key[0])
		k.uint(key[1])
	}
	return k.sum()
}

func (k *keyEncoder) tools(tools []Tool) {
	if tools == nil {
		k.uint(nilMark)
		return
	}
	k.int(len(tools))
	for _, t := range tools { // what templates see of them: not the schemas
		k.string(t.Name)
		k.string(t.Description)
	}
}
