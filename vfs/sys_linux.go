package vfs

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

func statCtime(st *syscall.Stat_t) (sec, nsec int64) {
	return int64(st.Ctim.Sec), int64(st.Ctim.Nsec)
}

// On Linux a workspace keeps its folder's descriptor and reads a plain
// name in it with one *at call that never follows a final symlink; a
// symlink, and any name with a slash, goes through the os.Root instead.
// The kernel resolves a single component against the descriptor, so
// nothing here can leave the folder.

// openDir opens dir without blocking on a FIFO and returns its descriptor
// and FileID.
func openDir(dir string) (int, FileID, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	var st unix.Stat_t
	if err == nil {
		if err = unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
		}
	}
	switch {
	case err == unix.ENOTDIR:
		return -1, FileID{}, &fs.PathError{Op: "open", Path: dir, Err: fmt.Errorf("not a directory: %w", fs.ErrNotExist)}
	case err != nil:
		return -1, FileID{}, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return fd, idOfStat(&st), nil
}

func closeDir(fd int) error { return unix.Close(fd) }

// statAt is the FileID of the entry name in the folder fd, a final
// symlink reported as one.
func statAt(fd int, name string) (FileID, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return idOfStat(&st), err
		}
	}
}

// openAt opens the entry name in the folder fd, failing with ELOOP when
// it is a symlink.
func openAt(fd int, name string, dir bool) (*os.File, error) {
	for {
		f, err := unix.Openat(fd, name, openFlags(dir)|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == nil {
			return os.NewFile(uintptr(f), name), nil
		}
		if err != unix.EINTR {
			return nil, err
		}
	}
}

// idOfStat is the FileID IDOf gives for the os package's reading of st.
func idOfStat(st *unix.Stat_t) FileID {
	mode := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	}
	if st.Mode&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if st.Mode&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if st.Mode&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return FileID{Dev: st.Dev, Ino: st.Ino, Size: st.Size, ModTime: st.Mtim.Nano(), ChangeTime: st.Ctim.Nano(), Mode: mode}
}
