package bootstrap

import (
	"sync"
	"time"

	"github.com/sysprompt/sysprompt/vfs"
)

// Cache keeps file reads between Load calls, so repeated renders of an
// unchanged workspace do not read it again. An entry is reused only while the
// file's size and modification time are unchanged and the same amount of it
// was asked for; an edit that keeps both (same size within the disk's time
// resolution) goes unnoticed until the next change. Entries are keyed by
// the file's path inside the workspace's filesystem, so share a Cache only
// between Loads over the same filesystem (and with Markers that print the
// same: a Cache also remembers whole results, see memo.go). A Cache is
// safe for concurrent use; the zero value is empty and ready.
type Cache struct {
	mu      sync.Mutex
	entries map[string]cacheEntry // by resolved workspace path
	results []*memoResult         // remembered Loads, newest first (see memo.go)
}

type cacheEntry struct {
	size    int64
	modTime time.Time
	keep    vfs.Keep
	text    text
}

// NewCache returns an empty Cache.
func NewCache() *Cache { return &Cache{entries: make(map[string]cacheEntry)} }

// get returns the cached read of path if it is still current.
func (c *Cache) get(path string, size int64, modTime time.Time, keep vfs.Keep) (text, bool) {
	if c == nil {
		return text{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[path]
	if !ok || e.size != size || !e.modTime.Equal(modTime) || e.keep != keep {
		return text{}, false
	}
	return e.text, true
}

// put stores a read. One entry per path keeps the cache as small as the
// workspace's bootstrap set.
func (c *Cache) put(path string, keep vfs.Keep, t text) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = make(map[string]cacheEntry)
	}
	c.entries[path] = cacheEntry{size: t.size, modTime: t.modTime, keep: keep, text: t}
}
