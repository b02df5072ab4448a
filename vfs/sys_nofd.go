//go:build !linux

package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Elsewhere than Linux every read goes through the os.Root; openDir only
// checks that dir is a folder, so that opening the root cannot block on
// a FIFO.
func openDir(dir string) (int, FileID, error) {
	fi, err := os.Stat(dir)
	if err == nil && !fi.IsDir() {
		err = &fs.PathError{Op: "open", Path: dir, Err: fmt.Errorf("not a directory: %w", fs.ErrNotExist)}
	}
	return -1, FileID{}, err
}

var errNoDescriptor = errors.New("no folder descriptor")

func closeDir(int) error                         { return nil }
func statAt(int, string) (FileID, error)         { return FileID{}, errNoDescriptor }
func openAt(int, string, bool) (*os.File, error) { return nil, errNoDescriptor }
