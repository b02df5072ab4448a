//go:build unix

package golden

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sysprompt "github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/vfs"
)

// A snapshot that is a named pipe or a device is refused, by check and
// by generate, without blocking on it or reading it (a symlink to
// /dev/zero read to its end exhausted memory); generate leaves it in
// place. One over maxGoldenFile bytes differs, and generate replaces it.
func TestSnapshotsThatAreNotFiles(t *testing.T) {
	dir := t.TempDir()
	scenario := filepath.Join(dir, "scenarios", "alpha.txtar")
	require.NoError(t, os.MkdirAll(filepath.Dir(scenario), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "snapshots"), 0o755))
	require.NoError(t, os.WriteFile(scenario, []byte("Alpha.\n-- request.toml --\nmode = \"none\"\n"), 0o644))
	snapshot := filepath.Join(dir, "snapshots", "alpha.md")
	osFS := afero.NewOsFs()

	for name, create := range map[string]func() error{
		"named pipe": func() error { return syscall.Mkfifo(snapshot, 0o644) },
		"device":     func() error { return os.Symlink("/dev/zero", snapshot) },
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, create())
			defer os.Remove(snapshot)
			_, err := check(t.Context(), osFS, sysprompt.Pack, dir)
			require.ErrorIs(t, err, vfs.ErrNotRegular)
			assert.ErrorContains(t, err, snapshot)
			_, _, err = generate(t.Context(), osFS, sysprompt.Pack, dir)
			require.ErrorIs(t, err, vfs.ErrNotRegular)
			info, err := os.Lstat(snapshot)
			require.NoError(t, err)
			assert.False(t, info.Mode().IsRegular(), "generate replaced the %s", name)
		})
	}

	t.Run("too large", func(t *testing.T) {
		f, err := os.Create(snapshot)
		require.NoError(t, err)
		require.NoError(t, f.Truncate(maxGoldenFile+1)) // sparse: costs no disk
		require.NoError(t, f.Close())
		problems, err := check(t.Context(), osFS, sysprompt.Pack, dir)
		require.NoError(t, err)
		require.Len(t, problems, 1)
		assert.Equal(t, KindDiffers, problems[0].Kind)
		assert.Contains(t, problems[0].Diff, "more than 67108864 bytes")
		written, _, err := generate(t.Context(), osFS, sysprompt.Pack, dir)
		require.NoError(t, err)
		assert.Equal(t, []string{snapshot}, written)
	})
}
