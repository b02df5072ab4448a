package vfs

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func builtinPack() fstest.MapFS {
	return fstest.MapFS{
		"sections/manifest.toml":       {Data: []byte("builtin manifest")},
		"sections/safety.md.tmpl":      {Data: []byte("builtin safety")},
		"sections/identity.md.tmpl":    {Data: []byte("builtin identity")},
		"templates/partials.md.tmpl":   {Data: []byte("builtin partials")},
		"templates/overlays/gpt5.toml": {Data: []byte("builtin gpt5")},
	}
}

func writeFiles(t testing.TB, fsys afero.Fs, files map[string]string) {
	t.Helper()
	for name, data := range files {
		require.NoError(t, fsys.MkdirAll(filepath.Dir(name), 0o755))
		require.NoError(t, afero.WriteFile(fsys, name, []byte(data), 0o644))
	}
}

func names(entries []fs.DirEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Name()
	}
	return out
}

func TestPack(t *testing.T) {
	user := afero.NewMemMapFs()
	writeFiles(t, user, map[string]string{
		"sections/safety.md.tmpl":        "user safety",
		"sections/zz_extra.md.tmpl":      "user extra",
		"sections/aa_first.md.tmpl":      "user first",
		"templates/overlays/custom.toml": "user custom",
		"extras/notes.md":                "user-only directory",
	})
	pack := Pack(builtinPack(), user)

	read := func(name string) string {
		t.Helper()
		data, err := fs.ReadFile(pack, name)
		require.NoError(t, err, name)
		return string(data)
	}
	assert.Equal(t, "user safety", read("sections/safety.md.tmpl"), "user file replaces built-in")
	assert.Equal(t, "builtin identity", read("sections/identity.md.tmpl"), "built-in file kept")
	assert.Equal(t, "user extra", read("sections/zz_extra.md.tmpl"), "new user file added")
	assert.Equal(t, "builtin gpt5", read("templates/overlays/gpt5.toml"))
	assert.Equal(t, "user custom", read("templates/overlays/custom.toml"))
	assert.Equal(t, "user-only directory", read("extras/notes.md"))

	entries, err := fs.ReadDir(pack, "sections")
	require.NoError(t, err)
	assert.Equal(t, []string{"aa_first.md.tmpl", "identity.md.tmpl", "manifest.toml", "safety.md.tmpl", "zz_extra.md.tmpl"}, names(entries))

	dir, err := pack.Open("sections")
	require.NoError(t, err)
	_, err = dir.Read(make([]byte, 1))
	assert.ErrorIs(t, err, ErrIsDir)
	require.NoError(t, dir.Close())

	root, err := fs.ReadDir(pack, ".")
	require.NoError(t, err)
	assert.Equal(t, []string{"extras", "sections", "templates"}, names(root))

	matches, err := fs.Glob(pack, "sections/*.md.tmpl")
	require.NoError(t, err)
	assert.Equal(t, []string{"sections/aa_first.md.tmpl", "sections/identity.md.tmpl", "sections/safety.md.tmpl", "sections/zz_extra.md.tmpl"}, matches)

	require.NoError(t, fstest.TestFS(pack,
		"sections/manifest.toml", "sections/safety.md.tmpl", "sections/identity.md.tmpl",
		"sections/zz_extra.md.tmpl", "sections/aa_first.md.tmpl", "templates/partials.md.tmpl",
		"templates/overlays/gpt5.toml", "templates/overlays/custom.toml", "extras/notes.md"))
}

