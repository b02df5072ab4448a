package engine

import (
	"container/list"
	"encoding/binary"
	"hash/maphash"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// The stable tier is a pure function of the stable inputs (the tier
// enforcement guarantees it), so its rendered sections are memoised: a
// next-turn render whose stable inputs are unchanged only executes the
// dynamic sections. The memo is keyed on a 128-bit hash of every stable
// input and bounded as an LRU.

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

// stableMemo is an LRU of stable tiers: per layer, the outcomes of its
// stable sections in manifest order and the stable prefix's sha256.
type stableMemo struct {
	mu    sync.Mutex
	lru   *list.List // of *memoEntry, most recent first
	items map[memoKey]*list.Element
}

type memoEntry struct {
	key    memoKey
	layers []memoLayer
}

type memoLayer struct {
	outcomes []sectionOutcome
	sha256   string
	last     *lastLayer // never nil in a stored entry
}

// lastLayer is the most recent layer assembled over a memoised stable
// tier. When a render's dynamic outcomes equal the ones it was built
// from, the bytes are the same, so its Text is shared (strings are
// immutable) instead of copied again: a turn whose dynamic sections all
// come from their memo allocates no new prompt text.
type lastLayer struct {
	mu      sync.Mutex
	dynamic []sectionOutcome // every dynamic section's outcome, in order
	layer   Layer
}

// reuse returns the last layer if it was built from these dynamic
// outcomes; its Sections are the caller's own copy.
func (l *lastLayer) reuse(dynamic []sectionOutcome) (Layer, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.layer.Text == "" || !slices.Equal(l.dynamic, dynamic) {
		return Layer{}, false
	}
	layer := l.layer
	layer.Sections = slices.Clone(layer.Sections)
	return layer, true
}

func (l *lastLayer) store(dynamic []sectionOutcome, layer Layer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dynamic = append(l.dynamic[:0], dynamic...)
	l.layer = layer
	l.layer.Sections = slices.Clone(layer.Sections)
}

func newStableMemo() *stableMemo {
	return &stableMemo{lru: list.New(), items: map[memoKey]*list.Element{}}
}

func (m *stableMemo) get(k memoKey) ([]memoLayer, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.items[k]
	if !ok {
		return nil, false
	}
	m.lru.MoveToFront(el)
	return el.Value.(*memoEntry).layers, true
}

func (m *stableMemo) put(k memoKey, layers []memoLayer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.items[k]; ok {
		m.lru.MoveToFront(el)
		return
	}
	m.items[k] = m.lru.PushFront(&memoEntry{key: k, layers: layers})
	for m.lru.Len() > memoSize {
		last := m.lru.Back()
		delete(m.items, last.Value.(*memoEntry).key)
		m.lru.Remove(last)
	}
}

// memoSeeds are the two hash seeds of this process; the memo lives in
// memory only, so the seeds need not be stable across runs.
var memoSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// keyHasher encodes values into a buffer that is hashed once at the end
// with two independent 64-bit hashes; one bulk hash is much cheaper than
// thousands of small writes.
type keyHasher struct {
	buf []byte
	// Scratch stacks for visiting map entries in key order; kept with
	// the hasher so warm renders allocate nothing.
	pairs []jsonPair
	keys  []string
}

type jsonPair struct {
	key string
	val any
}

// reset empties the hasher for a new key, keeping its buffers.
func (k *keyHasher) reset() { k.buf = k.buf[:0] }

func (k *keyHasher) sum() memoKey {
	return memoKey{maphash.Bytes(memoSeeds[0], k.buf), maphash.Bytes(memoSeeds[1], k.buf)}
}

func (k *keyHasher) uint(v uint64) { k.buf = binary.LittleEndian.AppendUint64(k.buf, v) }

// longString is the length from which a string is hashed on its own
// rather than copied into the buffer (file contents, catalogs).
const longString = 256

// string writes the length first, so ("ab","c") and ("a","bc") differ.
func (k *keyHasher) string(s string) {
	k.uint(uint64(len(s)))
	if len(s) < longString {
		k.buf = append(k.buf, s...)
		return
	}
	k.uint(maphash.String(memoSeeds[0], s))
	k.uint(maphash.String(memoSeeds[1], s))
}

// mapEntry hashes what was written to the buffer since start (one map
// entry), removes it, and adds its hash to sum. Entries are combined by
// addition, so a map hashes the same in any iteration order; this serves
// the map types that have no sorted fast path.
func (k *keyHasher) mapEntry(start int, sum *memoKey) {
	entry := k.buf[start:]
	sum[0] += maphash.Bytes(memoSeeds[0], entry)
	sum[1] += maphash.Bytes(memoSeeds[1], entry)
	k.buf = k.buf[:start]
}

// sortedMap writes a tag, m's size and its entries in key order, the
// keys sorted on the keys stack (nested calls push above and pop back).
func sortedMap[V any](k *keyHasher, tag uint64, m map[string]V, value func(V)) {
	k.uint(tag)
	if m == nil {
		k.uint(math.MaxUint64) // nil and empty print differently (mustToJson)
		return
	}
	k.uint(uint64(len(m)))
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

func (k *keyHasher) bool(b bool) {
	if b {
		k.uint(1)
	} else {
		k.uint(0)
	}
}

// jsonish writes the values decoded JSON and TOML are made of, and string
// maps, without reflection; ok is false for other types. nil and empty
// differ: templates can tell them apart (mustToJson prints null or []).
func (k *keyHasher) jsonish(x any) bool {
	switch x := x.(type) {
	case nil:
		k.uint(0)
	case string:
		k.uint(1)
		k.string(x)
	case bool:
		k.uint(2)
		if x {
			k.uint(1)
		} else {
			k.uint(0)
		}
	case float64:
		k.uint(3)
		k.uint(math.Float64bits(x))
	case int64:
		k.uint(4)
		k.uint(uint64(x))
	case []any:
		k.uint(5)
		if x == nil {
			k.uint(math.MaxUint64)
			break
		}
		k.uint(uint64(len(x)))
		for _, e := range x {
			k.any(e)
		}
	case map[string]any:
		k.uint(6)
		if x == nil {
			k.uint(math.MaxUint64)
			break
		}
		k.uint(uint64(len(x)))
		if len(x) <= smallMap {
			k.smallMap(x)
			break
		}
		// Entries in key order, gathered on the pairs stack: nested maps
		// push above this one's entries and pop back to them.
		base := len(k.pairs)
		for key, v := range x {
			k.pairs = append(k.pairs, jsonPair{key, v})
		}
		slices.SortFunc(k.pairs[base:], func(a, b jsonPair) int { return strings.Compare(a.key, b.key) })
		for i := base; i < base+len(x); i++ {
			k.pair(k.pairs[i])
		}
		clear(k.pairs[base:]) // drop references to the caller's values
		k.pairs = k.pairs[:base]
	case map[string]string:
		sortedMap(k, 7, x, k.string)
	case map[string]bool:
		sortedMap(k, 8, x, k.bool)
	default:
		return false
	}
	return true
}

// smallMap is the size up to which a map's entries are sorted in a stack
// array; schemas are mostly maps of one to four entries.
const smallMap = 8

// smallMap writes a map of at most smallMap entries in key order.
func (k *keyHasher) smallMap(x map[string]any) {
	var local [smallMap]jsonPair
	n := 0
	for key, v := range x {
		p := jsonPair{key, v}
		j := n
		for ; j > 0 && local[j-1].key > key; j-- {
			local[j] = local[j-1]
		}
		local[j] = p
		n++
	}
	for i := range n {
		k.pair(local[i])
	}
}

func (k *keyHasher) pair(p jsonPair) {
	k.string(p.key)
	k.any(p.val)
}

// any writes a value held in an interface: a JSON-like one directly,
// another with its dynamic type first, so that values of different types
// never encode alike.
func (k *keyHasher) any(v any) {
	if k.jsonish(v) {
		return
	}
	k.uint(9)
	k.string(reflect.TypeOf(v).String())
	k.value(reflect.ValueOf(v))
}

// value writes any value of the kinds requests, settings, files and
// skills are made of; maps hash alike in any iteration order.
func (k *keyHasher) value(v reflect.Value) {
	if v.IsValid() && (v.Kind() == reflect.Map || v.Kind() == reflect.Interface) && v.CanInterface() {
		if k.jsonish(v.Interface()) {
			return
		}
	}
	switch v.Kind() {
	case reflect.Invalid:
		k.uint(0)
	case reflect.String:
		k.string(v.String())
	case reflect.Bool:
		if v.Bool() {
			k.uint(1)
		} else {
			k.uint(0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		k.uint(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		k.uint(v.Uint())
	case reflect.Float32, reflect.Float64:
		k.uint(math.Float64bits(v.Float()))
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			k.uint(0)
			return
		}
		k.uint(1)
		// The dynamic type matters for interfaces: 1 and "1" differ.
		if v.Kind() == reflect.Interface {
			k.string(v.Elem().Type().String())
		}
		k.value(v.Elem())
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			k.uint(math.MaxUint64)
			return
		}
		k.uint(uint64(v.Len()))
		for i := range v.Len() {
			k.value(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			k.uint(math.MaxUint64)
			return
		}
		k.uint(uint64(v.Len()))
		var sum memoKey
		for it := v.MapRange(); it.Next(); {
			start := len(k.buf)
			k.value(it.Key())
			k.value(it.Value())
			k.mapEntry(start, &sum)
		}
		k.uint(sum[0])
		k.uint(sum[1])
	case reflect.Struct:
		// Exported and unexported fields alike: time.Time and friends
		// carry their state in unexported fields.
		for i := range v.NumField() {
			k.value(v.Field(i))
		}
	default:
		// Funcs and channels never appear in stable inputs; mark them so a
		// change of kind still changes the key.
		k.string(v.Kind().String())
	}
}

// stableKey hashes everything the stable sections can see: the stable
// request fields, the harness and mode, and the derived stable values.
// ToolLines and Pack are left out: they are functions of the request's
// tools and of the pack, which the key already covers. filesHash, when
// not zero, stands for Files (see filesHashes). k is the render's hasher.
func stableKey(req *Request, harness string, d *derived, filesHash memoKey, k *keyHasher) memoKey {
	k.reset()
	k.string(harness)
	rv := reflect.ValueOf(req).Elem()
	for _, f := range requestFields {
		if f.tier != TierStable {
			continue
		}
		k.string(f.key)
		if f.key == "Tools" {
			// What templates see of them (ToolInfo): not the schemas.
			if req.Tools == nil {
				k.uint(math.MaxUint64) // nil and empty print differently
				continue
			}
			k.uint(uint64(len(req.Tools)))
			for _, t := range req.Tools {
				k.string(t.Name)
				k.string(t.Description)
			}
			continue
		}
		k.value(rv.Field(f.index))
	}
	dv := reflect.ValueOf(d).Elem()
	for _, name := range derivedStable {
		switch {
		case name == keyToolLines || name == keyPack:
			continue
		case name == keyFiles && filesHash != (memoKey{}):
			k.string(name)
			k.uint(filesHash[0])
			k.uint(filesHash[1])
			continue
		}
		k.string(name)
		k.value(dv.Field(derivedIndex[name]))
	}
	return k.sum()
}

// filesHashes remembers the hash of the stable files of recent bootstrap
// results by their Version, so an unchanged workspace is not hashed again
// on every render. It keys on the files' content, not the Version: an
// edit to HEARTBEAT.md makes a new Version with the same stable files,
// and the stable tier must still be reused.
type filesHashes struct {
	mu      sync.Mutex
	entries [8]struct {
		version uint64
		sum     memoKey
	}
	next int
}

// get returns the hash of files, the stable files of the bootstrap result
// with that version (0: not memoised, hashed every time).
func (h *filesHashes) get(version uint64, files FileList, k *keyHasher) memoKey {
	if version != 0 {
		h.mu.Lock()
		for _, e := range h.entries {
			if e.version == version {
				h.mu.Unlock()
				return e.sum
			}
		}
		h.mu.Unlock()
	}
	k.reset()
	k.value(reflect.ValueOf(files))
	sum := k.sum()
	if version != 0 {
		h.mu.Lock()
		h.entries[h.next].version, h.entries[h.next].sum = version, sum
		h.next = (h.next + 1) % len(h.entries)
		h.mu.Unlock()
	}
	return sum
}
