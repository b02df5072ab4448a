package vfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Sub answers as afero.BasePathFs does for every name inside the view,
// refuses names that climb out, and never writes.
func TestSubMatchesBasePathFs(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{"skills/a/SKILL.md": "a", "skills/b/notes.txt": "b", "outside.md": "o",
		`skills/a\b/SKILL.md`: "backslash", "skills/c:tools/SKILL.md": "colon"} {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	require.NoError(t, os.Symlink("a", filepath.Join(root, "skills", "link")))

	osFs := afero.NewOsFs()
	mem := afero.NewMemMapFs()
	require.NoError(t, afero.WriteFile(mem, "/ws/skills/a/SKILL.md", []byte("a"), 0o644))
	require.NoError(t, afero.WriteFile(mem, "/ws/skills/b/notes.txt", []byte("b"), 0o644))
	require.NoError(t, afero.WriteFile(mem, `/ws/skills/a\b/SKILL.md`, []byte("backslash"), 0o644))
	require.NoError(t, afero.WriteFile(mem, "/ws/skills/c:tools/SKILL.md", []byte("colon"), 0o644))

	for _, c := range []struct {
		fsys afero.Fs
		dir  string
	}{{osFs, root}, {mem, "/ws"}, {mem, "/ws/"}} {
		sub, base := Sub(c.fsys, c.dir), afero.NewBasePathFs(c.fsys, c.dir)
		for _, name := range []string{"skills", "skills/a/SKILL.md", "skills/missing", "skills/link", ".", "", "/skills/a",
			"skills/./a/../a/SKILL.md", "//skills", `skills/a\b/SKILL.md`, "skills/c:tools/SKILL.md"} {
			want, wantErr := base.Stat(name)
			got, err := sub.Stat(name)
			require.Equal(t, wantErr == nil, err == nil, "Stat(%q) in %s: %v vs %v", name, c.dir, err, wantErr)
			if err == nil {
				assert.Equal(t, want.Mode(), got.Mode(), name)
				assert.Equal(t, want.Size(), got.Size(), name)
			}
			wantL, _, _ := base.(afero.Lstater).LstatIfPossible(name)
			gotL, _, err := sub.(afero.Lstater).LstatIfPossible(name)
			if wantL != nil {
				require.NoError(t, err)
				assert.Equal(t, wantL.Mode(), gotL.Mode(), "Lstat(%q)", name)
			}
		}
		f, err := sub.Open("skills")
		require.NoError(t, err)
		names, err := f.Readdirnames(-1)
		require.NoError(t, err)
		require.NoError(t, f.Close())
		assert.Subset(t, names, []string{"a", "b"})

		for _, name := range []string{"../outside.md", "skills/../../outside.md", "/../outside.md"} {
			_, err := sub.Stat(name)
			assert.ErrorIs(t, err, fs.ErrNotExist, "%q must not be reachable", name)
		}
		for _, write := range []error{
			func() error { _, err := sub.Create("x"); return err }(),
			func() error { _, err := sub.OpenFile("x", os.O_CREATE|os.O_WRONLY, 0o644); return err }(),
			sub.Mkdir("d", 0o755), sub.MkdirAll("d/e", 0o755), sub.Remove("skills"), sub.RemoveAll("skills"),
			sub.Rename("skills", "s"), sub.Chmod("skills", 0o700), sub.Chown("skills", 0, 0),
		} {
			assert.True(t, errors.Is(write, syscall.EPERM), "a write got %v", write)
		}
	}
	target, err := Sub(osFs, root).(afero.LinkReader).ReadlinkIfPossible("skills/link")
	require.NoError(t, err)
	assert.Equal(t, "a", target)
}