func TestPackInvalidNames(t *testing.T) {
	pack := Pack(builtinPack(), afero.NewMemMapFs())
	for _, name := range []string{"/sections/safety.md.tmpl", "../x", "sections/../sections/safety.md.tmpl", "", `sections\safety.md.tmpl`} {
		_, err := pack.Open(name)
		if name == `sections\safety.md.tmpl` {
			// A valid fs name holding a backslash; nothing has it.
			assert.ErrorIs(t, err, fs.ErrNotExist, name)
			continue
		}
		assert.ErrorIs(t, err, fs.ErrInvalid, name)
	}
	_, err := pack.Open("sections/missing.md.tmpl")
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestPackNilUser(t *testing.T) {
	pack := Pack(builtinPack(), nil)
	data, err := fs.ReadFile(pack, "sections/safety.md.tmpl")
	require.NoError(t, err)
	assert.Equal(t, "builtin safety", string(data))
	entries, err := fs.ReadDir(pack, "sections")
	require.NoError(t, err)
	assert.Equal(t, []string{"identity.md.tmpl", "manifest.toml", "safety.md.tmpl"}, names(entries))
	require.NoError(t, fstest.TestFS(pack, "sections/manifest.toml", "templates/overlays/gpt5.toml"))
}

func TestPackFileDirectoryClash(t *testing.T) {
	user := afero.NewMemMapFs()
	// The user turns a built-in directory into a file and a built-in file
	// into a directory; the user's side wins both.
	writeFiles(t, user, map[string]string{
		"templates/overlays":               "a file now",
		"sections/safety.md.tmpl/inner.md": "a directory now",
	})
	pack := Pack(builtinPack(), user)

	fi, err := fs.Stat(pack, "templates/overlays")
	require.NoError(t, err)
	assert.False(t, fi.IsDir())
	_, err = fs.ReadDir(pack, "templates/overlays")
	assert.Error(t, err)
	_, err = fs.ReadFile(pack, "templates/overlays/gpt5.toml")
	assert.ErrorIs(t, err, fs.ErrNotExist, "the user's file hides the built-in directory's files too")

	entries, err := fs.ReadDir(pack, "sections/safety.md.tmpl")
	require.NoError(t, err)
	assert.Equal(t, []string{"inner.md"}, names(entries))

	templates, err := fs.ReadDir(pack, "templates")
	require.NoError(t, err)
	require.Equal(t, []string{"overlays", "partials.md.tmpl"}, names(templates))
	assert.False(t, templates[0].IsDir(), "the user's file entry shadows the built-in directory")
}

func TestOSDirSeesEdits(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sections"), 0o755))
	file := filepath.Join(dir, "sections", "safety.md.tmpl")
	require.NoError(t, os.WriteFile(file, []byte("first"), 0o644))

	pack := Pack(builtinPack(), OSDir(dir))
	data, err := fs.ReadFile(pack, "sections/safety.md.tmpl")
	require.NoError(t, err)
	assert.Equal(t, "first", string(data))

	require.NoError(t, os.WriteFile(file, []byte("second, longer"), 0o644))
	data, err = fs.ReadFile(pack, "sections/safety.md.tmpl")
	require.NoError(t, err)
	assert.Equal(t, "second, longer", string(data))

	require.NoError(t, os.Remove(file))
	data, err = fs.ReadFile(pack, "sections/safety.md.tmpl")
	require.NoError(t, err)
	assert.Equal(t, "builtin safety", string(data), "removing the override restores the built-in file")

	assert.Error(t, afero.WriteFile(OSDir(dir), "sections/new.md.tmpl", []byte("x"), 0o644), "OSDir is read-only")
}

// A pack folder may be named relative to the working directory, as the
// folder itself too: a base of "." once hid every user file.
func TestOSDirRelative(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "p", "sections"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "p", "sections", "safety.md.tmpl"), []byte("ours"), 0o644))
	t.Chdir(filepath.Join(dir, "p"))
	for _, name := range []string{".", "./", "../p", filepath.Join(dir, "p")} {
		data, err := fs.ReadFile(Pack(builtinPack(), OSDir(name)), "sections/safety.md.tmpl")
		require.NoError(t, err, name)
		assert.Equal(t, "ours", string(data), name)
	}
}

func TestEject(t *testing.T) {
	src := builtinPack()
	src["sections/empty.md.tmpl"] = &fstest.MapFile{Data: nil}
	src["templates/binary.bin"] = &fstest.MapFile{Data: []byte{0, 1, 2, 0xff, '\r', '\n'}}

	for _, tc := range []struct {
		name  string
		setup func(afero.Fs)
		dir   string
	}{
		{"missing dir", func(afero.Fs) {}, "out/pack"},
		{"existing empty dir", func(fsys afero.Fs) { require.NoError(t, fsys.MkdirAll("out/pack", 0o755)) }, "out/pack"},
		{"trailing slash", func(afero.Fs) {}, "pack/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := afero.NewMemMapFs()
			tc.setup(dst)
			require.NoError(t, Eject(src, dst, tc.dir))
			assertSameTree(t, src, afero.NewIOFS(afero.NewBasePathFs(dst, tc.dir)))

			parent := filepath.Dir(filepath.Clean(tc.dir))
			siblings, err := afero.ReadDir(dst, parent)
			require.NoError(t, err)
			assert.Len(t, siblings, 1, "no temporary directory left behind")
		})
	}
}

