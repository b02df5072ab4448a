// Package texts is the workspace half of a long-lived engine's snapshot:
// the bootstrap files it has read, kept by file identity, so that a turn
// over unchanged files only stats them.
//
// A file whose FileID (device, inode, size, modification and change
// times) equals the one it was read with is served from here; any other
// is read again from a checked handle, so a name swapped for a symlink or
// a FIFO between two turns is refused by the stat, never read. A file
// changed less than vfs.RacyWindow before it was read is not kept: a
// same-size rewrite within the filesystem's timestamp granularity would
// leave its FileID unchanged (git's "racily clean" rule). This is the
// only use of the clock, and it decides only whether to read again.
//
// A name the workspace folder had no entry for is not stat'ed again while
// the folder's own FileID stays as it was then (where the backend holds
// the folder open: vfs.Workspace.DirID): adding an entry changes the
// folder. The same racily-clean rule applies to the folder.
package texts

import (
	"errors"
	"time"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/internal/memo"
	"github.com/sysprompt/sysprompt/vfs"
)

// Bounds of the cache, in entries and in bytes (what a text holds; keys
// are hashes): past them the least recently used entries are dropped.
const (
	maxEntries = 1024
	maxBytes   = 64 << 20
	entryBytes = 256 // what an entry costs besides what it holds
)

// Cache holds the texts; it is safe for concurrent use.
type Cache struct {
	c *memo.Cache[seen] // by workspace root, file name and what was kept
}

// seen is what the cache knows of a name: the text read from it, or that
// the workspace folder had no entry of that name while its own FileID was
// absentIn.
type seen struct {
	text     bootstrap.Text
	absentIn vfs.FileID
}

func New() *Cache {
	return &Cache{memo.New(maxEntries, maxBytes, func(s seen) int { return entryBytes + s.text.Size() })}
}

// Reader puts the cache in front of ws for bootstrap.Load; k hashes the
// cache's keys.
func (c *Cache) Reader(ws *vfs.Workspace, k *memo.Encoder) Reader { return Reader{ws, c, k} }

// Reader is a bootstrap.TextReader over one workspace.
type Reader struct {
	*vfs.Workspace
	c *Cache
	k *memo.Encoder
}

// ReadPrepared returns the kept text when the file's FileID is the one it
// was read with, and reads it again otherwise. The text kept is
// normalised and counted, and keeps its last cut.
func (r Reader) ReadPrepared(name string, keep vfs.Keep) (bootstrap.Text, error) {
	key := r.key(name, keep)
	s, ok := r.c.c.Get(key)
	dir, held := r.DirID()
	if ok && held && s.absentIn == dir {
		return bootstrap.Text{}, r.Absent(name)
	}
	id, err := r.Stat(name)
	if err != nil {
		if held && errors.Is(err, vfs.ErrNoEntry) && !dir.Racy(time.Now()) {
			r.c.c.Put(key, seen{absentIn: dir})
		}
		return bootstrap.Text{}, err
	}
	if ok && s.absentIn == (vfs.FileID{}) && s.text.ID() == id {
		return s.text, nil
	}
	raw, err := r.Workspace.ReadText(name, keep)
	if err != nil {
		return bootstrap.Text{}, err
	}
	t := bootstrap.Prepare(raw, r.Display(name))
	if !raw.ID.Racy(time.Now()) {
		r.c.c.Put(key, seen{text: t})
	}
	return t, nil
}

// key is the cache's key for name read with keep.
func (r Reader) key(name string, keep vfs.Keep) memo.Key {
	r.k.Reset()
	r.k.String(r.Root())
	r.k.String(name)
	r.k.Int(keep.Whole)
	r.k.Int(keep.Head)
	r.k.Int(keep.Tail)
	r.k.Bool(keep.TrimSpace)
	return r.k.Sum()
}
