package engine

import "sync"

// A dynamic section is re-executed only when a field it reads changes.
// New records which view fields each section names (checkTiers); a section
// whose view never escapes runs against a view holding just those fields,
// so its output is a pure function of their values and is memoised on a
// hash of them. A field the walk missed would fail the render with "can't
// evaluate field", never serve a stale text. Sections whose view escapes
// (printed, passed to a function) are executed every time.

// sectionMemoSize bounds how many outputs one section remembers.
const sectionMemoSize = 8

// sectionMemo is one dynamic section's memo: its narrow view and the
// outputs for its most recent inputs, newest first.
type sectionMemo struct {
	view viewType
	deps []int // indexes into fullView.fields of the fields read

	mu   sync.Mutex
	n    int
	keys [sectionMemoSize]memoKey
	outs [sectionMemoSize]memoOutput
}

// memoOutput is what a section's template produced for one input. When
// final is false the tidy-up depends on the injected files, which the key
// does not cover, so only raw is reused.
type memoOutput struct {
	raw     string
	outcome sectionOutcome
	final   bool
}

// newSectionMemo returns the memo of a section that reads the named view
// fields, or nil when it cannot have one.
func newSectionMemo(sec *section) *sectionMemo {
	if sec.tier != TierDynamic || sec.opaque {
		return nil
	}
	reads := map[string]bool{}
	for _, r := range sec.reads {
		reads[r] = true
	}
	m := &sectionMemo{view: newViewType(func(name string) bool { return reads[name] })}
	for i, f := range fullView.fields {
		if reads[f.name] {
			m.deps = append(m.deps, i)
		}
	}
	return m
}

func (m *sectionMemo) get(k memoKey) (memoOutput, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.n {
		if m.keys[i] == k {
			out := m.outs[i]
			copy(m.keys[1:i+1], m.keys[:i])
			copy(m.outs[1:i+1], m.outs[:i])
			m.keys[0], m.outs[0] = k, out
			return out, true
		}
	}
	return memoOutput{}, false
}

func (m *sectionMemo) put(k memoKey, out memoOutput) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.n {
		if m.keys[i] == k {
			return
		}
	}
	if m.n < sectionMemoSize {
		m.n++
	}
	copy(m.keys[1:m.n], m.keys[:m.n-1])
	copy(m.outs[1:m.n], m.outs[:m.n-1])
	m.keys[0], m.outs[0] = k, out
}

// fieldHashes caches, for one render, the hash of each view field a
// dynamic section's key needs, so a field several sections read is
// hashed once. Stable fields share one hash: the stable key.
type fieldHashes struct {
	stable memoKey
	done   []bool
	sums   []memoKey
}

func (h *fieldHashes) reset(stable memoKey) {
	h.stable = stable
	if h.done == nil {
		h.done = make([]bool, len(fullView.fields))
		h.sums = make([]memoKey, len(fullView.fields))
	}
	clear(h.done)
}

// field returns the hash of view field i's value in this render.
func (h *fieldHashes) field(i int, req *Request, d *derived, k *keyHasher) memoKey {
	f := &fullView.fields[i]
	if !f.volatile {
		return h.stable
	}
	if h.done[i] {
		return h.sums[i]
	}
	k.reset()
	k.value(f.value(req, d))
	h.sums[i], h.done[i] = k.sum(), true
	return h.sums[i]
}

// key is the memo key of a section in this render.
func (h *fieldHashes) key(m *sectionMemo, req *Request, d *derived, hasher *keyHasher) memoKey {
	var k memoKey
	for _, i := range m.deps {
		s := h.field(i, req, d, hasher)
		// The field hashes are uniformly random, so an order-sensitive
		// polynomial fold keeps collisions as unlikely as in each hash.
		k[0] = k[0]*foldPrime + s[0]
		k[1] = k[1]*foldPrime + s[1]
	}
	return k
}

// foldPrime is an odd 64-bit multiplier (the golden-ratio constant).
const foldPrime = 0x9E3779B97F4A7C15