func TestEjectOS(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pack")
	src := builtinPack()
	require.NoError(t, Eject(src, afero.NewOsFs(), dir))
	assertSameTree(t, src, os.DirFS(dir))

	again := filepath.Join(t.TempDir(), "existing-empty")
	require.NoError(t, os.Mkdir(again, 0o700))
	require.NoError(t, Eject(src, afero.NewOsFs(), again))
	assertSameTree(t, src, os.DirFS(again))
	err := Eject(src, afero.NewOsFs(), again)
	require.Error(t, err, "now non-empty")
	assert.Contains(t, err.Error(), again)

	fi, err := os.Stat(filepath.Join(dir, "sections", "safety.md.tmpl"))
	require.NoError(t, err)
	assert.Zero(t, fi.Mode().Perm()&^0o644, "files get at most 0644 (less under a umask)")
	assert.Equal(t, fs.FileMode(0o600), fi.Mode().Perm()&0o600)
	di, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o755), di.Mode().Perm(), "chmod, not the temporary directory's 0700")
}

func TestEjectRefuses(t *testing.T) {
	dst := afero.NewMemMapFs()
	writeFiles(t, dst, map[string]string{"full/keep.md": "mine", "file": "x"})

	err := Eject(builtinPack(), dst, "full")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "non-empty directory full")
	entries, err := afero.ReadDir(dst, "full")
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing written")

	err = Eject(builtinPack(), dst, "file")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a directory")

	assert.Error(t, Eject(builtinPack(), dst, ""))
}

func TestEjectLeavesNothingOnError(t *testing.T) {
	broken := failingFS{FS: builtinPack(), fail: "sections/safety.md.tmpl"}
	dst := afero.NewMemMapFs()
	err := Eject(broken, dst, "out")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sections/safety.md.tmpl")
	entries, err := afero.ReadDir(dst, ".")
	require.NoError(t, err)
	assert.Empty(t, entries, "neither the target nor a temporary directory is left")
}

// failingFS fails to open one file.
type failingFS struct {
	fs.FS
	fail string
}

func (f failingFS) Open(name string) (fs.File, error) {
	if name == f.fail {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return f.FS.Open(name)
}

// assertSameTree compares the regular files of two trees byte for byte.
func assertSameTree(t *testing.T, want, got fs.FS) {
	t.Helper()
	collect := func(fsys fs.FS) map[string]string {
		files := map[string]string{}
		require.NoError(t, fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := fs.ReadFile(fsys, name)
			files[name] = string(data)
			return err
		}))
		return files
	}
	assert.Equal(t, collect(want), collect(got))
}

// Eject with names writes those files only, once each; a name that is not
// a file of the pack leaves nothing behind.
func TestEjectNamedFiles(t *testing.T) {
	src := builtinPack()
	dst := afero.NewMemMapFs()
	require.NoError(t, Eject(src, dst, "one", "sections/safety.md.tmpl", "templates/overlays/gpt5.toml", "sections/safety.md.tmpl"))
	assertSameTree(t, fstest.MapFS{
		"sections/safety.md.tmpl":      src["sections/safety.md.tmpl"],
		"templates/overlays/gpt5.toml": src["templates/overlays/gpt5.toml"],
	}, afero.NewIOFS(afero.NewBasePathFs(dst, "one")))

	for _, bad := range []string{"sections/nope.md.tmpl", "sections", "../etc/passwd", "/sections/safety.md.tmpl"} {
		dst := afero.NewMemMapFs()
		err := Eject(src, dst, "two", "sections/safety.md.tmpl", bad)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), bad+" is not a file of the pack")
		entries, err := afero.ReadDir(dst, ".")
		require.NoError(t, err)
		assert.Empty(t, entries, "%s: nothing written", bad)
	}
}
