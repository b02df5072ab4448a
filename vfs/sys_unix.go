//go:build unix

package vfs

import (
	"io/fs"
	"os"
	"syscall"
)

// openFlags opens without blocking on a FIFO; O_DIRECTORY makes a
// directory open fail at once on anything else.
func openFlags(dir bool) int {
	flags := os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
	if dir {
		flags |= syscall.O_DIRECTORY
	}
	return flags
}

// sysID fills the device, inode and change time from the OS's stat.
func sysID(fi fs.FileInfo, id *FileID) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	id.Dev, id.Ino = uint64(st.Dev), uint64(st.Ino)
	sec, nsec := statCtime(st)
	id.ChangeTime = sec*1e9 + nsec
}
