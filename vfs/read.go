package vfs

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math"

	"github.com/spf13/afero"
)

// ReadFile returns the whole regular file name on fsys, or an error
// wrapping ErrTooLarge when it holds more than maxBytes bytes (it never
// reads more than maxBytes+1; a negative limit counts as 0). It is for a
// file the caller owns, such as a state file: a workspace's files go
// through [Workspace.ReadFile].
//
// A directory fails with ErrIsDir, and a named pipe, socket or device
// with a *NotRegularError, judged from the open handle so that a pipe
// never blocks the read. A missing file is an fs.ErrNotExist error.
func ReadFile(fsys afero.Fs, name string, maxBytes int64) ([]byte, error) {
	f, err := fsys.OpenFile(name, openFlags(false), 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readRegular(f, name, maxBytes)
}

// ReadFSFile is [ReadFile] for an fs.FS, such as a template pack.
func ReadFSFile(fsys fs.FS, name string, maxBytes int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readRegular(f, name, maxBytes)
}

// readRegular reads the open file f, refusing anything but a regular
// file of at most maxBytes; errors name the file name.
func readRegular(f fs.File, name string, maxBytes int64) ([]byte, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: cause(err)}
	}
	switch {
	case info.IsDir():
		return nil, &fs.PathError{Op: "read", Path: name, Err: ErrIsDir}
	case !info.Mode().IsRegular():
		return nil, &NotRegularError{Path: name, Kind: KindName(info.Mode())}
	}
	data, err := readAtMost(f, maxBytes, info.Size())
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: cause(err)}
	}
	return data, nil
}

// readAtMost reads r to its end, or fails wrapping ErrTooLarge when it
// holds more than maxBytes bytes. It never reads more than maxBytes+1, so
// a huge or endless source costs no more; a negative limit counts as 0.
// sizeHint, the size r's file says it has, only presizes the buffer.
func readAtMost(r io.Reader, maxBytes, sizeHint int64) ([]byte, error) {
	maxBytes = max(maxBytes, 0)
	// Room for the file and the read that finds its end: one allocation
	// when the size is right (a pack's files are read on every cold start).
	var b bytes.Buffer
	b.Grow(int(min(max(sizeHint, 0), maxBytes, maxPresize)) + bytes.MinRead)
	if _, err := b.ReadFrom(io.LimitReader(r, min(maxBytes, math.MaxInt64-1)+1)); err != nil {
		return nil, err
	}
	if int64(b.Len()) > maxBytes {
		return nil, fmt.Errorf("more than %d bytes: %w", maxBytes, ErrTooLarge)
	}
	return b.Bytes(), nil
}

// maxPresize bounds what a size hint allocates before anything is read.
const maxPresize = 16 << 20
