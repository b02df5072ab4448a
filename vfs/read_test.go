package vfs

import (
	"io/fs"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadFileOfFS(t *testing.T) {
	for name, fsys := range map[string]afero.Fs{"mem": afero.NewMemMapFs(), "os": afero.NewBasePathFs(afero.NewOsFs(), t.TempDir())} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, afero.WriteFile(fsys, "ten.txt", []byte("0123456789"), 0o644))
			require.NoError(t, fsys.Mkdir("dir", 0o755))

			data, err := ReadFile(fsys, "ten.txt", 10)
			require.NoError(t, err)
			assert.Equal(t, "0123456789", string(data))

			_, err = ReadFile(fsys, "ten.txt", 9)
			assert.ErrorIs(t, err, ErrTooLarge)
			assert.ErrorContains(t, err, "ten.txt")

			data, err = ReadFile(fsys, "ten.txt", math.MaxInt64)
			require.NoError(t, err, "no overflow at the largest limit")
			assert.Len(t, data, 10)

			_, err = ReadFile(fsys, "ten.txt", -1)
			assert.ErrorIs(t, err, ErrTooLarge, "a negative limit counts as 0")

			_, err = ReadFile(fsys, "dir", 10)
			assert.ErrorIs(t, err, ErrIsDir)
			assert.ErrorContains(t, err, "dir")

			_, err = ReadFile(fsys, "none.txt", 10)
			assert.ErrorIs(t, err, fs.ErrNotExist)
		})
	}
}

func TestReadFileOfFSThroughReadOnlyFs(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, afero.WriteFile(afero.NewOsFs(), filepath.Join(dir, "a.txt"), []byte("a"), 0o644))
	data, err := ReadFile(afero.NewReadOnlyFs(afero.NewOsFs()), filepath.Join(dir, "a.txt"), 1)
	require.NoError(t, err, "the read-only open flags pass a ReadOnlyFs")
	assert.Equal(t, "a", string(data))
}

func TestReadFSFile(t *testing.T) {
	fsys := fstest.MapFS{
		"ten.txt": {Data: []byte("0123456789")},
		"dir/a":   {Data: []byte("a")},
		"pipe":    {Mode: fs.ModeNamedPipe},
	}
	data, err := ReadFSFile(fsys, "ten.txt", 10)
	require.NoError(t, err)
	assert.Equal(t, "0123456789", string(data))

	_, err = ReadFSFile(fsys, "ten.txt", 9)
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.ErrorContains(t, err, "ten.txt")

	_, err = ReadFSFile(fsys, "dir", 10)
	assert.ErrorIs(t, err, ErrIsDir)

	_, err = ReadFSFile(fsys, "pipe", 10)
	assert.ErrorIs(t, err, ErrNotRegular)

	_, err = ReadFSFile(fsys, "none.txt", 10)
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

// The read stops one byte past the limit, whatever the file's size.
func TestReadFSFileReadsNoMoreThanTheLimitAndOne(t *testing.T) {
	var read int64
	fsys := endlessFS{read: &read}
	_, err := ReadFSFile(fsys, "endless", 1000)
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.Equal(t, int64(1001), read)
}

// endlessFS holds one regular file that never ends and counts the bytes
// read from it.
type endlessFS struct{ read *int64 }

func (e endlessFS) Open(name string) (fs.File, error) {
	return endlessFile(e), nil
}

type endlessFile struct{ read *int64 }

func (f endlessFile) Stat() (fs.FileInfo, error) {
	return fstest.MapFS{"endless": {}}.Stat("endless")
}
func (f endlessFile) Close() error { return nil }
func (f endlessFile) Read(b []byte) (int, error) {
	*f.read += int64(len(b))
	return len(b), nil
}

// The size hint only presizes: a hint that is wrong either way reads the
// same bytes, and the limit holds whatever the hint says.
func TestReadAtMostHint(t *testing.T) {
	body := strings.Repeat("0123456789", 100)
	for _, hint := range []int64{-1, 0, 10, 1000, 1001, 1 << 40} {
		got, err := readAtMost(strings.NewReader(body), 1000, hint)
		require.NoError(t, err, "hint %d", hint)
		assert.Equal(t, body, string(got), "hint %d", hint)
		_, err = readAtMost(strings.NewReader(body), 999, hint)
		assert.ErrorIs(t, err, ErrTooLarge, "hint %d", hint)
	}
}
