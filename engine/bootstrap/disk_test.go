package bootstrap

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/vfs"
)

// diskWorkspace writes files into a new temporary directory and opens it
// as a workspace on the real disk (the os.Root backend).
func diskWorkspace(t *testing.T, files map[string]string) (string, *vfs.Workspace) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	ws := vfs.OpenWorkspace(afero.NewOsFs(), dir)
	t.Cleanup(func() { ws.Close() })
	return dir, ws
}

// symlinkOrSkip makes link point at target, or skips where the system or
// the user may not make symlinks.
func symlinkOrSkip(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unsupported: %v", err)
	}
}

// loadWithin runs Load and fails the test if it has not returned within
// 5 s: a read that blocks (a FIFO opened for reading) must not hang a
// render.
func loadWithin(t *testing.T, ws Reader, opts Options) (Result, error) {
	t.Helper()
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := Load(context.Background(), ws, opts)
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-time.After(5 * time.Second):
		t.Fatal("Load did not return within 5 s")
		return Result{}, nil
	}
}

// TestLoadRefusesSymlinkedDirOutside: a directory component that is a
// symlink out of the workspace is refused like a symlinked file, for the
// startup daily memory and for a [bootstrap.replace] target, while a
// symlinked directory that stays inside is followed.
func TestLoadRefusesSymlinkedDirOutside(t *testing.T) {
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "2026-11-29.md"), []byte("TOP SECRET memory"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "pirate.md"), []byte("TOP SECRET persona"), 0o644))
	startup := testOptions(func(o *Options) {
		o.Files = []string{"AGENTS.md"}
		o.Startup, o.Today, o.Yesterday = true, "2026-11-29", "2026-11-28"
	})
	// The refusal comes at the directory, so yesterday's file, which does
	// not exist outside either, is reported too rather than left absent.
	refusedDaily := []string{"AGENTS.md OK",
		"memory/2026-11-28.md SKIPPED (symlink points outside the workspace) dynamic",
		"memory/2026-11-29.md SKIPPED (symlink points outside the workspace) dynamic"}

	t.Run("startup daily memory through an absolute link", func(t *testing.T) {
		dir, ws := diskWorkspace(t, map[string]string{"AGENTS.md": "rules"})
		symlinkOrSkip(t, outside, filepath.Join(dir, "memory"))
		res, err := loadWithin(t, ws, startup)
		require.NoError(t, err)
		assert.Equal(t, refusedDaily, outline(res))
		for _, f := range res.Files {
			assert.NotContains(t, f.Content, "TOP SECRET")
		}
	})
	t.Run("startup daily memory through a relative link", func(t *testing.T) {
		dir, ws := diskWorkspace(t, map[string]string{"AGENTS.md": "rules"})
		rel, err := filepath.Rel(dir, outside)
		require.NoError(t, err)
		symlinkOrSkip(t, rel, filepath.Join(dir, "memory"))
		res, err := loadWithin(t, ws, startup)
		require.NoError(t, err)
		assert.Equal(t, refusedDaily, outline(res))
	})
	t.Run("required file through a linked directory", func(t *testing.T) {
		dir, ws := diskWorkspace(t, map[string]string{"AGENTS.md": "rules"})
		symlinkOrSkip(t, outside, filepath.Join(dir, "personas"))
		res, err := loadWithin(t, ws, testOptions(func(o *Options) { o.Files = []string{"AGENTS.md", "personas/pirate.md"} }))
		require.NoError(t, err)
		assert.Equal(t, []string{"AGENTS.md OK", "personas/pirate.md MISSING (symlink points outside the workspace)"}, outline(res))
		assert.Equal(t, "[MISSING] Expected at: "+dir+"/personas/pirate.md", res.Files[1].Content)
	})
	t.Run("replace target through a linked directory is an error", func(t *testing.T) {
		dir, ws := diskWorkspace(t, map[string]string{"AGENTS.md": "rules"})
		symlinkOrSkip(t, outside, filepath.Join(dir, "personas"))
		_, err := loadWithin(t, ws, testOptions(func(o *Options) {
			o.Files, o.Replace = []string{"AGENTS.md", "SOUL.md"}, map[string]string{"SOUL.md": "personas/pirate.md"}
		}))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "SOUL.md -> personas/pirate.md")
		assert.Contains(t, err.Error(), "symlink points outside the workspace")
		assert.NotContains(t, err.Error(), "TOP SECRET")
	})
	t.Run("a linked directory inside the workspace is followed", func(t *testing.T) {
		dir, ws := diskWorkspace(t, map[string]string{"AGENTS.md": "rules", "archive/daily/2026-11-29.md": "today"})
		symlinkOrSkip(t, filepath.Join("archive", "daily"), filepath.Join(dir, "memory"))
		res, err := loadWithin(t, ws, startup)
		require.NoError(t, err)
		assert.Equal(t, []string{"AGENTS.md OK", "memory/2026-11-29.md OK dynamic"}, outline(res))
		assert.Equal(t, "today", res.Files[1].Content)
	})
}

