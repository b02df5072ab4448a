package texts

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/internal/memo"
	"github.com/sysprompt/sysprompt/vfs"
)

// A name the workspace folder has no entry for is remembered as absent,
// by the folder's FileID, once the folder is older than the racy window;
// adding a file changes the folder, so it is read at once. A dangling
// symlink is never remembered: its target can appear without the folder
// changing.
func TestAbsentNamesAreRememberedByTheirFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out the racy window")
	}
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.Symlink("sub/target.md", filepath.Join(dir, "LINK.md")))
	c := New()
	keep := vfs.Keep{Whole: 1000}
	read := func(name string) (size int64, remembered bool, err error) {
		ws := vfs.OpenWorkspace(vfs.OS(), dir)
		defer ws.Close()
		r := c.Reader(ws, new(memo.Encoder))
		text, err := r.ReadPrepared(name, keep)
		if err == nil {
			size = text.ID().Size
		}
		s, ok := c.c.Get(r.key(name, keep))
		folder, _ := ws.DirID()
		return size, ok && s.absentIn == folder, err
	}
	_, remembered, err := read("NEW.md")
	require.ErrorIs(t, err, fs.ErrNotExist)
	assert.False(t, remembered, "a folder changed within the racy window is not trusted")

	time.Sleep(vfs.RacyWindow + 100*time.Millisecond)
	for range 2 {
		_, remembered, err = read("NEW.md")
		require.ErrorIs(t, err, vfs.ErrNoEntry)
		if runtime.GOOS == "linux" { // where the folder is held open
			assert.True(t, remembered, "absent from a settled folder")
		}
		_, remembered, err = read("LINK.md")
		require.ErrorIs(t, err, fs.ErrNotExist)
		assert.False(t, remembered, "a dangling symlink")
	}

	require.NoError(t, os.WriteFile(filepath.Join(dir, "NEW.md"), []byte("new"), 0o644))
	size, _, err := read("NEW.md")
	require.NoError(t, err)
	assert.EqualValues(t, 3, size)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "target.md"), []byte("target"), 0o644))
	size, _, err = read("LINK.md")
	require.NoError(t, err)
	assert.EqualValues(t, 6, size)
}
