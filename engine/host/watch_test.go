package host

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/require"
)

// waitFor polls until cond holds; events arrive asynchronously, so this
// is a wait with a bound, not a speed check.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("no change was seen")
}

func newCountingWatch(t *testing.T) (*Watch, *atomic.Uint64) {
	var changed atomic.Uint64
	w, err := NewWatch(func(string) { changed.Add(1) })
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, w.Close()) })
	return w, &changed
}

// quiet waits until no change has come for a while, and returns the count.
func quiet(t *testing.T, changed *atomic.Uint64) uint64 {
	waitFor(t, func() bool {
		before := changed.Load()
		time.Sleep(50 * time.Millisecond)
		return changed.Load() == before
	})
	return changed.Load()
}

func TestChangesUnderATreeCount(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "skills")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "a"), 0o755))
	w, changed := newCountingWatch(t)
	w.AddTree(root)

	require.NoError(t, os.WriteFile(filepath.Join(root, "a", "SKILL.md"), []byte("x"), 0o644))
	waitFor(t, func() bool { return changed.Load() > 0 })

	// A sibling of the tree, in the watched parent, does not count; a
	// file written under the tree after it does.
	before := quiet(t, changed)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644))
	time.Sleep(100 * time.Millisecond)
	require.Equal(t, before, changed.Load(), "a file beside the tree does not count")
	require.NoError(t, os.WriteFile(filepath.Join(root, "a", "other.md"), []byte("y"), 0o644))
	waitFor(t, func() bool { return changed.Load() > before })

	// A folder made later is watched too.
	require.NoError(t, os.MkdirAll(filepath.Join(root, "b", "c"), 0o755))
	before = quiet(t, changed)
	require.NoError(t, os.WriteFile(filepath.Join(root, "b", "c", "SKILL.md"), []byte("z"), 0o644))
	waitFor(t, func() bool { return changed.Load() > before })
}

func TestATreeCreatedLaterIsNoticed(t *testing.T) {
	root := filepath.Join(t.TempDir(), "skills")
	w, changed := newCountingWatch(t)
	w.AddTree(root) // missing for now: its parent is watched
	require.NoError(t, os.Mkdir(root, 0o755))
	waitFor(t, func() bool { return changed.Load() > 0 })
}

// A file counts, saved in place or renamed over; its neighbours do not.
func TestAFileCounts(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "request.toml")
	require.NoError(t, os.WriteFile(file, []byte("a"), 0o644))
	w, changed := newCountingWatch(t)
	w.AddFile(file)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "prompt.md"), []byte("x"), 0o644))
	time.Sleep(100 * time.Millisecond)
	require.Zero(t, changed.Load(), "a neighbour does not count")
	tmp := filepath.Join(dir, ".request.toml.swp")
	require.NoError(t, os.WriteFile(tmp, []byte("b"), 0o644))
	require.NoError(t, os.Rename(tmp, file))
	waitFor(t, func() bool { return changed.Load() > 0 })
}

// A tree given as a symlink to its folder (a -pack or -workspace that
// links to where the files are) is watched where the files are; and the
// link itself counts when it is pointed elsewhere, and then the folder
// it points to.
func TestATreeThatIsASymlinkIsWatched(t *testing.T) {
	dir := t.TempDir()
	real, other, link := filepath.Join(dir, "real"), filepath.Join(dir, "other"), filepath.Join(dir, "link")
	require.NoError(t, os.MkdirAll(filepath.Join(real, "sections"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(other, "sections"), 0o755))
	if os.Symlink(real, link) != nil {
		t.Skip("no symlinks here")
	}
	w, changed := newCountingWatch(t)
	w.AddTree(link)
	require.NoError(t, os.WriteFile(filepath.Join(real, "sections", "a.md.tmpl"), []byte("x"), 0o644))
	waitFor(t, func() bool { return changed.Load() > 0 })

	before := quiet(t, changed)
	require.NoError(t, os.Remove(link))
	require.NoError(t, os.Symlink(other, link))
	waitFor(t, func() bool { return changed.Load() > before })
	before = quiet(t, changed)
	require.NoError(t, os.WriteFile(filepath.Join(other, "sections", "b.md.tmpl"), []byte("y"), 0o644))
	waitFor(t, func() bool { return changed.Load() > before })
}

// A tree with more folders than its share (a workspace holding
// node_modules/) leaves the next tree its own: a skills folder inside it,
// added as a tree as a render adds the folders it read, is watched.
func TestATreeDoesNotUseUpAnother(t *testing.T) {
	ws := t.TempDir()
	for i := range maxTreeDirs + 10 {
		require.NoError(t, os.MkdirAll(filepath.Join(ws, "node_modules", fmt.Sprintf("pkg%05d", i)), 0o755))
	}
	skill := filepath.Join(ws, "skills", "s")
	require.NoError(t, os.MkdirAll(skill, 0o755))
	w, changed := newCountingWatch(t)
	w.AddTree(ws)
	w.AddTree(filepath.Join(ws, "skills"))
	require.NoError(t, os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("x"), 0o644))
	waitFor(t, func() bool { return changed.Load() > 0 })
}

// A folder removed from a tree frees its share: a tree whose folders come
// and go (build output, temp folders) still watches a folder made later.
func TestARemovedFolderFreesItsShare(t *testing.T) {
	root := t.TempDir()
	sw, err := NewWatch(func(string) {})
	require.NoError(t, err)
	defer sw.Close()
	sw.AddTree(root)
	for i := range maxTreeDirs + 10 {
		d := filepath.Join(root, fmt.Sprintf("tmp%d", i))
		require.NoError(t, os.Mkdir(d, 0o755))
		sw.event(fsnotify.Event{Name: d, Op: fsnotify.Create})
		require.NoError(t, os.Remove(d))
		sw.event(fsnotify.Event{Name: d, Op: fsnotify.Remove})
	}
	skill := filepath.Join(root, "new-skill")
	require.NoError(t, os.Mkdir(skill, 0o755))
	sw.event(fsnotify.Event{Name: skill, Op: fsnotify.Create})
	sw.mu.Lock()
	defer sw.mu.Unlock()
	require.True(t, sw.watched[skill], "a folder made after the churn is watched")
}
