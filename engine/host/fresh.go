package host

import (
	"io/fs"
	"os"
	"path/filepath"
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
type Sources struct {
	paths []string
	// entries are every file and folder under paths at the last walk.
	// A name added, removed or renamed changes its folder's identity, so
	// stating these finds any change; only then is the tree walked again.
	entries []string
	stamp   memo.Key
	racy    bool // an entry changed too shortly before the stamp to trust it
}

// maxSourceEntries bounds the files and folders one Sources looks at.
const maxSourceEntries = 8192

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
// vfs.RacyWindow of it), and stamps them again.
func (s *Sources) Changed() bool {
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
	s.entries = s.entries[:0]
	for _, root := range s.paths {
		filepath.WalkDir(root, func(p string, _ fs.DirEntry, _ error) error {
			if len(s.entries) >= maxSourceEntries {
				return filepath.SkipAll
			}
			s.entries = append(s.entries, p)
			return nil
		})
	}
	s.stamp, s.racy = s.take()
}

// take hashes the FileID of every entry, following symlinks as reads of
// them would; a missing one hashes as missing.
func (s *Sources) take() (memo.Key, bool) {
	var k memo.Encoder
	now, racy := time.Now(), false
	for _, p := range s.entries {
		fi, err := os.Stat(p)
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
