package vfs

import (
	"io/fs"
	"math"
	"path/filepath"
	"testing"

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
