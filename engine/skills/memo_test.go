package skills

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memoOf returns the cache's remembered result for roots, or nil.
func memoOf(c *Cache, roots []Root, home string) *discoveryMemo {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.memos {
		if m.matches(roots, home) {
			return m
		}
	}
	return nil
}

// TestMemoMatchesFreshWalk changes the tree in one way after a warm
// discovery and checks that the next warm discovery equals a walk without
// a cache, and whether the remembered result could be reused.
func TestMemoMatchesFreshWalk(t *testing.T) {
	then := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	write := func(t *testing.T, fsys afero.Fs, name, body string) {
		require.NoError(t, afero.WriteFile(fsys, name, []byte(body), 0o644))
		require.NoError(t, fsys.Chtimes(name, then.Add(time.Hour), then.Add(time.Hour)))
	}
	tests := []struct {
		name   string
		change func(t *testing.T, fsys afero.Fs)
		reused bool
	}{
		{"nothing", func(*testing.T, afero.Fs) {}, true},
		{"hidden entries come and go", func(t *testing.T, fsys afero.Fs) {
			require.NoError(t, fsys.MkdirAll("skills/.git/objects", 0o755))
			write(t, fsys, "skills/g/.DS_Store", "x")
		}, true},
		{"plain file added", func(t *testing.T, fsys afero.Fs) { write(t, fsys, "skills/README.md", "hi") }, true},
		{"SKILL.md edited", func(t *testing.T, fsys afero.Fs) {
			write(t, fsys, "skills/g/a/SKILL.md", skillMD("name: a", "description: edited"))
		}, false},
		{"SKILL.md touched only", func(t *testing.T, fsys afero.Fs) {
			require.NoError(t, fsys.Chtimes("skills/g/a/SKILL.md", then.Add(time.Hour), then.Add(time.Hour)))
		}, false},
		{"skill folder added", func(t *testing.T, fsys afero.Fs) { write(t, fsys, "skills/g/c/SKILL.md", skillMD("name: c")) }, false},
		{"skill folder removed", func(t *testing.T, fsys afero.Fs) { require.NoError(t, fsys.RemoveAll("skills/g/b")) }, false},
		{"SKILL.md removed", func(t *testing.T, fsys afero.Fs) { require.NoError(t, fsys.Remove("skills/g/b/SKILL.md")) }, false},
		{"searched folder becomes a skill", func(t *testing.T, fsys afero.Fs) { write(t, fsys, "skills/g/SKILL.md", skillMD("name: g")) }, false},
		{"SKILL.md appears at the depth limit", func(t *testing.T, fsys afero.Fs) {
			write(t, fsys, "skills/d1/d2/d3/d4/SKILL.md", skillMD("name: deep"))
		}, false},
		{"SKILL.md becomes a folder", func(t *testing.T, fsys afero.Fs) {
			require.NoError(t, fsys.Remove("skills/g/a/SKILL.md"))
			require.NoError(t, fsys.MkdirAll("skills/g/a/SKILL.md", 0o755))
		}, false},
		{"root removed", func(t *testing.T, fsys afero.Fs) { require.NoError(t, fsys.RemoveAll("skills")) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := memFS(t, map[string]string{
				"skills/g/a/SKILL.md": skillMD("name: a", "description: one"),
				"skills/g/b/SKILL.md": skillMD("name: b"),
				"skills/x/SKILL.md":   "---\nname: [\n---\n", // broken, remembered too
			})
			require.NoError(t, fsys.MkdirAll("skills/d1/d2/d3/d4", 0o755))
			for _, name := range []string{"skills/g/a/SKILL.md", "skills/g/b/SKILL.md", "skills/x/SKILL.md"} {
				require.NoError(t, fsys.Chtimes(name, then, then))
			}
			roots := []Root{workspaceRoot(fsys), {Source: Bundled, FS: fsys, Dir: "missing"}}
			cache := &Cache{}
			opts := Options{Home: "/home/ana", Cache: cache}
			_, err := Discover(context.Background(), roots, opts)
			require.NoError(t, err)
			before := memoOf(cache, roots, opts.Home)
			require.NotNil(t, before)

			tt.change(t, fsys)
			got, err := Discover(context.Background(), roots, opts)
			require.NoError(t, err)
			want, err := Discover(context.Background(), roots, Options{Home: opts.Home})
			require.NoError(t, err)
			assert.Equal(t, want, got)
			assert.Equal(t, tt.reused, memoOf(cache, roots, opts.Home) == before, "remembered result reused")
		})
	}
}

