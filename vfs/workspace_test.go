package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func memWorkspace(t testing.TB, root string, files map[string]string) *Workspace {
	t.Helper()
	fsys := afero.NewMemMapFs()
	prefixed := make(map[string]string, len(files))
	for name, data := range files {
		prefixed[filepath.Join(root, name)] = data
	}
	writeFiles(t, fsys, prefixed)
	return OpenWorkspace(fsys, root)
}

func TestWorkspaceMem(t *testing.T) {
	for _, root := range []string{"", "/ws"} {
		t.Run("root="+root, func(t *testing.T) {
			w := memWorkspace(t, root, map[string]string{
				"AGENTS.md":         "agents",
				"memory/b.md":       "b",
				"memory/a.md":       "a",
				"memory/c.md":       "c",
				"skills/x/SKILL.md": "skill",
			})
			assert.Equal(t, root, w.Root())
			real, _, err := w.resolve("memory/../AGENTS.md")
			require.NoError(t, err)
			assert.Equal(t, filepath.ToSlash(filepath.Join(root, "AGENTS.md")), real)

			data, _, err := w.ReadFile("AGENTS.md", 100)
			require.NoError(t, err)
			assert.Equal(t, "agents", string(data))

			id, err := w.Stat("memory")
			require.NoError(t, err)
			assert.True(t, id.Mode.IsDir())

			entries, more, err := w.ReadDirN("memory", 10)
			require.NoError(t, err)
			assert.False(t, more)
			var got []string
			for _, e := range entries {
				got = append(got, e.Name)
			}
			assert.Equal(t, []string{"a.md", "b.md", "c.md"}, got)

			_, err = w.Stat("SOUL.md")
			assert.ErrorIs(t, err, fs.ErrNotExist)
			_, err = w.ReadText("SOUL.md", Keep{Whole: 10})
			assert.ErrorIs(t, err, fs.ErrNotExist)

			for _, name := range []string{"../AGENTS.md", "/etc/passwd", ""} {
				_, err := w.ReadText(name, Keep{Whole: 10})
				var refused *RefusedError
				assert.True(t, errors.As(err, &refused), "%q: %v", name, err)
			}
		})
	}
}

func TestWorkspaceDisplay(t *testing.T) {
	assert.Equal(t, "/ws/AGENTS.md", OpenWorkspace(afero.NewMemMapFs(), "/ws").Display("AGENTS.md"))
	assert.Equal(t, "AGENTS.md", OpenWorkspace(afero.NewMemMapFs(), "").Display("AGENTS.md"))
	assert.Equal(t, "/abs/dir/memory/a.md", OpenWorkspace(afero.NewMemMapFs(), "/abs/dir/").Display("memory/a.md"))
	assert.Empty(t, OpenWorkspace(afero.NewMemMapFs(), "/ws").DiskDir(), "not on the real disk")
}

// Display takes a shortcut for clean names under a clean root: it must
// agree with path.Join everywhere.
func TestWorkspaceDisplayIsJoin(t *testing.T) {
	roots := []string{"", ".", "/", "/ws", "/ws/", "ws", "./ws", "/a/../b", "//ws", "/ws/.", "C:/ws"}
	names := []string{"AGENTS.md", "memory/a.md", "", ".", "..", "../x", "/abs", "a//b", "a/./b", "a/", `a\b`}
	for _, root := range roots {
		w := OpenWorkspace(afero.NewMemMapFs(), root)
		for _, name := range names {
			assert.Equal(t, path.Join(root, name), w.Display(name), "root %q, name %q", root, name)
		}
	}
}

