package main

import (
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
	assert.Equal(t, "render: -o "+p("outdir")+": is a directory\n", errOut)
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
