package skills

import (
	"os"
	"reflect"
	"sync"
	"time"

	"github.com/spf13/afero"
)

// maxCacheEntries bounds a Cache; past it, entries the latest discovery did
// not touch are dropped.
const maxCacheEntries = 4096

// Cache keeps parsed SKILL.md files between discoveries and reuses one while
// the file's size and modification time are unchanged. The zero value is
// ready to use; a Cache is safe for concurrent use and must not be copied.
type Cache struct {
	mu      sync.Mutex
	entries map[cacheKey]*cacheEntry
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

// begin starts one discovery and returns its generation and how many skills
// the latest discovery found.
func (c *Cache) begin() (gen uint64, sizeHint int) {
	if c == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	return c.gen, c.found
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

// end finishes discovery gen, which found n skills. Once the cache is over
// its bound it drops the entries gen did not use.
func (c *Cache) end(gen uint64, n int) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.found = n
	if len(c.entries) <= maxCacheEntries {
		return
	}
	for k, e := range c.entries {
		if e.lastUsed < gen {
			delete(c.entries, k)
		}
	}
}
