//go:build unix

package host

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A state file that is a symlink (kept in a synced folder, or shared by
// two agents' configs) is written through: the link stays, and a store
// that uses the real path sees what was remembered through the link.
func TestFileStoreWritesThroughASymlink(t *testing.T) {
	dir := t.TempDir()
	real, link := filepath.Join(dir, "shared", "state.json"), filepath.Join(dir, "state.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(real), 0o755))
	require.NoError(t, os.WriteFile(real, []byte(`{"seen": ["old"]}`), 0o600))
	require.NoError(t, os.Symlink(real, link))

	viaLink := NewFileStore(afero.NewOsFs(), link, nil)
	seen, err := viaLink.Seen(context.Background(), "old")
	require.NoError(t, err)
	require.True(t, seen, "read through the link")
	require.NoError(t, viaLink.Remember(context.Background(), "new"))

	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the state file's symlink was replaced by a %v file", fi.Mode().Type())
	direct := NewFileStore(afero.NewOsFs(), real, nil)
	seen, err = direct.Seen(context.Background(), "new")
	require.NoError(t, err)
	assert.True(t, seen, "what was remembered through the link is not in the real state file")
}

// A symlink to a state file not made yet is written through too: the
// first write makes the file the link leads to.
func TestFileStoreWritesThroughADanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "shared"), 0o755))
	link := filepath.Join(dir, "state.json")
	require.NoError(t, os.Symlink(filepath.Join("shared", "state.json"), link))
	require.NoError(t, NewFileStore(afero.NewOsFs(), link, nil).Remember(context.Background(), "new"))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the link stays")
	seen, err := NewFileStore(afero.NewOsFs(), filepath.Join(dir, "shared", "state.json"), nil).Seen(context.Background(), "new")
	require.NoError(t, err)
	assert.True(t, seen)
}
