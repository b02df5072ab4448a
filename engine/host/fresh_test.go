package host

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/vfs"
)

// Sources sees every kind of edit at the next check, with no watch: an
// in-place rewrite of the same size, a file added deep down, one
// removed, one renamed over another, a new folder, a folder swapped for
// a copy, an edit to a lone file, a symlink's target replaced; and
// nothing when nothing changed.
func TestSourcesSeeEveryEdit(t *testing.T) {
	dir := t.TempDir()
	pack, cfg := filepath.Join(dir, "pack"), filepath.Join(dir, "agents.toml")
	write := func(name, text string) {
		t.Helper()
		require.NoError(t, os.MkdirAll(filepath.Dir(name), 0o755))
		require.NoError(t, os.WriteFile(name, []byte(text), 0o644))
	}
	write(filepath.Join(pack, "sections", "a.md.tmpl"), "aaaa")
	write(filepath.Join(pack, "sections", "b.md.tmpl"), "bbbb")
	write(filepath.Join(pack, "templates", "deep", "z.tmpl"), "zzzz")
	write(cfg, "x = 1")
	target := filepath.Join(dir, "target.tmpl")
	write(target, "tttt")
	// Not every Windows user may make a symlink.
	linked := os.Symlink(target, filepath.Join(pack, "templates", "link.tmpl")) == nil
	time.Sleep(vfs.RacyWindow) // younger files are checked again every time
	s := NewSources(pack, cfg, "")
	assert.False(t, s.Changed(), "nothing changed")
	assert.False(t, s.Changed())

	for _, edit := range []struct {
		name  string
		apply func()
	}{
		{"same size, in place", func() { write(filepath.Join(pack, "sections", "a.md.tmpl"), "AAAA") }},
		{"a file added deep down", func() { write(filepath.Join(pack, "templates", "x", "y.tmpl"), "y") }},
		{"a file removed", func() { require.NoError(t, os.Remove(filepath.Join(pack, "templates", "x", "y.tmpl"))) }},
		{"renamed over another", func() {
			write(filepath.Join(dir, "tmp"), "bbbb")
			require.NoError(t, os.Rename(filepath.Join(dir, "tmp"), filepath.Join(pack, "sections", "b.md.tmpl")))
		}},
		{"a folder swapped for a copy", func() {
			require.NoError(t, os.Rename(filepath.Join(pack, "templates", "deep"), filepath.Join(dir, "deep")))
			write(filepath.Join(pack, "templates", "deep", "z.tmpl"), "zzzz")
		}},
		{"the config", func() { write(cfg, "x = 2") }},
		{"the config removed", func() { require.NoError(t, os.Remove(cfg)) }},
		{"the config back", func() { write(cfg, "x = 3") }},
	} {
		edit.apply()
		assert.True(t, s.Changed(), edit.name)
	}
	if linked { // the target changes in a folder no entry covers
		write(filepath.Join(dir, "tmp"), "TTTT")
		require.NoError(t, os.Rename(filepath.Join(dir, "tmp"), target))
		assert.True(t, s.Changed(), "a symlink's target replaced")
	}
}

// A pack is read through a symlink to its folder, so an edit inside one
// is a change: a path given as a symlink to a folder (a pack's sections/
// kept elsewhere), and one given below such a link. A link back up the
// tree is stated, not walked.
func TestSourcesFollowLinkedFolders(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		require.NoError(t, os.MkdirAll(filepath.Dir(name), 0o755))
		require.NoError(t, os.WriteFile(name, []byte(text), 0o644))
	}
	real, shared := filepath.Join(dir, "real"), filepath.Join(dir, "shared")
	write(filepath.Join(real, "sections", "a.md.tmpl"), "aaaa")
	write(filepath.Join(shared, "b.md.tmpl"), "bbbb")
	pack, other := filepath.Join(dir, "pack"), filepath.Join(dir, "other")
	require.NoError(t, os.MkdirAll(other, 0o755))
	if os.Symlink(real, pack) != nil || os.Symlink(shared, filepath.Join(other, "sections")) != nil ||
		os.Symlink("..", filepath.Join(shared, "up")) != nil {
		t.Skip("no symlinks here")
	}
	time.Sleep(vfs.RacyWindow)
	s := NewSources(filepath.Join(pack, "sections"), filepath.Join(other, "sections"))
	assert.Less(t, len(s.entries), 10, "the link back up is not walked")
	// A path met by an earlier path's walk is not stated twice; the same
	// folder by another path (no link in it) is.
	again := NewSources(filepath.Join(pack, "sections"), filepath.Join(pack, "sections"), filepath.Join(real, "sections"),
		filepath.Join(real, "sections", "a.md.tmpl"), filepath.Join(other, "sections"))
	seen := map[string]bool{}
	for _, e := range again.entries {
		assert.False(t, seen[e.path], "%s is stated twice", e.path)
		seen[e.path] = true
	}
	assert.Len(t, again.entries, len(s.entries)+2)
	assert.False(t, s.Changed(), "nothing changed")
	write(filepath.Join(shared, "b.md.tmpl"), "BBBB")
	assert.True(t, s.Changed(), "an edit in a linked sections folder")
	time.Sleep(vfs.RacyWindow)
	assert.True(t, s.Changed(), "the racy stamp taken again")
	assert.False(t, s.Changed(), "nothing changed")
	write(filepath.Join(real, "sections", "a.md.tmpl"), "AAAA")
	assert.True(t, s.Changed(), "an edit below a symlinked pack")
}
