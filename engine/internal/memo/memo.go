// Package memo holds the engine's output cache mechanics: a key Encoder,
// which writes values field by field and hashes them to 128 bits, and
// Cache, a least-recently-used map bounded in entries and in bytes. What
// is keyed, and on what, is the engine's business (engine/memo.go).
package memo

import (
	"container/list"
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"
	"sync"
)

// Key is a value's 128-bit hash.
type Key [2]uint64

// seeds are the two hash seeds of this process; keys live in memory
// only, so the seeds need not be stable across runs.
var seeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// Encoder writes values into a buffer that is hashed once at the end
// with two independent 64-bit hashes. Every value is written with its
// length or a presence mark first, so different inputs never encode
// alike. Reuse one with Reset.
type Encoder struct {
	buf  []byte
	keys []string // scratch for sorting map keys
}

func (k *Encoder) Reset() { k.buf = k.buf[:0] }

// Bytes is what has been written since the last Reset.
func (k *Encoder) Bytes() []byte { return k.buf }

func (k *Encoder) Sum() Key {
	return Key{maphash.Bytes(seeds[0], k.buf), maphash.Bytes(seeds[1], k.buf)}
}

func (k *Encoder) Uint(v uint64) { k.buf = binary.LittleEndian.AppendUint64(k.buf, v) }
func (k *Encoder) Int(v int)     { k.Uint(uint64(v)) }

func (k *Encoder) Bool(b bool) {
	if b {
		k.buf = append(k.buf, 1)
	} else {
		k.buf = append(k.buf, 0)
	}
}

// OptionalBool writes an unset, false or true value as three distinct
// bytes.
func (k *Encoder) OptionalBool(b *bool) {
	if b == nil {
		k.buf = append(k.buf, 2)
		return
	}
	k.Bool(*b)
}

// longString is the length from which a string is hashed on its own
// rather than copied into the buffer (file contents, prefixes). One
// 64-bit hash with the process's secret seed, beside the length, is
// enough to tell two such texts apart: hashing every file twice was a
// tenth of a warm turn.
const longString = 256

// String writes the length first, so ("ab","c") and ("a","bc") differ.
func (k *Encoder) String(s string) {
	k.Uint(uint64(len(s)))
	if len(s) < longString {
		k.buf = append(k.buf, s...)
		return
	}
	k.Uint(maphash.String(seeds[0], s))
}

// nilMark stands for a nil list or map, which templates can tell from an
// empty one (toJson prints null or []).
const nilMark = math.MaxUint64

// Nil writes the mark of a nil list or map.
func (k *Encoder) Nil() { k.Uint(nilMark) }

func (k *Encoder) Strings(list []string) {
	if list == nil {
		k.Uint(nilMark)
		return
	}
	k.Int(len(list))
	for _, s := range list {
		k.String(s)
	}
}

// Allowlist writes an optional list: unset and empty differ.
func (k *Encoder) Allowlist(list *[]string) {
	if list == nil {
		k.Uint(nilMark)
		return
	}
	k.Uint(0)
	k.Strings(*list)
}

// Keys is the key of a thing made of the things keyed by list; kind and
// name tell it from other keys.
func (k *Encoder) Keys(kind, name string, list []Key) Key {
	k.Reset()
	k.String(kind)
	k.String(name)
	for _, key := range list {
		k.Uint(key[0])
		k.Uint(key[1])
	}
	return k.Sum()
}

// SortedMap writes m's size and its entries in key order.
func SortedMap[V any](k *Encoder, m map[string]V, value func(V)) {
	if m == nil {
		k.Uint(nilMark)
		return
	}
	k.Int(len(m))
	base := len(k.keys)
	for key := range m {
		k.keys = append(k.keys, key)
	}
	slices.Sort(k.keys[base:])
	for i := base; i < base+len(m); i++ {
		k.String(k.keys[i])
		value(m[k.keys[i]])
	}
	k.keys = k.keys[:base]
}

// Cache is an LRU of values by Key, bounded in entries and in the bytes
// its size function says they take. It is safe for concurrent use;
// values are stored and handed out as they are, so they must not change.
type Cache[V any] struct {
	mu         sync.Mutex
	lru        *list.List // of *entry[V], most recent first
	items      map[Key]*list.Element
	bytes      int
	maxEntries int
	maxBytes   int
	size       func(V) int
}

type entry[V any] struct {
	key   Key
	value V
}

// New returns an empty cache of at most maxEntries entries and about
// maxBytes bytes.
func New[V any](maxEntries, maxBytes int, size func(V) int) *Cache[V] {
	return &Cache[V]{lru: list.New(), items: map[Key]*list.Element{}, maxEntries: maxEntries, maxBytes: maxBytes, size: size}
}

func (c *Cache[V]) Get(k Key) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*entry[V]).value, true
}

// Put keeps v under k, in place of any value k had, dropping the least
// recently used entries past either bound.
func (c *Cache[V]) Put(k Key, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		e := el.Value.(*entry[V])
		c.bytes -= c.size(e.value)
		e.value = v
		c.lru.MoveToFront(el)
	} else {
		c.items[k] = c.lru.PushFront(&entry[V]{key: k, value: v})
	}
	c.bytes += c.size(v)
	for c.lru.Len() > c.maxEntries || c.bytes > c.maxBytes {
		last := c.lru.Back()
		e := last.Value.(*entry[V])
		delete(c.items, e.key)
		c.bytes -= c.size(e.value)
		c.lru.Remove(last)
	}
}
