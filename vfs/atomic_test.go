package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dirNames lists dir on fsys, sorted: what a leftover temporary file
// would show up in.
func dirNames(t *testing.T, fsys afero.Fs, dir string) []string {
	t.Helper()
	entries, err := afero.ReadDir(fsys, dir)
	require.NoError(t, err)
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// assertNamesTarget checks err is a PathError about name that does not
// mention the temporary file.
func assertNamesTarget(t *testing.T, err error, name string) {
	t.Helper()
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "write", pe.Op)
	assert.Equal(t, name, pe.Path)
	assert.NotContains(t, err.Error(), ".tmp")
}

func TestWriteAtomicNewFile(t *testing.T) {
	fsys := afero.NewMemMapFs()
	require.NoError(t, fsys.Mkdir("d", 0o755))
	require.NoError(t, WriteFileAtomic(fsys, "d/out.md", []byte("hello\n"), 0o640))
	got, err := afero.ReadFile(fsys, "d/out.md")
	require.NoError(t, err)
	assert.Equal(t, "hello\n", string(got))
	info, err := fsys.Stat("d/out.md")
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o640), info.Mode().Perm())
	assert.Equal(t, []string{"out.md"}, dirNames(t, fsys, "d"))
}

func TestWriteAtomicReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	fsys := afero.NewOsFs()
	name := filepath.Join(dir, "out.md")
	require.NoError(t, os.WriteFile(name, []byte("a much longer old content\n"), 0o600))
	// Bits a usual umask (022) would strip: the kept mode is set exactly.
	require.NoError(t, os.Chmod(name, 0o646))
	before, err := os.Stat(name)
	require.NoError(t, err)

	require.NoError(t, WriteFileAtomic(fsys, name, []byte("new\n"), 0o600))
	got, err := os.ReadFile(name)
	require.NoError(t, err)
	assert.Equal(t, "new\n", string(got), "no tail of the old content")
	after, err := os.Stat(name)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o646), after.Mode().Perm(), "the replaced file keeps its mode")
	assert.False(t, os.SameFile(before, after), "a new file renamed into place, not rewritten in place")
	assert.Equal(t, []string{"out.md"}, dirNames(t, fsys, dir))
}

func TestWriteAtomicNewFileOnDisk(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "state.json")
	require.NoError(t, WriteFileAtomic(afero.NewOsFs(), name, []byte("{}\n"), 0o600))
	info, err := os.Stat(name)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o600), info.Mode().Perm())
}

func TestWriteAtomicReadOnly(t *testing.T) {
	mem := afero.NewMemMapFs()
	require.NoError(t, afero.WriteFile(mem, "d/out.md", []byte("old\n"), 0o644))
	fsys := afero.NewReadOnlyFs(mem)
	err := WriteFileAtomic(fsys, "d/out.md", []byte("new\n"), 0o644)
	assertNamesTarget(t, err, "d/out.md")
	assert.ErrorIs(t, err, syscall.EPERM)
	assert.Equal(t, "write d/out.md: operation not permitted", err.Error())
	assert.Equal(t, []string{"out.md"}, dirNames(t, mem, "d"))
}

func TestWriteAtomicOSErrorsNameTarget(t *testing.T) {
	dir := t.TempDir()
	fsys := afero.NewOsFs()

	name := filepath.Join(dir, "missing", "out.md")
	err := WriteFileAtomic(fsys, name, []byte("x"), 0o644)
	assertNamesTarget(t, err, name)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Equal(t, "write "+name+": no such file or directory", err.Error())

	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	err = WriteFileAtomic(fsys, sub, []byte("x"), 0o644)
	assertNamesTarget(t, err, sub)
	assert.ErrorIs(t, err, syscall.EISDIR)
	assert.Equal(t, "write "+sub+": is a directory", err.Error())
	assert.Equal(t, []string{"sub"}, dirNames(t, fsys, dir))
}

