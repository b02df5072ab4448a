package memo

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The cache holds at most its entries and about its bytes, dropping the
// least recently used first.
func TestCacheIsBounded(t *testing.T) {
	c := New(100, 1000, func(s string) int { return len(s) })
	for i := range 110 {
		c.Put(Key{uint64(i)}, "x")
	}
	assert.Equal(t, 100, c.lru.Len())
	_, ok := c.Get(Key{0})
	assert.False(t, ok, "the oldest entry is dropped")
	_, ok = c.Get(Key{109})
	assert.True(t, ok)

	c = New(100, 1000, func(s string) int { return len(s) })
	big := string(make([]byte, 250))
	for i := range 8 {
		c.Put(Key{uint64(i)}, big)
		c.Get(Key{0}) // keep the first in use
	}
	assert.LessOrEqual(t, c.bytes, 1000)
	_, ok = c.Get(Key{0})
	assert.True(t, ok, "the entry in use stays")
	_, ok = c.Get(Key{1})
	assert.False(t, ok, "the least recently used goes")

	// A new value under a key replaces the old one, and its size.
	c = New(100, 1000, func(s string) int { return len(s) })
	c.Put(Key{1}, big)
	c.Put(Key{1}, "y")
	v, _ := c.Get(Key{1})
	assert.Equal(t, "y", v)
	assert.Equal(t, 1, c.bytes)
}

// Different values of one type never encode alike: each is written with
// its length or a mark, and a nil list differs from an empty one. (A key
// writes each field with one type, so values of different types need not
// differ.)
func TestEncoderTellsValuesApart(t *testing.T) {
	sum := func(write func(k *Encoder)) Key {
		var k Encoder
		write(&k)
		return k.Sum()
	}
	long := string(make([]byte, longString))
	for _, group := range []map[string]func(k *Encoder){{
		"ab,c": func(k *Encoder) { k.String("ab"); k.String("c") },
		"a,bc": func(k *Encoder) { k.String("a"); k.String("bc") },
	}, {
		"long":        func(k *Encoder) { k.String(long) },
		"long+1":      func(k *Encoder) { k.String(long + "x") },
		"long, other": func(k *Encoder) { k.String("y" + long[1:]) },
	}, {
		"nil list":   func(k *Encoder) { k.Strings(nil) },
		"empty list": func(k *Encoder) { k.Strings([]string{}) },
		"one":        func(k *Encoder) { k.Strings([]string{""}) },
	}, {
		"unset": func(k *Encoder) { k.Allowlist(nil) },
		"none":  func(k *Encoder) { k.Allowlist(&[]string{}) },
	}, {
		"no bool": func(k *Encoder) { k.OptionalBool(nil) },
		"false":   func(k *Encoder) { k.OptionalBool(new(false)) },
		"true":    func(k *Encoder) { k.OptionalBool(new(true)) },
	}, {
		"map":        func(k *Encoder) { SortedMap(k, map[string]int{"a": 1, "b": 2}, k.Int) },
		"map, other": func(k *Encoder) { SortedMap(k, map[string]int{"a": 2, "b": 1}, k.Int) },
		"nil map":    func(k *Encoder) { SortedMap(k, map[string]int(nil), k.Int) },
		"empty map":  func(k *Encoder) { SortedMap(k, map[string]int{}, k.Int) },
	}} {
		keys := map[Key]string{}
		for name, write := range group {
			key := sum(write)
			assert.Empty(t, keys[key], "%s encodes like %s", name, keys[key])
			keys[key] = name
			assert.Equal(t, key, sum(write), "%s: the same value, the same key", name)
		}
	}
}
