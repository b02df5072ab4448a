//go:build unix

package host

import (
	"os"
	"syscall"
)

// hold opens a file or folder to state it through, or returns nil. It
// opens no symlink (one put there since the walk), and does not wait on
// a named pipe; anything but a file or folder is stated by path.
func hold(p string) *os.File {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	if fi, err := f.Stat(); err != nil || !fi.IsDir() && !fi.Mode().IsRegular() {
		f.Close()
		return nil
	}
	return f
}