func TestWriteAtomicReplacesSymlink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target.md"), filepath.Join(dir, "link.md")
	require.NoError(t, os.WriteFile(target, []byte("old\n"), 0o640))
	if err := os.Symlink("target.md", link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	require.NoError(t, WriteFileAtomic(afero.NewOsFs(), link, []byte("new\n"), 0o600))
	info, err := os.Lstat(link)
	require.NoError(t, err)
	assert.True(t, info.Mode().IsRegular(), "the link itself is replaced")
	assert.Equal(t, fs.FileMode(0o600), info.Mode().Perm(), "a link's target's mode is not the link's")
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "old\n", string(got))
}

// faultFs fails the step whose error is set, the way an OS filesystem
// does: naming the temporary file.
type faultFs struct {
	afero.Fs
	write, sync, close, rename error
}

func (f faultFs) OpenFile(name string, flag int, perm fs.FileMode) (afero.File, error) {
	file, err := f.Fs.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return faultFile{file, f}, nil
}

func (f faultFs) Rename(oldname, newname string) error {
	if f.rename != nil {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: f.rename}
	}
	return f.Fs.Rename(oldname, newname)
}

type faultFile struct {
	afero.File
	fs faultFs
}

func (f faultFile) Write(p []byte) (int, error) {
	if f.fs.write != nil {
		return 0, &fs.PathError{Op: "write", Path: f.Name(), Err: f.fs.write}
	}
	return f.File.Write(p)
}

func (f faultFile) Sync() error {
	if f.fs.sync != nil {
		return &fs.PathError{Op: "sync", Path: f.Name(), Err: f.fs.sync}
	}
	return f.File.Sync()
}

func (f faultFile) Close() error {
	err := f.File.Close()
	if f.fs.close != nil {
		return &fs.PathError{Op: "close", Path: f.Name(), Err: f.fs.close}
	}
	return err
}

func TestWriteAtomicFaults(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault faultFs
		want  error
	}{
		{"write", faultFs{write: syscall.ENOSPC}, syscall.ENOSPC},
		{"sync", faultFs{sync: syscall.EIO}, syscall.EIO},
		{"close", faultFs{close: syscall.EIO}, syscall.EIO},
		{"rename", faultFs{rename: syscall.EXDEV}, syscall.EXDEV},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := afero.NewMemMapFs()
			require.NoError(t, afero.WriteFile(mem, "d/out.md", []byte("old\n"), 0o644))
			fsys := tc.fault
			fsys.Fs = mem
			err := WriteFileAtomic(fsys, "d/out.md", []byte("new\n"), 0o644)
			assertNamesTarget(t, err, "d/out.md")
			assert.ErrorIs(t, err, tc.want)
			got, _ := afero.ReadFile(mem, "d/out.md")
			assert.Equal(t, "old\n", string(got))
			assert.Equal(t, []string{"out.md"}, dirNames(t, mem, "d"))
		})
	}
	t.Run("sync unsupported", func(t *testing.T) {
		mem := afero.NewMemMapFs()
		fsys := faultFs{Fs: mem, sync: errors.ErrUnsupported}
		require.NoError(t, WriteFileAtomic(fsys, "out.md", []byte("new\n"), 0o644))
		got, _ := afero.ReadFile(mem, "out.md")
		assert.Equal(t, "new\n", string(got))
	})
}

// Concurrent writers never interleave: the file is always one of them whole.
func TestWriteAtomicConcurrent(t *testing.T) {
	dir := t.TempDir()
	fsys := afero.NewOsFs()
	name := filepath.Join(dir, "out.md")
	contents := map[string]bool{}
	var wg sync.WaitGroup
	for i := range 8 {
		content := strings.Repeat(fmt.Sprintf("writer %d\n", i), 1000)
		contents[content] = true
		wg.Go(func() {
			for range 10 {
				assert.NoError(t, WriteFileAtomic(fsys, name, []byte(content), 0o644))
			}
		})
	}
	stop := make(chan struct{})
	var reads sync.WaitGroup
	reads.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if got, err := os.ReadFile(name); err == nil {
				assert.True(t, contents[string(got)], "read a mix of writes (%d bytes)", len(got))
			}
		}
	})
	wg.Wait()
	close(stop)
	reads.Wait()
	assert.Equal(t, []string{"out.md"}, dirNames(t, fsys, dir))
}