// TestLoadSeesSymlinkRetargets: each Load reads the disk afresh; a symlink
// retargeted inside the workspace, or out of it, is seen at once.
func TestLoadSeesSymlinkRetargets(t *testing.T) {
	dir, ws := diskWorkspace(t, map[string]string{"AGENTS.md": "rules", "a.md": "persona a", "b.md": "persona b"})
	link := filepath.Join(dir, "SOUL.md")
	symlinkOrSkip(t, "a.md", link)
	opts := testOptions(func(o *Options) { o.Files = []string{"AGENTS.md", "SOUL.md"} })
	soul := func() File { return mustLoad(t, ws, opts).Files[1] }

	assert.Equal(t, "persona a", soul().Content)
	require.NoError(t, os.Remove(link))
	require.NoError(t, os.Symlink("b.md", link))
	assert.Equal(t, "persona b", soul().Content)
	require.NoError(t, os.Remove(link))
	require.NoError(t, os.Symlink(filepath.Join(t.TempDir(), "elsewhere.md"), link))
	assert.Equal(t, StatusMissing, soul().Status)
	require.NoError(t, os.Remove(link))
	require.NoError(t, os.Symlink("a.md", link))
	assert.Equal(t, "persona a", soul().Content)
}

// TestLoadDuplicatesByFileIdentity: on a real disk, two names are one file
// only when they are one inode. A hard link that is replaced by a copy
// keeping size, time and content (cp -p) becomes its own file, and so do
// names differing only in case on a case-sensitive disk.
func TestLoadDuplicatesByFileIdentity(t *testing.T) {
	dir, ws := diskWorkspace(t, map[string]string{"AGENTS.md": "rules"})
	agents, soul := filepath.Join(dir, "AGENTS.md"), filepath.Join(dir, "SOUL.md")
	require.NoError(t, os.Link(agents, soul))
	opts := testOptions(func(o *Options) { o.Files = []string{"AGENTS.md", "SOUL.md"} })
	assert.Equal(t, []string{"AGENTS.md OK"}, outline(mustLoad(t, ws, opts)), "SOUL.md is AGENTS.md")

	info, err := os.Stat(agents)
	require.NoError(t, err)
	require.NoError(t, os.Remove(soul))
	require.NoError(t, os.WriteFile(soul, []byte("rules"), 0o644))
	require.NoError(t, os.Chtimes(soul, info.ModTime(), info.ModTime()))
	assert.Equal(t, []string{"AGENTS.md OK", "SOUL.md OK"}, outline(mustLoad(t, ws, opts)), "a copy is its own file")

	upper, lower := filepath.Join(dir, "MEMORY.md"), filepath.Join(dir, "memory.md")
	require.NoError(t, os.WriteFile(upper, []byte("facts"), 0o644))
	require.NoError(t, os.WriteFile(lower, []byte("facts"), 0o644))
	if a, b := statOf(t, upper), statOf(t, lower); os.SameFile(a, b) {
		t.Skip("case-insensitive disk")
	}
	when := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	require.NoError(t, os.Chtimes(upper, when, when))
	require.NoError(t, os.Chtimes(lower, when, when))
	res := mustLoad(t, ws, testOptions(func(o *Options) { o.Files = []string{"MEMORY.md", "memory.md"} }))
	assert.Equal(t, []string{"MEMORY.md OK", "memory.md OK"}, outline(res),
		"the in-memory fallback (same size, time and text) is not used where there are inodes")
}

func statOf(t *testing.T, name string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(name)
	require.NoError(t, err)
	return fi
}