func TestReadFileLimit(t *testing.T) {
	w := memWorkspace(t, "/ws", map[string]string{"ten.txt": "0123456789"})
	data, _, err := w.ReadFile("ten.txt", 10)
	require.NoError(t, err)
	assert.Len(t, data, 10)

	_, _, err = w.ReadFile("ten.txt", 9)
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), "/ws/ten.txt")

	_, _, err = w.ReadFile(".", 9)
	assert.ErrorIs(t, err, ErrIsDir)

	data, _, err = w.ReadFile("ten.txt", math.MaxInt64)
	require.NoError(t, err, "no overflow at the largest limit")
	assert.Len(t, data, 10)

	_, _, err = w.ReadFile("ten.txt", -1)
	assert.ErrorIs(t, err, ErrTooLarge)

	empty := memWorkspace(t, "", map[string]string{"empty.md": ""})
	data, _, err = empty.ReadFile("empty.md", -1)
	require.NoError(t, err, "a negative limit counts as 0")
	assert.Empty(t, data)
}

// countingFS records how many entries each directory read asks for
// and gets.
type countingFS struct {
	afero.Fs
	asked, got *[]int
}

func (c countingFS) Open(name string) (afero.File, error) {
	f, err := c.Fs.Open(name)
	if err != nil {
		return nil, err
	}
	return countingFile{File: f, fs: c}, nil
}

type countingFile struct {
	afero.File
	fs countingFS
}

func (f countingFile) Readdir(n int) ([]os.FileInfo, error) {
	infos, err := f.File.Readdir(n)
	*f.fs.asked = append(*f.fs.asked, n)
	*f.fs.got = append(*f.fs.got, len(infos))
	return infos, err
}

// ReadDirN reads no more of a directory than it returns, plus one entry
// to tell whether there are more, and never asks for the whole directory.
func TestReadDirN(t *testing.T) {
	files := map[string]string{}
	for i := range 3000 {
		files[fmt.Sprintf("big/e%04d", 2999-i)] = ""
	}
	files["small/b"], files["small/a"] = "", ""
	base := afero.NewMemMapFs()
	writeFiles(t, base, files)
	var asked, got []int
	w := OpenWorkspace(countingFS{Fs: base, asked: &asked, got: &got}, "")

	tests := []struct {
		dir   string
		n     int
		names []string
		more  bool
	}{
		{"small", 5, []string{"a", "b"}, false},
		{"small", 2, []string{"a", "b"}, false},
		{"small", 1, []string{"a"}, true},
		{"small", 0, nil, true},
		{"small", -1, nil, true},
		{"big", 3, []string{"e0000", "e0001", "e0002"}, true},
		{"big", 2500, nil, true},
	}
	for _, tt := range tests {
		asked, got = nil, nil
		entries, more, err := w.ReadDirN(tt.dir, tt.n)
		require.NoError(t, err)
		assert.Equal(t, tt.more, more, "%s, %d", tt.dir, tt.n)
		read := 0
		for i, n := range asked {
			assert.LessOrEqual(t, n, dirBatch, "%s, %d: read %d asks for a bounded batch", tt.dir, tt.n, i)
			assert.Positive(t, n, "%s, %d: read %d asks for a bounded batch, not the whole directory", tt.dir, tt.n, i)
			read += got[i]
		}
		assert.LessOrEqual(t, read, max(tt.n, 0)+1, "%s, %d: entries read", tt.dir, tt.n)
		if tt.names != nil || tt.n <= 0 {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name)
			}
			assert.Equal(t, tt.names, names, "%s, %d", tt.dir, tt.n)
		}
		assert.Len(t, entries, min(max(tt.n, 0), map[string]int{"small": 2, "big": 3000}[tt.dir]))
		assert.True(t, slices.IsSortedFunc(entries, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) }))
	}

	_, _, err := w.ReadDirN("small/a", 1)
	assert.ErrorIs(t, err, syscall.ENOTDIR)
	_, _, err = w.ReadDirN("../x", 1)
	var refused *RefusedError
	assert.ErrorAs(t, err, &refused)
}

func TestReadTextDirectory(t *testing.T) {
	w := memWorkspace(t, "/ws", map[string]string{"MEMORY.md/inner.md": "x"})
	_, err := w.ReadText("MEMORY.md", Keep{Whole: 100})
	require.ErrorIs(t, err, ErrIsDir)
	assert.NotErrorIs(t, err, fs.ErrNotExist)
	var refused *RefusedError
	assert.False(t, errors.As(err, &refused))
	assert.Contains(t, err.Error(), "/ws/MEMORY.md")
}

