package watch

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

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

func TestChangesUnderARootAreCounted(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "skills")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "a"), 0o755))
	var changed atomic.Uint64
	w, err := New(&changed)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, w.Close()) })
	w.Add(root)

	require.NoError(t, os.WriteFile(filepath.Join(root, "a", "SKILL.md"), []byte("x"), 0o644))
	waitFor(t, func() bool { return changed.Load() > 0 })

	// A sibling of the root, in the watched parent, is not a skills
	// change; a file written after it, under the root, is.
	waitFor(t, func() bool {
		before := changed.Load()
		time.Sleep(50 * time.Millisecond)
		return changed.Load() == before
	})
	before := changed.Load()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644))
	time.Sleep(100 * time.Millisecond)
	require.Equal(t, before, changed.Load(), "a file beside the skills root is not a skills change")
	require.NoError(t, os.WriteFile(filepath.Join(root, "a", "other.md"), []byte("y"), 0o644))
	waitFor(t, func() bool { return changed.Load() > before })
}

func TestARootCreatedLaterIsNoticed(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "skills")
	var changed atomic.Uint64
	w, err := New(&changed)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, w.Close()) })
	w.Add(root) // missing for now: its parent is watched

	require.NoError(t, os.Mkdir(root, 0o755))
	waitFor(t, func() bool { return changed.Load() > 0 })
}
