package skills

import (
	"os"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/spf13/afero"
)

// Bounds of a Cache. Past maxCacheEntries, parsed files the latest
// discovery did not touch are dropped; past maxMemos, the least recently
// used discovery result is.
const (
	maxCacheEntries = 4096
	maxMemos        = 16
)

// Cache keeps parsed SKILL.md files between discoveries and reuses one while
// the file's size and modification time are unchanged. It also keeps the
// latest result for each set of roots and returns it again while the
// folders it listed still list the same and every SKILL.md still has the
// same size and modification time. The zero value is ready to use; a Cache
// is safe for concurrent use and must not be copied.
type Cache struct {
	mu      sync.Mutex
	entries map[cacheKey]*cacheEntry
	memos   []*discoveryMemo
	gen     uint64
	found   int // skills in the latest discovery: the next one's size hint
}

type cacheKey struct {
	fs      uintptr // identity of a pointer-typed FS; 0 otherwise
	source  Source
	dir     string
	display string
	path    string
}

type cacheEntry struct {
	size     int64
	modTime  time.Time
	parsed   parsedFile
	lastUsed uint64
}

// fsIdentity tells apart two filesystems that hold the same paths. Only
// pointer-typed filesystems have one; the display path covers the rest.
func fsIdentity(fsys afero.Fs) uintptr {
	if v := reflect.ValueOf(fsys); v.Kind() == reflect.Pointer {
		return v.Pointer()
	}
	return 0
}

// begin starts one discovery of roots (in precedence order) and returns its
// generation, the latest result for the same roots and home if there is
// one, and how many skills the latest discovery found.
func (c *Cache) begin(roots []Root, home string) (gen uint64, memo *discoveryMemo, sizeHint int) {
	if c == nil {
		return 0, nil, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for _, m := range c.memos {
		if m.matches(roots, home) {
			m.lastUsed = c.gen
			return c.gen, m, c.found
		}
	}
	return c.gen, nil, c.found
}

func (c *Cache) get(k cacheKey, info os.FileInfo, gen uint64) (parsedFile, bool) {
	if c == nil {
		return parsedFile{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok || e.size != info.Size() || !e.modTime.Equal(info.ModTime()) {
		return parsedFile{}, false
	}
	e.lastUsed = max(e.lastUsed, gen)
	return e.parsed, true
}

func (c *Cache) put(k cacheKey, info os.FileInfo, p parsedFile, gen uint64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[cacheKey]*cacheEntry{}
	}
	c.entries[k] = &cacheEntry{size: info.Size(), modTime: info.ModTime(), parsed: p, lastUsed: gen}
}

// end finishes discovery gen of roots and home, which walked and found n
// skills. It stores memo, or drops the earlier result for these roots when
// memo is nil (the walk met errors, so it cannot be replayed). Once the
// cache is over its bound it drops the entries gen did not use.
func (c *Cache) end(gen uint64, n int, roots []Root, home string, memo *discoveryMemo) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.found = n
	c.memos = slices.DeleteFunc(c.memos, func(m *discoveryMemo) bool { return m.matches(roots, home) })
	if memo != nil {
		memo.lastUsed = gen
		if len(c.memos) == maxMemos {
			oldest := 0
			for i, m := range c.memos {
				if m.lastUsed < c.memos[oldest].lastUsed {
					oldest = i
				}
			}
			c.memos = slices.Delete(c.memos, oldest, oldest+1)
		}
		c.memos = append(c.memos, memo)
	}
	if len(c.entries) <= maxCacheEntries {
		return
	}
	for k, e := range c.entries {
		if e.lastUsed < gen {
			delete(c.entries, k)
		}
	}
}
