package engine

import (
	"container/list"
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"
	"sync"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/skills"
	"github.com/sysprompt/sysprompt/engine/view"
)

// The stable tier is a pure function of the stable inputs (the tier
// enforcement guarantees it), so its rendered sections are memoised: a
// turn whose stable inputs are unchanged executes only the dynamic
// sections. The key is an explicit encoding of every value a stable
// section can see (stableKey, field by field), hashed to 128 bits; the
// memo is a bounded LRU. This is the engine's only output cache.

// memoSize bounds how many distinct stable tiers an Engine remembers.
const memoSize = 64

// sectionOutcome is what one section produced in a render.
type sectionOutcome struct {
	out        string // rendered text; "" when omitted
	reason     string // why it was omitted
	overridden bool
	chars      int
}

type memoKey [2]uint64

// stableTier is what the memo keeps of one render's stable tier: per
// layer, the outcomes of its stable sections, and the tool lines, a
// stable value the dynamic sections may read too.
type stableTier struct {
	layers    []memoLayer
	toolLines []view.ToolLine
}

// memoLayer is one layer's stable tier: the outcomes of its stable
// sections in manifest order, and the stable prefix's sha256.
type memoLayer struct {
	outcomes []sectionOutcome
	sha256   string
}

// stableMemo is an LRU of stable tiers.
type stableMemo struct {
	mu    sync.Mutex
	lru   *list.List // of *memoEntry, most recent first
	items map[memoKey]*list.Element
}

type memoEntry struct {
	key  memoKey
	tier *stableTier
}

func newStableMemo() *stableMemo {
	return &stableMemo{lru: list.New(), items: map[memoKey]*list.Element{}}
}

func (m *stableMemo) get(k memoKey) (*stableTier, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.items[k]
	if !ok {
		return nil, false
	}
	m.lru.MoveToFront(el)
	return el.Value.(*memoEntry).tier, true
}

func (m *stableMemo) put(k memoKey, tier *stableTier) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.items[k]; ok {
		m.lru.MoveToFront(el)
		return
	}
	m.items[k] = m.lru.PushFront(&memoEntry{key: k, tier: tier})
	for m.lru.Len() > memoSize {
		last := m.lru.Back()
		delete(m.items, last.Value.(*memoEntry).key)
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
// rather than copied into the buffer (file contents, prefixes).
const longString = 256

// string writes the length first, so ("ab","c") and ("a","bc") differ.
func (k *keyEncoder) string(s string) {
	k.uint(uint64(len(s)))
	if len(s) < longString {
		k.buf = append(k.buf, s...)
		return
	}
	k.uint(maphash.String(memoSeeds[0], s))
	k.uint(maphash.String(memoSeeds[1], s))
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

// stableKey encodes everything the stable sections can see: the harness,
// the stable request fields and the stable derived values. ToolLines and
// Pack are left out: they are functions of the request's tools and of the
// pack, which the key and the Engine already fix. skillsKey stands for
// the skills view (see catalogKey). TestStableKeyCoversEveryField fails
// when one of these types gains a field that is not written here.
func stableKey(k *keyEncoder, harness string, req *Request, d *derived, skillsKey memoKey) memoKey {
	k.reset()
	k.string(harness)
	k.string(string(req.Mode))
	k.string(req.Agent)
	k.string(req.SessionKind)
	k.string(req.ChatType)
	if req.Tools == nil {
		k.uint(nilMark)
	} else {
		k.int(len(req.Tools))
		for _, t := range req.Tools { // what templates see of them: not the schemas
			k.string(t.Name)
			k.string(t.Description)
		}
	}
	k.string(req.Workspace.Path)
	k.optionalBool(req.Workspace.BrandNew)
	k.string(req.Docs.Path)
	k.string(req.Docs.URL)
	k.string(req.Docs.Source)
	k.bool(req.Sandbox.Enabled)
	k.string(req.Sandbox.Workdir)
	k.string(req.Sandbox.WorkspaceAccess)
	k.bool(req.Sandbox.Elevated)
	k.string(req.Timezone)
	sortedMap(k, req.ModelAliases, k.string)

	k.settings(&d.Config)
	k.files(d.Files)
	k.string(d.StablePrefix)
	k.uint(skillsKey[0])
	k.uint(skillsKey[1])
	sortedMap(k, d.Overrides, k.string)
	k.string(d.BootstrapMode)
	return k.sum()
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