// osWorkspace builds a workspace "ws" in a temporary directory, next to a
// file "secret.txt" outside it, and returns it with its root. It is read
// through the afero walk (a read-only wrapper is not recognised as the
// OS); osRootWorkspace reads the same tree through os.Root.
func osWorkspace(t *testing.T, files map[string]string) (*Workspace, string) {
	root := osTree(t, files)
	return OpenWorkspace(linkedDisk{afero.NewReadOnlyFs(afero.NewOsFs())}, root), root
}

// linkedDisk reads the real disk, symlinks and all, as a filesystem that
// is not the disk: its handles hand their infos on in a type of its own, so a
// workspace reads it as it reads any other, and the resolver is tested on
// real links. (A real wrapper over the disk is refused; see
// TestDiskWrappersAreRefused.)
type linkedDisk struct{ afero.Fs }

func (d linkedDisk) Open(name string) (afero.File, error) {
	f, err := d.Fs.Open(name)
	if err != nil {
		return nil, err
	}
	return statlessFile{f}, nil
}

func (d linkedDisk) LstatIfPossible(name string) (fs.FileInfo, bool, error) {
	return d.Fs.(afero.Lstater).LstatIfPossible(name)
}

func (d linkedDisk) ReadlinkIfPossible(name string) (string, error) {
	return d.Fs.(afero.LinkReader).ReadlinkIfPossible(name)
}

type statlessFile struct{ afero.File }

func (f statlessFile) Stat() (fs.FileInfo, error) {
	fi, err := f.File.Stat()
	if err != nil {
		return nil, err
	}
	return wrappedInfo{fi}, nil
}

// wrappedInfo hands an info on in a type of its own, as a filesystem
// other than the disk would.
type wrappedInfo struct{ fs.FileInfo }

// Wrappers that reach the real disk are refused: at New where the
// wrapper's root shows the disk, else at the first file a workspace opens
// through it. Read through the generic path, their symlinks would be
// followed out of the workspace (RegexpFs reports none) or raced.
func TestDiskWrappersAreRefused(t *testing.T) {
	root := osTree(t, map[string]string{"AGENTS.md": "agents"})
	symlink(t, root, "SOUL.md", "../secret.txt")
	for name, fsys := range map[string]afero.Fs{
		"ReadOnly(Os)":         afero.NewReadOnlyFs(afero.NewOsFs()),
		"Regexp(Os)":           afero.NewRegexpFs(afero.NewOsFs(), regexp.MustCompile(`.*`)),
		"BasePath(Regexp(Os))": afero.NewBasePathFs(afero.NewRegexpFs(afero.NewOsFs(), regexp.MustCompile(`.*`)), "/"),
		"CopyOnWrite(Os,Mem)":  afero.NewCopyOnWriteFs(afero.NewOsFs(), afero.NewMemMapFs()),
		"CacheOnRead(Os,Mem)":  afero.NewCacheOnReadFs(afero.NewOsFs(), afero.NewMemMapFs(), 0),
		"FromIOFS(DirFS)":      afero.FromIOFS{FS: os.DirFS("/")},
	} {
		t.Run(name, func(t *testing.T) {
			if CheckDisk(fsys) != nil {
				return
			}
			dir := root
			if _, ok := fsys.(afero.FromIOFS); ok {
				dir = strings.TrimPrefix(root, "/") // an fs.FS takes unrooted names
			}
			w := OpenWorkspace(fsys, dir)
			text, err := w.ReadText("AGENTS.md", Keep{Whole: 100})
			assert.ErrorContains(t, err, "reads the real disk through a wrapper", "%q", text.Content)
			text, err = w.ReadText("SOUL.md", Keep{Whole: 100})
			assert.Error(t, err, "%q", text.Content) // refused as a link out, or as the disk
		})
	}
	assert.NoError(t, CheckDisk(afero.NewMemMapFs()))
	assert.NoError(t, CheckDisk(OS()))
}

