package vfs

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/spf13/afero"
)

// WriteFileAtomic replaces the file name on fsys with data, so that a
// reader sees the old content or the new, never a mix, and a failed write
// leaves name as it was.
//
// data goes to a new hidden file beside name (".<base>.<random>.tmp", in
// the same directory so that the rename stays on one filesystem), which
// has name's permission bits if name is a regular file, else perm less the
// umask, as [os.WriteFile] creates a file. It is synced to disk unless fsys
// does not support that (so a crash leaves the old file or the new one,
// never an empty one), closed, and renamed over name. On any error it is
// removed.
//
// name itself is replaced: a symlink there becomes a regular file (resolve
// it first to write through it), and a directory is refused with
// [syscall.EISDIR]. An error is an *[fs.PathError] with Op "write" and
// Path name, even when the temporary file failed: its name means nothing
// to the caller.
func WriteFileAtomic(fsys afero.Fs, name string, data []byte, perm fs.FileMode) error {
	fail := func(err error) error {
		return &fs.PathError{Op: "write", Path: name, Err: cause(err)}
	}
	keepPerm := false
	if info, err := lstatIfPossible(fsys, name); err == nil {
		// Any other error (no such file, or a parent that cannot be
		// searched) is for creating the temporary file to report.
		switch {
		case info.IsDir():
			return fail(syscall.EISDIR)
		case info.Mode().IsRegular():
			perm, keepPerm = info.Mode().Perm(), true
		}
	}
	createPerm := perm
	if keepPerm {
		createPerm = 0o600 // the umask must not narrow the kept bits: chmod below
	}
	tmp, err := createTemp(fsys, name, createPerm)
	if err != nil {
		return fail(err)
	}
	tmpName, closed, done := tmp.Name(), false, false
	defer func() {
		if !done {
			if !closed {
				_ = tmp.Close()
			}
			_ = fsys.Remove(tmpName)
		}
	}()
	if keepPerm {
		if err := fsys.Chmod(tmpName, perm); err != nil {
			return fail(err)
		}
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return fail(err)
	}
	closed = true
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := fsys.Rename(tmpName, name); err != nil {
		return fail(err)
	}
	done = true
	return nil
}

// createTemp creates a new file beside name, hidden, with a random suffix.
func createTemp(fsys afero.Fs, name string, perm fs.FileMode) (afero.File, error) {
	dir, base := filepath.Split(name)
	for range 10000 {
		tmp := filepath.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		f, err := fsys.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fs.ErrExist
}

// cause strips the path, or the pair of paths, from a filesystem error.
func cause(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	if le, ok := errors.AsType[*os.LinkError](err); ok {
		return le.Err
	}
	return err
}
