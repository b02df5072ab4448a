package engine

import (
	"hash/maphash"
	"sync"
)

// A dynamic section is re-executed only when a field it reads changes.
// New records which view fields each section names (checkTiers); a section
// whose view never escapes runs against a view holding just those fields,
// so its output is a pure function of their values and is memoised on a
// hash of them. A field the walk missed would fail the render with "can't
// evaluate field", never serve a stale text. Sections whose view escapes
// (printed, passed to a function) are executed every time.

// sectionMemoSize bounds how many outputs one section remembers.
const sectionMemoSize = 8

// sectionMemo is one dynamic section's memo: its narrow view and the raw
// outputs (before tidy) for its most recent inputs, newest first.
type sectionMemo struct {
	view viewType
	deps []int // indexes into fullView.fields of the fields read

	mu   sync.Mutex
	n    int
	keys [sectionMemoSize]memoKey
	outs [sectionMemoSize]string
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

func (m *sectionMemo) get(k memoKey) (string, bool) {
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
	return "", false
}

func (m *sectionMemo) put(k memoKey, out string) {
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
	buf    []byte
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
func (h *fieldHashes) field(i int, req *Request, d *derived) memoKey {
	f := fullView.fields[i]
	if !volatileKeys[f.name] {
		return h.stable
	}
	if h.done[i] {
		return h.sums[i]
	}
	k := &keyHasher{buf: h.buf[:0]}
	k.value(f.value(req, d))
	h.buf = k.buf
	h.sums[i], h.done[i] = k.sum(), true
	return h.sums[i]
}

// key is the memo key of a section in this render.
func (h *fieldHashes) key(m *sectionMemo, req *Request, d *derived) memoKey {
	var k memoKey
	for _, i := range m.deps {
		s := h.field(i, req, d)
		// Order matters; fold each field's hash in with a cheap mix.
		k[0] = mix(memoSeeds[0], k[0], s[0])
		k[1] = mix(memoSeeds[1], k[1], s[1])
	}
	return k
}

// mix combines two 64-bit hashes, order-sensitively.
func mix(seed maphash.Seed, a, b uint64) uint64 {
	var buf [16]byte
	for i := range 8 {
		buf[i] = byte(a >> (8 * i))
		buf[8+i] = byte(b >> (8 * i))
	}
	return maphash.Bytes(seed, buf[:])
}