// TestPrivateFileUnderAnotherName: a symlink or hard link to MEMORY.md,
// served under another name by a replace or the hook, stays out of a
// group session like MEMORY.md itself.
func TestPrivateFileUnderAnotherName(t *testing.T) {
	for _, kind := range []string{"symlink", "hard link"} {
		t.Run(kind, func(t *testing.T) {
			dir, ws := diskWorkspace(t, map[string]string{"AGENTS.md": "a", "MEMORY.md": "SECRET"})
			if kind == "symlink" {
				symlinkOrSkip(t, "MEMORY.md", filepath.Join(dir, "notes.md"))
			} else if err := os.Link(filepath.Join(dir, "MEMORY.md"), filepath.Join(dir, "notes.md")); err != nil {
				t.Skipf("hard links unsupported: %v", err)
			}
			hook := func(_ context.Context, ev Event) ([]Entry, error) {
				return append(ev.Files, Entry{Name: "EXTRA.md", Path: "notes.md"}), nil
			}
			for _, edit := range []func(*Options){
				func(o *Options) { o.Shared, o.Replace = true, map[string]string{"SOUL.md": "notes.md"} },
				func(o *Options) { o.Shared, o.Hook = true, hook },
				func(o *Options) {
					o.Session, o.CronFiles = "cron", []string{"AGENTS.md", "SOUL.md"}
					o.Replace = map[string]string{"SOUL.md": "notes.md"}
				},
			} {
				res, err := loadWithin(t, ws, testOptions(edit))
				require.NoError(t, err)
				for _, f := range res.Files {
					assert.NotContains(t, f.Content, "SECRET", "%s", f.Name)
				}
				var private []string
				for _, f := range res.Files {
					if f.Private {
						private = append(private, f.Name)
					}
				}
				assert.NotEmpty(t, private, "the second name is reported as private")
			}
			// A direct session gets the file, once.
			res, err := loadWithin(t, ws, testOptions(func(o *Options) { o.Replace = map[string]string{"SOUL.md": "notes.md"} }))
			require.NoError(t, err)
			n := 0
			for _, f := range res.Files {
				if f.Content == "SECRET" {
					n++
				}
			}
			assert.Equal(t, 1, n)
		})
	}
}

// TestNoDailyNotesInPrivateSessions: a /reset turn adds recent daily
// notes only where MEMORY.md may go.
func TestNoDailyNotesInPrivateSessions(t *testing.T) {
	_, ws := memWorkspace(t, map[string]string{"AGENTS.md": "a", "memory/2026-11-30.md": "today"})
	startup := func(o *Options) { o.Startup, o.Today = true, "2026-11-30" }
	assert.Contains(t, outline(mustLoad(t, ws, testOptions(startup))), "memory/2026-11-30.md OK dynamic")
	for _, edit := range []func(*Options){
		func(o *Options) { startup(o); o.Shared = true },
		func(o *Options) { startup(o); o.Session = "cron" },
		func(o *Options) { startup(o); o.Session = "subagent" },
	} {
		for _, line := range outline(mustLoad(t, ws, testOptions(edit))) {
			assert.NotContains(t, line, "memory/")
		}
	}
}

// A file in a private folder is as private under another name: a symlink
// to a daily note, or a path through a symlink to the folder, is kept out
// of a shared session, as MEMORY.md is (TestPrivateFileUnderAnotherName).
func TestPrivateFolderFileUnderAnotherName(t *testing.T) {
	dir, ws := diskWorkspace(t, map[string]string{"AGENTS.md": "a", "memory/2026-11-30.md": "DAILY SECRET",
		"memory/2026/11-29.md": "DAILY SECRET, filed"})
	symlinkOrSkip(t, "memory/2026-11-30.md", filepath.Join(dir, "today.md"))
	require.NoError(t, os.Symlink("memory/2026/11-29.md", filepath.Join(dir, "yesterday.md")))
	require.NoError(t, os.Symlink("memory", filepath.Join(dir, "journal")))
	for _, target := range []string{"today.md", "journal/2026-11-30.md", "yesterday.md", "journal/2026/11-29.md"} {
		res, err := loadWithin(t, ws, testOptions(func(o *Options) {
			o.Shared, o.Replace = true, map[string]string{"SOUL.md": target}
		}))
		require.NoError(t, err)
		for _, f := range res.Files {
			assert.NotContains(t, f.Content, "DAILY SECRET", "%s -> %s injected into a shared session", f.Name, target)
		}
	}
}

// listCounter counts the folders listed through it.
type listCounter struct {
	*vfs.Workspace
	lists int
}

func (c *listCounter) ReadDirN(name string, n int) ([]vfs.Entry, bool, error) {
	c.lists++
	return c.Workspace.ReadDirN(name, n)
}

// The private folders are listed only on a turn where a replace or the
// hook moved a file: a warm turn of a group chat costs no more than it did.
func TestPrivateFoldersListedOnlyForMovedFiles(t *testing.T) {
	_, ws := diskWorkspace(t, map[string]string{"AGENTS.md": "a", "memory/2026-11-30.md": "note"})
	for _, tc := range []struct {
		replace map[string]string
		lists   int
	}{{nil, 0}, {map[string]string{"SOUL.md": "AGENTS.md"}, 1}} {
		c := &listCounter{Workspace: ws}
		_, err := loadWithin(t, c, testOptions(func(o *Options) { o.Shared, o.Replace = true, tc.replace }))
		require.NoError(t, err)
		assert.Equal(t, tc.lists, c.lists, "replace %v", tc.replace)
	}
}
