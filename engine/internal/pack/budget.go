package pack

import (
	"errors"
	"fmt"
	"io/fs"
	"sync/atomic"
)

// Bounds on a whole pack, beside MaxFileBytes for each file: a pack folder
// given by path may hold, or link to, far more than any pack needs (the
// built-in one is about 100 KB in 60 files).
const (
	MaxPackBytes   = 16 << 20 // bytes read from all the pack's files
	MaxPackEntries = 4096     // entries listed in all the pack's folders
)

// errPackTooLarge stops a read once the pack's budget is spent.
var errPackTooLarge = errors.New("the pack is too large")

// budgetFS is a pack's filesystem counting down what a load may still
// read. The jobs of a load run side by side, so which file meets the end
// of the budget depends on the schedule: Load reports the pack, not it.
type budgetFS struct {
	fs.FS
	bytes, entries atomic.Int64
}

func newBudgetFS(fsys fs.FS) *budgetFS {
	b := &budgetFS{FS: fsys}
	b.bytes.Store(MaxPackBytes)
	b.entries.Store(MaxPackEntries)
	return b
}

func (b *budgetFS) Open(name string) (fs.File, error) {
	if b.bytes.Load() < 0 {
		return nil, errPackTooLarge // nothing more is read once it is spent
	}
	f, err := b.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return budgetFile{f, b}, nil
}

// ReadDir makes fs.ReadDir and fs.WalkDir count what they list.
func (b *budgetFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if b.entries.Load() < 0 {
		return nil, errPackTooLarge
	}
	entries, err := fs.ReadDir(b.FS, name)
	if b.entries.Add(-int64(len(entries))) < 0 {
		return nil, errPackTooLarge
	}
	return entries, err
}

// spent is the error Load reports for the pack when a bound was met.
func (b *budgetFS) spent() error {
	switch {
	case b.bytes.Load() < 0:
		return fmt.Errorf("the pack holds more than %d MiB of files in all", MaxPackBytes>>20)
	case b.entries.Load() < 0:
		return fmt.Errorf("the pack's folders hold more than %d entries in all", MaxPackEntries)
	}
	return nil
}

type budgetFile struct {
	fs.File
	b *budgetFS
}

func (f budgetFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	if f.b.bytes.Add(-int64(n)) < 0 {
		return n, errPackTooLarge
	}
	return n, err
}
