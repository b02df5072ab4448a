package vfs

import (
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/afero"
)

// Sub returns a read-only view of the directory dir inside fsys: a name
// is cleaned lexically, so it cannot climb out with "..", and joined to
// dir. Unlike the workspace's own names, a backslash or a "c:" here is
// just a character: these names come from directory listings. It serves the skills walker, which looks up the same
// clean names on every render: afero.BasePathFs would clean and join each
// again, tripling the cost of a stat on a MemMapFs. Writes fail with
// EPERM. Symlinks are not resolved; Lstat (LstatIfPossible) and
// Readlink (ReadlinkIfPossible) pass through when fsys supports them.
func Sub(fsys afero.Fs, dir string) afero.Fs {
	s := &subFS{fsys: fsys, dir: path.Clean(dir)}
	if s.dir != "/" {
		s.prefix = s.dir + "/"
	} else {
		s.prefix = "/"
	}
	return s
}

type subFS struct {
	fsys   afero.Fs
	dir    string // clean
	prefix string // dir and a slash
}

// real maps a name inside the view to its name in fsys, as BasePathFs
// does: "/x" is x inside the view, and a name that climbs out does not
// exist.
func (s *subFS) real(op, name string) (string, error) {
	if fs.ValidPath(name) && name != "." {
		return s.prefix + name, nil // already clean: the walker's names
	}
	rel := path.Clean(strings.TrimLeft(name, "/"))
	switch {
	case rel == "" || rel == ".":
		return s.dir, nil
	case rel == ".." || strings.HasPrefix(rel, "../"):
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return s.prefix + rel, nil
}

func (s *subFS) Open(name string) (afero.File, error) {
	real, err := s.real("open", name)
	if err != nil {
		return nil, err
	}
	return s.fsys.Open(real)
}

func (s *subFS) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_TRUNC) != 0 {
		return nil, readOnly("open", name)
	}
	return s.Open(name)
}

func (s *subFS) Stat(name string) (fs.FileInfo, error) {
	real, err := s.real("stat", name)
	if err != nil {
		return nil, err
	}
	return s.fsys.Stat(real)
}

func (s *subFS) LstatIfPossible(name string) (fs.FileInfo, bool, error) {
	real, err := s.real("lstat", name)
	if err != nil {
		return nil, false, err
	}
	if l, ok := s.fsys.(afero.Lstater); ok {
		return l.LstatIfPossible(real)
	}
	info, err := s.fsys.Stat(real)
	return info, false, err
}

func (s *subFS) ReadlinkIfPossible(name string) (string, error) {
	real, err := s.real("readlink", name)
	if err != nil {
		return "", err
	}
	if r, ok := s.fsys.(afero.LinkReader); ok {
		return r.ReadlinkIfPossible(real)
	}
	return "", &fs.PathError{Op: "readlink", Path: name, Err: afero.ErrNoReadlink}
}

func (s *subFS) Name() string { return "vfs.Sub(" + s.dir + ")" }

func readOnly(op, name string) error {
	return &fs.PathError{Op: op, Path: name, Err: syscall.EPERM}
}

func (s *subFS) Create(name string) (afero.File, error)    { return nil, readOnly("create", name) }
func (s *subFS) Mkdir(name string, _ os.FileMode) error    { return readOnly("mkdir", name) }
func (s *subFS) MkdirAll(name string, _ os.FileMode) error { return readOnly("mkdir", name) }
func (s *subFS) Remove(name string) error                  { return readOnly("remove", name) }
func (s *subFS) RemoveAll(name string) error               { return readOnly("remove", name) }
func (s *subFS) Rename(old, _ string) error                { return readOnly("rename", old) }
func (s *subFS) Chmod(name string, _ os.FileMode) error    { return readOnly("chmod", name) }
func (s *subFS) Chown(name string, _, _ int) error         { return readOnly("chown", name) }
func (s *subFS) Chtimes(name string, _, _ time.Time) error { return readOnly("chtimes", name) }
func (s *subFS) SymlinkIfPossible(_, newname string) error { return readOnly("symlink", newname) }
