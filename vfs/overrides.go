package vfs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/afero"
)

// MaxPackFiles bounds the files Overrides lists from a user pack, and
// maxCompared the bytes it reads of each.
const (
	MaxPackFiles = 10000
	maxCompared  = 1 << 20
)

// Overrides lists the files of the user pack that Pack lays over builtin,
// in sorted order: replaced are those builtin has too, with other bytes
// (an ejected copy left as it is changes nothing), added the others. Only
// the pack's own folders, sections/ and templates/, are walked.
func Overrides(builtin fs.FS, user afero.Fs) (replaced, added []string, err error) {
	errTooMany := fmt.Errorf("the pack has more than %d files", MaxPackFiles)
	n, userFS := 0, afero.NewIOFS(user)
	for _, dir := range []string{"sections", "templates"} {
		err := fs.WalkDir(userFS, dir, func(name string, d fs.DirEntry, err error) error {
			switch {
			case errors.Is(err, fs.ErrNotExist) && name == dir:
				return fs.SkipDir
			case err != nil:
				return err
			case !d.Type().IsRegular():
				return nil
			}
			if n++; n > MaxPackFiles {
				return errTooMany
			}
			old, err := ReadFSFile(builtin, name, maxCompared)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				added = append(added, name)
				return nil
			case err != nil:
				return err
			}
			if mine, err := ReadFSFile(userFS, name, maxCompared); err != nil || !bytes.Equal(mine, old) {
				replaced = append(replaced, name) // one too large to compare differs
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return replaced, added, nil
}
