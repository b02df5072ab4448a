package main

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/afero"

	"github.com/sysprompt/sysprompt/vfs"
)

// onlyRegular ends every refusal of an -o target.
const onlyRegular = "render writes only a regular file or a new name"

// writeAtomic is every command's -o: it writes data to a temporary file
// beside the target and renames it into place, so a reader never sees a
// half-written output. A new file gets the usual 0666 less the umask; a
// replaced one keeps its mode; a symlink is followed, so the file it
// points to is the one replaced, in its own directory, and the link stays.
func writeAtomic(name string, data []byte) error {
	target, err := outputTarget(name)
	if err != nil {
		return err
	}
	if err := vfs.WriteFileAtomic(afero.NewOsFs(), target, data, 0o666); err != nil {
		var pe *iofs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // it names target; the user gave name
		}
		return fmt.Errorf("-o %s: %w", name, err)
	}
	return nil
}

// outputTarget returns the path -o name replaces: name, or the regular
// file a symlink leads to. The rename would put a regular file in place
// of a device, pipe, socket or directory rather than write to it, and in
// place of a symlink that leads nowhere, so those are refused; so is a
// file without any write permission, which a plain write would not touch
// (root included: the mode says the file is to be kept).
func outputTarget(name string) (string, error) {
	link, err := os.Lstat(name)
	if err != nil {
		return name, nil // a new name; a missing parent is the write's to report
	}
	what, target := "", name // "-o out.md: is read-only", or "-o link: its target … is"
	if link.Mode()&os.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(name); err != nil {
			target, _ = os.Readlink(name) // /proc/self/fd/N leads to "pipe:[…]"
		}
		what = "its target " + target + " "
	}
	// Stat, not the resolved path: the kernel follows /proc's fd links.
	info, err := os.Stat(name)
	var pe *iofs.PathError
	switch {
	case err != nil && errors.As(err, &pe):
		return "", fmt.Errorf("-o %s: its target %s: %w; %s", name, target, pe.Err, onlyRegular)
	case err != nil:
		return "", fmt.Errorf("-o %s: %w", name, err)
	case !info.Mode().IsRegular():
		if what != "" {
			what += "is "
		}
		return "", fmt.Errorf("-o %s: %snot a regular file (%s); %s", name, what, vfs.KindName(info.Mode()), onlyRegular)
	case info.Mode().Perm()&0o222 == 0:
		return "", fmt.Errorf("-o %s: %sis read-only (mode %04o); not replacing it", name, what, info.Mode().Perm())
	}
	return target, nil
}
