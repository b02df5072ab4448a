//go:build !unix && !windows

package vfs

import "io/fs"

// fromDisk reports whether fi describes a file on the real disk; here
// only an *os.File handle says so.
func fromDisk(fs.FileInfo) bool { return false }
