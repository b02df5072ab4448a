package host

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/sysprompt/sysprompt/engine/internal/memo"
	"github.com/sysprompt/sysprompt/vfs"
)

// Sources says whether files and folder trees on the real disk are as
// they were, by the identity of every file and folder in them (device,
// inode, size, modification and change times, as the engine checks
// workspace files): what a long-lived process built from them, a
// compiled pack or a parsed config, is good while Changed says no. It is
// checked when used, so it is exact on every OS, with no watch and no
// timer. A Sources is not safe for concurrent use.
//
// On Unix a Sources holds a descriptor for each file and folder under a
// folder path, closed at the next walk or when the Sources is collected:
// stating through it costs half what a stat by path does, which walks
// every folder on the way, and this check runs on every render serve
// request. It is as exact: a descriptor sees its own file's changes, and
// a name removed, added or replaced changes its folder, which is itself
// held, up to the paths given, which are stated by path, as are
// symlinks, whose targets may change anywhere; a path that is a symlink
// to a folder is walked at the folder.
type Sources struct {
	paths []string
	// entries are every file and folder under paths at the last walk.
	// A name added, removed or renamed changes its folder's identity, so
	// stating these finds any change; only then is the tree walked again.
	entries []sourceEntry
	stamp   memo.Key
	racy    bool // an entry changed too shortly before the stamp to trust it
	// full says the walk stopped at maxSourceEntries: an edit past them
	// cannot be seen, so every check is a change.
	full bool
}

// sourceEntry is a file or folder, and the descriptor it is stated
// through (nil: by path).
type sourceEntry struct {
	path string
	f    *os.File
}

// maxSourceEntries bounds the files and folders one Sources looks at,
// and maxHeldSources how many of them it holds open.
const (
	maxSourceEntries = 8192
	maxHeldSources   = 512
)

// NewSources stamps paths (files, or folders taken with everything
// under them; "" is left out). Stamp before building from them, so that
// an edit made while building shows as a change.
func NewSources(paths ...string) *Sources {
	s := &Sources{}
	for _, p := range paths {
		if p != "" {
			s.paths = append(s.paths, p)
		}
	}
	s.walk()
	return s
}

// Changed reports whether anything under the paths changed since the
// last stamp (or might have, where an entry changed within
// vfs.RacyWindow of it, or where there are more than maxSourceEntries
// files and folders to look at), and stamps them again.
func (s *Sources) Changed() bool {
	if s.full {
		s.walk()
		return true
	}
	stamp, racy := s.take()
	if stamp == s.stamp && !s.racy {
		s.racy = racy
		return false
	}
	s.walk()
	return true
}

// walk lists the entries again and stamps them.
func (s *Sources) walk() {
	for _, e := range s.entries {
		if e.f != nil {
			e.f.Close()
		}
	}
	s.entries = s.entries[:0]
	s.full = false
	held := 0
	for _, root := range s.paths {
		start := root
		switch {
		case linkToFolder(root):
			start = root + string(filepath.Separator) // the walk starts at the target
		case slices.ContainsFunc(s.entries, func(e sourceEntry) bool { return e.path == root }):
			continue // walked already, under an earlier path (templates/overlays under templates)
		}
		filepath.WalkDir(start, func(p string, d fs.DirEntry, _ error) error {
			if len(s.entries) >= maxSourceEntries {
				s.full = true
				return filepath.SkipAll
			}
			e := sourceEntry{path: p}
			if p != start && d != nil && (d.IsDir() || d.Type().IsRegular()) && held < maxHeldSources {
				if e.f = hold(p); e.f != nil {
					held++
				}
			}
			s.entries = append(s.entries, e)
			return nil
		})
	}
	s.stamp, s.racy = s.take()
}

// linkToFolder reports whether p is a symlink to a folder. A path given
// as one (a pack's sections/ kept elsewhere) is walked at the folder, as
// the pack is read through it; a symlink below is stated, not walked, as
// the pack reads none as a folder.
func linkToFolder(p string) bool {
	lfi, err := os.Lstat(p)
	if err != nil || lfi.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// take hashes the FileID of every entry, following symlinks as reads of
// them would; a missing one hashes as missing.
func (s *Sources) take() (memo.Key, bool) {
	var k memo.Encoder
	now, racy := time.Now(), false
	for _, e := range s.entries {
		var fi fs.FileInfo
		var err error
		if e.f != nil {
			fi, err = e.f.Stat()
		} else {
			fi, err = os.Stat(e.path)
		}
		if err != nil {
			k.Bool(false)
			continue
		}
		id := vfs.IDOf(fi)
		k.Bool(true)
		k.Uint(id.Dev)
		k.Uint(id.Ino)
		k.Int(int(id.Size))
		k.Int(int(id.ModTime))
		k.Int(int(id.ChangeTime))
		k.Uint(uint64(id.Mode))
		racy = racy || id.Racy(now)
	}
	return k.Sum(), racy
}
