package vfs

import (
	"io/fs"
	"syscall"
)

// fromDisk reports whether fi describes a file on the real disk.
func fromDisk(fi fs.FileInfo) bool {
	_, ok := fi.Sys().(*syscall.Win32FileAttributeData)
	return ok
}
