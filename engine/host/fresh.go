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
// they were, by the identity of every file in them (device, inode, size,
// modification and change times, as the engine checks workspace files):
// what a long-lived process built from them, a compiled pack or a parsed
// config, is good while Changed says no. It is checked when used, so it
// is exact on every OS, with no watch and no timer. A Sources is not safe
// for concurrent use.
type Sources struct {
	paths []string
	stamp memo.Key
	racy  bool // a file changed too shortly before the stamp to trust it
}

// maxSourceEntries bounds the files and folders one stamp looks at.
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
	s.stamp, s.racy = s.take()
	return s
}

// Changed reports whether anything under the paths changed since the
// last stamp (or might have, where a file changed within vfs.RacyWindow
// of it), and stamps them again.
func (s *Sources) Changed() bool {
	stamp, racy := s.take()
	changed := stamp != s.stamp || s.racy
	s.stamp, s.racy = stamp, racy
	return changed
}

// take hashes the name and FileID of every entry under the paths, in
// walk order, following symlinks as reads of them would.
func (s *Sources) take() (memo.Key, bool) {
	var k memo.Encoder
	now, racy, seen := time.Now(), false, 0
	for _, root := range s.paths {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if seen++; seen > maxSourceEntries {
				return filepath.SkipAll
			}
			k.String(p)
			fi, statErr := os.Stat(p)
			if err != nil || statErr != nil {
				k.String("missing")
				return nil
			}
			id := vfs.IDOf(fi)
			k.Uint(id.Dev)
			k.Uint(id.Ino)
			k.Int(int(id.Size))
			k.Int(int(id.ModTime))
			k.Int(int(id.ChangeTime))
			k.Uint(uint64(id.Mode))
			racy = racy || id.Racy(now)
			return nil
		})
	}
	return k.Sum(), racy
}
