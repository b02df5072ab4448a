package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOutputTargets(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }

	// A symlink is followed: the file it points to is replaced and the
	// link stays a link.
	require.NoError(t, os.WriteFile(p("target.md"), []byte("old"), 0o640))
	require.NoError(t, os.Symlink("target.md", p("link.md")))
	code, _, errOut := cli("-mode", "none", "-o", p("link.md"))
	require.Equal(t, 0, code, errOut)
	got, err := os.ReadFile(p("target.md"))
	require.NoError(t, err)
	assert.Contains(t, string(got), "OpenClaw")
	info, err := os.Lstat(p("link.md"))
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&os.ModeSymlink, "the link is still a link")
	info, err = os.Stat(p("target.md"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), info.Mode().Perm(), "the replaced file keeps its mode")

	// A directory, or a missing parent, is refused naming the -o path.
	require.NoError(t, os.Mkdir(p("outdir"), 0o755))
	code, _, errOut = cli("-mode", "none", "-o", p("outdir"))
	assert.Equal(t, 1, code)
	assert.Equal(t, "render: -o "+p("outdir")+": not a regular file (directory); render writes only a regular file or a new name\n", errOut)
	code, _, errOut = cli("-mode", "none", "-o", p("nodir/x.md"))
	assert.Equal(t, 1, code)
	assert.Equal(t, "render: -o "+p("nodir/x.md")+": no such file or directory\n", errOut)

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"link.md", "outdir", "target.md"}, names, "no temporary file left behind")
}

// TestOutputRefusesReadOnly: the rename -o writes with would replace a file
// whatever its mode; one without write permission is left alone, even for
// root, and through a symlink.
func TestOutputRefusesReadOnly(t *testing.T) {
	for _, mode := range []os.FileMode{0o444, 0o400, 0o000} {
		t.Run(mode.String(), func(t *testing.T) {
			dir := t.TempDir()
			p := func(name string) string { return filepath.Join(dir, name) }
			require.NoError(t, os.WriteFile(p("kept.md"), []byte("old"), 0o644))
			require.NoError(t, os.Chmod(p("kept.md"), mode))
			require.NoError(t, os.Symlink("kept.md", p("link.md")))

			code, stdout, errOut := cli("-mode", "none", "-o", p("kept.md"))
			assert.Equal(t, 1, code)
			assert.Empty(t, stdout)
			assert.Equal(t, fmt.Sprintf("render: -o %s: is read-only (mode %04o); not replacing it\n", p("kept.md"), mode), errOut)

			code, _, errOut = cli("-mode", "none", "-o", p("link.md"))
			assert.Equal(t, 1, code)
			assert.Equal(t, fmt.Sprintf("render: -o %s: its target %s is read-only (mode %04o); not replacing it\n", p("link.md"), p("kept.md"), mode), errOut)

			got, err := os.ReadFile(p("kept.md"))
			require.NoError(t, err)
			assert.Equal(t, "old", string(got))
			info, err := os.Stat(p("kept.md"))
			require.NoError(t, err)
			assert.Equal(t, mode, info.Mode().Perm())
			assert.Equal(t, []string{"kept.md", "link.md"}, dirNames(t, dir), "no temporary file left behind")
		})
	}

	// Any write bit will do: the owner's is not needed to replace a file.
	dir := t.TempDir()
	out := filepath.Join(dir, "group.md")
	require.NoError(t, os.WriteFile(out, []byte("old"), 0o644))
	require.NoError(t, os.Chmod(out, 0o460))
	code, _, errOut := cli("-mode", "none", "-o", out)
	require.Equal(t, 0, code, errOut)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(got), "OpenClaw")
}
