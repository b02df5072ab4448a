package vfs

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A plain name is stat'ed through the folder's descriptor; the FileID it
// gives must be the one the os package gives for every kind of entry, or
// a snapshot comparing the two would read every file again each turn.
func TestStatAtAgreesWithTheOSPackage(t *testing.T) {
	root := osTree(t, map[string]string{"file.md": "text", "setuid.md": "s", "dir/x.md": "x"})
	require.NoError(t, os.Chmod(filepath.Join(root, "setuid.md"), 0o755|fs.ModeSetuid))
	require.NoError(t, os.Chmod(filepath.Join(root, "dir"), 0o755|fs.ModeSticky|fs.ModeSetgid))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o600))
	symlink(t, root, "link.md", "file.md")
	symlink(t, root, "dangling.md", "nowhere.md")
	fd, _, err := openDir(root)
	require.NoError(t, err)
	defer closeDir(fd)
	for _, name := range []string{"file.md", "setuid.md", "dir", "fifo", "link.md", "dangling.md"} {
		fi, err := os.Lstat(filepath.Join(root, name))
		require.NoError(t, err)
		id, err := statAt(fd, name)
		require.NoError(t, err)
		assert.Equal(t, IDOf(fi), id, name)
	}
	_, err = statAt(fd, "none.md")
	assert.ErrorIs(t, err, syscall.ENOENT)
}

// Only a name the folder holds no entry for is ErrNoEntry: a dangling
// symlink is missing too, but its target can appear without the folder
// changing. The folder's FileID moves when an entry is added.
func TestStatTellsNoEntryFromADanglingLink(t *testing.T) {
	root := osTree(t, map[string]string{"AGENTS.md": "agents"})
	symlink(t, root, "SOUL.md", "sub/soul.md")
	w := OpenWorkspace(OS(), root)
	defer w.Close()
	before, held := w.DirID()
	require.True(t, held, "Linux holds the folder open")

	_, err := w.Stat("MEMORY.md")
	assert.ErrorIs(t, err, ErrNoEntry)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Equal(t, w.Absent("MEMORY.md"), err)
	_, err = w.Stat("SOUL.md")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.NotErrorIs(t, err, ErrNoEntry, "a dangling symlink is not an absent entry")

	require.NoError(t, os.WriteFile(filepath.Join(root, "MEMORY.md"), []byte("m"), 0o644))
	after := OpenWorkspace(OS(), root)
	defer after.Close()
	now, _ := after.DirID()
	assert.NotEqual(t, before, now, "adding an entry moves the folder's FileID")
	id, err := after.Stat("MEMORY.md")
	require.NoError(t, err)
	assert.EqualValues(t, 1, id.Size)
}

// The os.Root, opened on first need, must be the folder the descriptor
// holds: a folder swapped in at the same path since is refused.
func TestRootOpenedLaterIsTheSameFolder(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "ws")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "docs", "a.md"), []byte("first"), 0o644))
	w := OpenWorkspace(OS(), root)
	defer w.Close()
	require.NoError(t, os.Rename(root, filepath.Join(parent, "old")))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "docs", "a.md"), []byte("swapped"), 0o644))
	_, err := w.ReadText("docs/a.md", Keep{Whole: 100})
	assert.ErrorContains(t, err, "replaced")
}