func osTree(t *testing.T, files map[string]string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	require.NoError(t, os.Mkdir(root, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(base, "secret.txt"), []byte("outside"), 0o644))
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	}
	return root
}

func symlink(t *testing.T, root, name, target string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	if err := os.Symlink(target, p); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

func TestResolveSymlinks(t *testing.T) {
	w, root := osWorkspace(t, map[string]string{
		"AGENTS.md":          "agents",
		"personas/pirate.md": "arr",
		"docs/deep/file.md":  "deep",
	})
	links := map[string]string{
		"SOUL.md":        "personas/pirate.md",             // relative, inside
		"TOOLS.md":       filepath.Join(root, "AGENTS.md"), // absolute, inside
		"USER.md":        "/etc/passwd",                    // absolute, outside
		"escape.md":      "../secret.txt",                  // relative, outside
		"deep/escape.md": "../../x",                        // climbs above the root
		"docs/up.md":     "../AGENTS.md",                   // climbs, stays inside
		"linkdir":        "docs/deep",                      // a directory
		"loop/a":         "b",                              // a → b → a
		"loop/b":         "a",
		"self":           "self",
		"dangling.md":    "nowhere.md", // inside, missing
		"chain1":         "chain2",
		"chain2":         "SOUL.md",
		"rootlink":       root,
		"outdir":         filepath.Dir(root),
		"dotlink":        ".",
		"docs/dotted.md": "./../personas/./pirate.md",
	}
	for name, target := range links {
		symlink(t, root, name, target)
	}

	allowed := []struct{ name, want string }{
		{"SOUL.md", "personas/pirate.md"},
		{"TOOLS.md", "AGENTS.md"},
		{"docs/up.md", "AGENTS.md"},
		{"linkdir/file.md", "docs/deep/file.md"},
		{"chain1", "personas/pirate.md"},
		{"rootlink/AGENTS.md", "AGENTS.md"},
		{"dangling.md", "nowhere.md"},
		{"missing/dir/file.md", "missing/dir/file.md"},
		{"AGENTS.md", "AGENTS.md"},
		{"rootlink", "."},
		{"dotlink/dotlink/AGENTS.md", "AGENTS.md"},
		{"docs/dotted.md", "personas/pirate.md"},
	}
	for _, tc := range allowed {
		t.Run("allowed/"+tc.name, func(t *testing.T) {
			got, _, err := w.resolve(tc.name)
			require.NoError(t, err)
			assert.Equal(t, filepath.Join(root, filepath.FromSlash(tc.want)), got)

			// Lookup resolves the same way and stats what the path leads
			// to, not the link: its info is the OS's Stat of the target.
			real, info, err := w.lookup(tc.name)
			osInfo, osErr := os.Stat(got)
			if osErr != nil {
				assert.ErrorIs(t, err, fs.ErrNotExist)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, got, real)
			assert.True(t, os.SameFile(osInfo, info), "Lookup(%s) stats a different file", tc.name)
			assert.Equal(t, osInfo.Mode(), info.Mode())
		})
	}

	refused := []struct{ name, reason string }{
		{"USER.md", "symlink points outside the workspace"},
		{"escape.md", "symlink points outside the workspace"},
		{"deep/escape.md", "symlink points outside the workspace"},
		{"outdir/secret.txt", "symlink points outside the workspace"},
		{"loop/a", "symlink loop"},
		{"self", "symlink loop"},
		{"../secret.txt", "path escapes the workspace"},
		{root + "/AGENTS.md", "absolute path"},
	}
	for _, tc := range refused {
		t.Run("refused/"+tc.name, func(t *testing.T) {
			_, _, err := w.resolve(tc.name)
			var refusal *RefusedError
			require.True(t, errors.As(err, &refusal), "%v", err)
			assert.Equal(t, tc.reason, refusal.Reason)
			assert.Equal(t, tc.name, refusal.Name)

			// Every reading method refuses the same way.
			_, err = w.ReadText(tc.name, Keep{Whole: 100})
			assert.True(t, errors.As(err, &refusal), "ReadText: %v", err)
			_, err = w.Stat(tc.name)
			assert.True(t, errors.As(err, &refusal), "Stat: %v", err)
			_, _, err = w.ReadFile(tc.name, 100)
			assert.True(t, errors.As(err, &refusal), "ReadFile: %v", err)
		})
	}

	text, err := w.ReadText("SOUL.md", Keep{Whole: 100})
	require.NoError(t, err)
	assert.Equal(t, "arr", text.Content)

	_, err = w.ReadText("dangling.md", Keep{Whole: 100})
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = w.ReadText("AGENTS.md/child", Keep{Whole: 100})
	assert.ErrorIs(t, err, fs.ErrNotExist, "a file used as a directory is missing, not unreadable")
	_, err = w.ReadText("linkdir", Keep{Whole: 100})
	assert.ErrorIs(t, err, ErrIsDir)

	entries, _, err := w.ReadDirN("linkdir", 10)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, "file.md", entries[0].Name)
}

