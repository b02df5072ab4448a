package vfs

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/afero"
)

// MaxPackFiles bounds the files Overrides lists from a user pack.
const MaxPackFiles = 10000

// Overrides lists the files of the user pack that Pack lays over builtin,
// in sorted order: replaced are those builtin has too, added the others.
// Only the pack's own folders, sections/ and templates/, are walked.
func Overrides(builtin fs.FS, user afero.Fs) (replaced, added []string, err error) {
	errTooMany := fmt.Errorf("the pack has more than %d files", MaxPackFiles)
	n := 0
	for _, dir := range []string{"sections", "templates"} {
		err := fs.WalkDir(afero.NewIOFS(user), dir, func(name string, d fs.DirEntry, err error) error {
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
			if _, err := fs.Stat(builtin, name); err == nil {
				replaced = append(replaced, name)
			} else {
				added = append(added, name)
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return replaced, added, nil
}