func TestMemoIgnoresListingOrder(t *testing.T) {
	files := map[string]string{}
	for i := range 20 {
		files[fmt.Sprintf("skills/s%02d/SKILL.md", i)] = skillMD(fmt.Sprintf("name: s%02d", i))
	}
	roots := []Root{workspaceRoot(shuffledFS{Fs: memFS(t, files), rng: rand.New(rand.NewPCG(1, 2))})}
	cache := &Cache{}
	first, err := Discover(context.Background(), roots, Options{Cache: cache})
	require.NoError(t, err)
	memo := memoOf(cache, roots, "")
	for range 5 {
		again, err := Discover(context.Background(), roots, Options{Cache: cache})
		require.NoError(t, err)
		assert.Equal(t, first, again)
	}
	assert.Same(t, memo, memoOf(cache, roots, ""), "a reordered listing is the same listing")
}

func TestMemoKeyedByRootsAndHome(t *testing.T) {
	fsys := memFS(t, map[string]string{"skills/a/SKILL.md": skillMD("name: a")})
	cache := &Cache{}
	discover := func(root Root, home string) Found {
		found, err := Discover(context.Background(), []Root{root}, Options{Home: home, Cache: cache})
		require.NoError(t, err)
		return found
	}
	ws := workspaceRoot(fsys)
	plugin := ws
	plugin.Plugin = "p"
	assert.Equal(t, "/home/ana/agent/skills/a/SKILL.md", discover(ws, "").Skills[0].Location)
	assert.Equal(t, "~/agent/skills/a/SKILL.md", discover(ws, "/home/ana").Skills[0].Location)
	assert.Equal(t, "p", discover(plugin, "/home/ana").Skills[0].Plugin)
	assert.Equal(t, "", discover(ws, "/home/ana").Skills[0].Plugin)
}

func TestMemoNotKeptAfterErrors(t *testing.T) {
	base := memFS(t, map[string]string{"skills/a/SKILL.md": skillMD("name: a")})
	locked := failFS{Fs: base, failOpen: map[string]bool{"skills/a/SKILL.md": true}}
	roots := []Root{workspaceRoot(locked)}
	cache := &Cache{}
	found, err := Discover(context.Background(), roots, Options{Cache: cache})
	require.NoError(t, err)
	require.Len(t, found.Problems, 1)
	assert.Nil(t, memoOf(cache, roots, ""), "an error may not repeat the same way")
}

func TestMemoBounded(t *testing.T) {
	cache := &Cache{}
	var last []Root
	for i := range maxMemos + 5 {
		last = []Root{{Source: Workspace, FS: memFS(t, map[string]string{"skills/a/SKILL.md": skillMD("name: a")}), Dir: "skills", Display: fmt.Sprint(i)}}
		_, err := Discover(context.Background(), last, Options{Cache: cache})
		require.NoError(t, err)
	}
	assert.Len(t, cache.memos, maxMemos)
	assert.NotNil(t, memoOf(cache, last, ""))
}

func TestMemoCancelled(t *testing.T) {
	roots := []Root{workspaceRoot(memFS(t, map[string]string{"skills/a/SKILL.md": skillMD("name: a")}))}
	cache := &Cache{}
	_, err := Discover(context.Background(), roots, Options{Cache: cache})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Discover(ctx, roots, Options{Cache: cache})
	assert.ErrorIs(t, err, context.Canceled)
}

func TestWalkedEntry(t *testing.T) {
	fsys := symlinkFS{Fs: memFS(t, map[string]string{"skills/f.txt": "x", "skills/.h/SKILL.md": "x", "skills/d/SKILL.md": "x", "skills/l/SKILL.md": "x"}),
		links: map[string]bool{"skills/l": true}}
	infos, err := afero.ReadDir(fsys, "skills")
	require.NoError(t, err)
	var got []entrySeen
	for _, info := range infos {
		if e, ok := walkedEntry(info); ok {
			got = append(got, e)
		}
	}
	assert.Equal(t, []entrySeen{{name: "d"}, {name: "l", symlink: true}}, got)
}
