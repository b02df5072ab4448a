package skills

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/afero"
)

// A warm Discover skips the walk when nothing it depends on has changed. The
// walk's result is a function of the roots, the home directory, what it saw
// of the filesystem and the SKILL.md contents (trusted unchanged while size
// and modification time are, as the parse cache already does). So the walk
// records every observation it acts on; a later Discover with the same roots
// checks each again, and when all still hold, the walk would take exactly the
// same steps and its result is reused. Directory modification times are
// never trusted: not every filesystem updates them when entries change.

// fileKind is how the walk classifies an lstat result.
type fileKind uint8

const (
	kindMissing fileKind = iota
	kindDir
	kindRegular
	kindSymlink
	kindOther
)

func kindOf(info os.FileInfo) fileKind {
	mode := info.Mode()
	switch {
	case mode&fs.ModeSymlink != 0:
		return kindSymlink
	case mode.IsRegular():
		return kindRegular
	case info.IsDir():
		return kindDir
	}
	return kindOther
}

// observations are what one walk saw, per root (an index into the roots in
// precedence order).
type observations struct {
	roots []rootSeen
	dirs  []dirSeen
	files []fileSeen
}

type rootSeen struct {
	root int
	kind fileKind // of the root's Dir, through Stat
}

// dirSeen is one directory listing, reduced to the entries the walk acts
// on: names not starting with ".", that are folders or symlinks, sorted.
// Plain files and hidden entries are ignored by the walk, so they may come
// and go without invalidating the memo.
type dirSeen struct {
	root    int
	path    string
	entries []entrySeen
}

type entrySeen struct {
	name    string
	symlink bool
}

// fileSeen is one lstat of a SKILL.md path, including ones that found
// nothing: such a folder was searched deeper instead.
type fileSeen struct {
	root    int
	path    string
	kind    fileKind
	size    int64     // regular files only
	modTime time.Time // regular files only
}

// discoveryMemo is the result of one complete walk and what it depended
// on. It is immutable once stored, apart from lastUsed (guarded by the
// Cache's mutex).
type discoveryMemo struct {
	home     string
	roots    []rootKey
	seen     observations
	found    Found
	lastUsed uint64
}

// rootKey identifies a root the way the parse cache does.
type rootKey struct {
	fs                   uintptr
	source               Source
	dir, display, plugin string
}

func rootKeys(roots []Root) []rootKey {
	keys := make([]rootKey, len(roots))
	for i, r := range roots {
		keys[i] = rootKey{fs: fsIdentity(r.FS), source: r.Source, dir: r.Dir, display: r.Display, plugin: r.Plugin}
	}
	return keys
}

func (m *discoveryMemo) matches(roots []Root, home string) bool {
	if m.home != home || len(m.roots) != len(roots) {
		return false
	}
	for i, r := range roots {
		k := m.roots[i]
		if k.source != r.Source || k.dir != r.Dir || k.display != r.Display || k.plugin != r.Plugin || k.fs != fsIdentity(r.FS) {
			return false
		}
	}
	return true
}

// stillHolds reports whether every observation of the memo's walk holds
// again on roots (the same roots, in precedence order).
func (m *discoveryMemo) stillHolds(ctx context.Context, roots []Root) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	for _, r := range m.seen.roots {
		info, err := roots[r.root].FS.Stat(roots[r.root].Dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if r.kind != kindMissing {
				return false, nil
			}
		case err != nil:
			return false, nil
		case (r.kind == kindDir) != info.IsDir():
			return false, nil
		}
	}
	for i := range m.seen.files {
		if !m.seen.files[i].holds(roots[m.seen.files[i].root].FS) {
			return false, nil
		}
	}
	for i := range m.seen.dirs {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if !m.seen.dirs[i].holds(roots[m.seen.dirs[i].root].FS) {
			return false, nil
		}
	}
	return true, nil
}

func (f *fileSeen) holds(fsys afero.Fs) bool {
	info, err := lstat(fsys, f.path)
	if err != nil {
		return f.kind == kindMissing && errors.Is(err, fs.ErrNotExist)
	}
	kind := kindOf(info)
	if kind != f.kind {
		return false
	}
	return kind != kindRegular || info.Size() == f.size && info.ModTime().Equal(f.modTime)
}

func (d *dirSeen) holds(fsys afero.Fs) bool {
	f, err := fsys.Open(d.path)
	if err != nil {
		return false
	}
	defer f.Close()
	entries, err := f.Readdir(-1)
	if err != nil {
		return false
	}
	// Listings usually come in the same order each time (sorted, on
	// MemMapFs); only a different order pays for a sort.
	if d.sameEntries(entries) {
		return true
	}
	slices.SortFunc(entries, func(a, b os.FileInfo) int { return strings.Compare(a.Name(), b.Name()) })
	return d.sameEntries(entries)
}

// sameEntries compares a listing with the recorded one, in order.
func (d *dirSeen) sameEntries(entries []os.FileInfo) bool {
	n := 0
	for _, e := range entries {
		seen, ok := walkedEntry(e)
		if !ok {
			continue
		}
		if n == len(d.entries) || d.entries[n] != seen {
			return false
		}
		n++
	}
	return n == len(d.entries)
}

// walkedEntry reduces a listing entry to what the walk acts on; ok is false
// for entries the walk ignores.
func walkedEntry(e os.FileInfo) (seen entrySeen, ok bool) {
	name := e.Name()
	if strings.HasPrefix(name, ".") {
		return entrySeen{}, false
	}
	if e.Mode()&fs.ModeSymlink != 0 {
		return entrySeen{name: name, symlink: true}, true
	}
	if !e.IsDir() {
		return entrySeen{}, false
	}
	return entrySeen{name: name}, true
}

// copyFound gives each caller its own slices; the Skills share their
// read-only Meta slices.
func copyFound(f Found) Found {
	return Found{Skills: slices.Clone(f.Skills), Skipped: slices.Clone(f.Skipped), Problems: slices.Clone(f.Problems)}
}
