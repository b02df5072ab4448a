package bootstrap

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/vfs"
)

// A Load over a Cache must equal a Load without one, whatever changed in
// between; the Version says whether the remembered result was reused.
func TestResultMemo(t *testing.T) {
	fsys, ws := memWorkspace(t, benchFiles())
	cache := NewCache()
	opts := Options{Heartbeat: true}
	load := func(opts Options) Result {
		t.Helper()
		fresh := mustLoad(t, ws, opts)
		opts.Cache = cache
		got := mustLoad(t, ws, opts)
		v := got.Version
		require.NotZero(t, v)
		got.Version = 0
		require.Equal(t, fresh, got)
		got.Version = v
		return got
	}
	first := load(opts)
	again := load(opts)
	assert.Equal(t, first.Version, again.Version, "nothing changed: reused")

	again.Files[0].Content = "changed by the caller"
	assert.NotEqual(t, "changed by the caller", load(opts).Files[0].Content, "callers get their own copy")

	steps := []struct {
		name   string
		change func(o *Options)
	}{
		{"an edit", func(*Options) {
			require.NoError(t, afero.WriteFile(fsys, "ws/SOUL.md", []byte("Be brief."), 0o644))
		}},
		{"a new optional file", func(o *Options) {
			o.BrandNew = true
			require.NoError(t, afero.WriteFile(fsys, "ws/BOOTSTRAP.md", []byte("hello"), 0o644))
		}},
		{"a removed file", func(*Options) { require.NoError(t, fsys.Remove("ws/USER.md")) }},
		{"a file turned directory", func(*Options) {
			require.NoError(t, fsys.Remove("ws/TOOLS.md"))
			require.NoError(t, fsys.MkdirAll("ws/TOOLS.md", 0o755))
		}},
		{"a smaller budget", func(o *Options) { o.MaxChars = 500 }},
		{"another session", func(o *Options) { o.Session = "subagent" }},
		{"a replace", func(o *Options) { o.Replace = map[string]string{"SOUL.md": "IDENTITY.md"} }},
		{"startup memory", func(o *Options) {
			o.Startup, o.Today, o.Yesterday = true, "2026-11-30", "2026-11-29"
			require.NoError(t, afero.WriteFile(fsys, "ws/memory/2026-11-30.md", []byte("today"), 0o644))
		}},
	}
	prev := first.Version
	for _, s := range steps {
		s.change(&opts)
		got := load(opts)
		assert.NotEqual(t, prev, got.Version, s.name)
		assert.Equal(t, got.Version, load(opts).Version, "%s, then nothing: reused", s.name)
		prev = got.Version
	}
}

// Loads with a hook are never remembered: the hook may answer otherwise
// next time.
func TestResultMemoSkipsHooks(t *testing.T) {
	_, ws := memWorkspace(t, allFiles())
	cache := NewCache()
	hook := func(_ context.Context, ev Event) ([]Entry, error) { return ev.Files, nil }
	res := mustLoad(t, ws, Options{Cache: cache, Hook: hook})
	assert.Zero(t, res.Version)
	assert.Empty(t, cache.results)
}

// On a real disk a symlink retargeted inside the workspace, or out of it,
// is seen at once.
func TestResultMemoFollowsSymlinkChanges(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{"AGENTS.md": "rules", "a.md": "persona a", "b.md": "persona b"} {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(body), 0o644))
	}
	link := filepath.Join(root, "SOUL.md")
	require.NoError(t, os.Symlink("a.md", link))
	ws := vfs.NewWorkspace(afero.NewOsFs(), root)
	opts := Options{Files: []string{"AGENTS.md", "SOUL.md"}, Cache: NewCache()}
	soul := func() File { return mustLoad(t, ws, opts).Files[1] }

	assert.Equal(t, "persona a", soul().Content)
	require.NoError(t, os.Remove(link))
	require.NoError(t, os.Symlink("b.md", link))
	assert.Equal(t, "persona b", soul().Content)
	require.NoError(t, os.Remove(link))
	require.NoError(t, os.Symlink("/etc/hostname", link))
	assert.Equal(t, StatusMissing, soul().Status)
	assert.Equal(t, StatusMissing, soul().Status, "a refusal is remembered too")
	require.NoError(t, os.Remove(link))
	require.NoError(t, os.Symlink("a.md", link))
	assert.Equal(t, "persona a", soul().Content)
}

func TestResultMemoIsBounded(t *testing.T) {
	_, ws := memWorkspace(t, allFiles())
	cache := NewCache()
	for i := range resultMemoSize + 4 {
		mustLoad(t, ws, Options{Cache: cache, MaxChars: 1000 + i})
	}
	assert.Len(t, cache.results, resultMemoSize)
}

// The memo keeps its own copy of the options: a caller that changes its
// map after a Load must not be served the old result (found in review).
func TestResultMemoCopiesOptions(t *testing.T) {
	_, ws := memWorkspace(t, map[string]string{"a.md": "persona A", "b.md": "persona B", "AGENTS.md": "rules"})
	replace := map[string]string{"SOUL.md": "a.md"}
	opts := Options{Files: []string{"AGENTS.md", "SOUL.md"}, Replace: replace, Cache: NewCache()}
	assert.Equal(t, "persona A", mustLoad(t, ws, opts).Files[1].Content)
	replace["SOUL.md"] = "b.md"
	assert.Equal(t, "persona B", mustLoad(t, ws, opts).Files[1].Content)
	opts.Files[1] = "AGENTS.md"
	assert.Len(t, mustLoad(t, ws, opts).Files, 1, "the list changed in place too")
}

// A file reached under two names is injected once; if one name stops
// being the same file, even keeping size and time (cp -p over a hard
// link), the next Load must see it (found in review).
func TestResultMemoNoticesFileIdentity(t *testing.T) {
	root := t.TempDir()
	agents, soul := filepath.Join(root, "AGENTS.md"), filepath.Join(root, "SOUL.md")
	require.NoError(t, os.WriteFile(agents, []byte("rules"), 0o644))
	require.NoError(t, os.Link(agents, soul))
	ws := vfs.NewWorkspace(afero.NewOsFs(), root)
	opts := Options{Files: []string{"AGENTS.md", "SOUL.md"}, Cache: NewCache()}
	assert.Len(t, mustLoad(t, ws, opts).Files, 1, "SOUL.md is AGENTS.md")

	info, err := os.Stat(agents)
	require.NoError(t, err)
	require.NoError(t, os.Remove(soul))
	require.NoError(t, os.WriteFile(soul, []byte("rules"), 0o644))
	require.NoError(t, os.Chtimes(soul, info.ModTime(), info.ModTime()))
	files := mustLoad(t, ws, opts).Files
	require.Len(t, files, 2, "a copy is its own file")
	assert.Equal(t, "SOUL.md", files[1].Name)
}

func TestResultMemoHonoursCancellation(t *testing.T) {
	_, ws := memWorkspace(t, allFiles())
	opts := Options{Cache: NewCache(), Markers: testMarkers{}}
	mustLoad(t, ws, opts)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Load(ctx, ws, opts)
	assert.ErrorIs(t, err, context.Canceled)
}