func TestResolveMissingThenDotDot(t *testing.T) {
	w, root := osWorkspace(t, map[string]string{"AGENTS.md": "agents"})
	// The OS would fail on "missing/.." so Resolve must not clean it into
	// an existing file.
	symlink(t, root, "link", "missing/../AGENTS.md")
	_, _, err := w.resolve("link")
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestReadTextUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads everything")
	}
	w, root := osWorkspace(t, map[string]string{"USER.md": "private"})
	require.NoError(t, os.Chmod(filepath.Join(root, "USER.md"), 0))
	_, err := w.ReadText("USER.md", Keep{Whole: 100})
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrPermission)
	assert.NotErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, err.Error(), "USER.md")
}

// real joins without path.Join's cost; it must agree with it.
func TestRealMatchesPathJoin(t *testing.T) {
	for _, root := range []string{"", ".", "/", "/ws", "/ws/", "ws", "./ws", "/a/../ws"} {
		w := OpenWorkspace(afero.NewMemMapFs(), root)
		for _, rel := range []string{"", ".", "AGENTS.md", "memory/2026-11-30.md"} {
			want := path.Join(root, rel)
			if root == "" && (rel == "" || rel == ".") {
				want = "."
			}
			assert.Equal(t, want, w.real(rel), "root %q, rel %q", root, rel)
		}
	}
}

func TestCleanFastPathAgrees(t *testing.T) {
	for _, name := range []string{"AGENTS.md", "a/b", "a//b", "./a", "a/./b", "a/..", "../a", "/a", `a\b`, "C:a", ".", "a/", "é.md"} {
		got, reason := clean(name)
		slow := path.Clean(strings.ReplaceAll(name, `\`, "/"))
		switch {
		case reason != "":
			assert.True(t, strings.HasPrefix(slow, "..") || strings.HasPrefix(slow, "/") || hasDrive(slow), "%q refused: %s", name, reason)
		default:
			assert.Equal(t, slow, got, name)
		}
	}
}

// A file is racy by when it last changed: a modification time set in the
// future (touch -d, an unpacked archive) must not keep it racy for good,
// and without a change time the modification time is what there is.
func TestRacyGoesByTheChangeTime(t *testing.T) {
	now := time.Now()
	at := func(d time.Duration) int64 { return now.Add(d).UnixNano() }
	for _, c := range []struct {
		name string
		id   FileID
		racy bool
	}{
		{"changed long ago, dated in the future", FileID{ModTime: at(time.Hour), ChangeTime: at(-time.Minute)}, false},
		{"changed just now, dated in the past", FileID{ModTime: at(-time.Hour), ChangeTime: at(-time.Second)}, true},
		{"no change time, modified just now", FileID{ModTime: at(-time.Second)}, true},
		{"no change time, modified long ago", FileID{ModTime: at(-time.Minute)}, false},
	} {
		assert.Equal(t, c.racy, c.id.Racy(now), c.name)
	}
}
