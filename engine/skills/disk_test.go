package skills

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/vfs"
)

// diskRoot opens dir on the real disk (the os.Root backend) as a
// workspace root with the skills in its skills/ folder.
func diskRoot(t *testing.T, dir string) Root {
	t.Helper()
	ws := vfs.OpenWorkspace(vfs.OS(), dir)
	t.Cleanup(func() { ws.Close() })
	return Root{Source: Workspace, Files: ws, Dir: "skills", Display: dir + "/skills"}
}

func writeFile(t *testing.T, name, body string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(name), 0o755))
	require.NoError(t, os.WriteFile(name, []byte(body), 0o644))
}

func symlinkOrSkip(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unsupported: %v", err)
	}
}

// discoverWithin runs Discover and fails the test if it has not returned
// within 5 s: a blocking read (a FIFO) must not hang a render.
func discoverWithin(t *testing.T, roots []Root) Found {
	t.Helper()
	type outcome struct {
		found Found
		err   error
	}
	done := make(chan outcome, 1)
	go func() {
		found, err := Discover(context.Background(), roots, Options{})
		done <- outcome{found, err}
	}()
	select {
	case o := <-done:
		require.NoError(t, o.err)
		return o.found
	case <-time.After(5 * time.Second):
		t.Fatal("Discover did not return within 5 s")
		return Found{}
	}
}

// TestDiscoverRefusesSkillsFolderLinkedOutside: a workspace's skills/ that
// is itself a symlink out of the workspace is not searched, however valid
// the skills it leads to; one that stays inside is.
func TestDiscoverRefusesSkillsFolderLinkedOutside(t *testing.T) {
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "evil", "SKILL.md"), skillMD("name: evil", "description: planted outside"))

	for _, relative := range []bool{false, true} {
		name := "absolute link"
		if relative {
			name = "relative link"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			target := outside
			if relative {
				var err error
				target, err = filepath.Rel(dir, outside)
				require.NoError(t, err)
			}
			symlinkOrSkip(t, target, filepath.Join(dir, "skills"))
			found := discoverWithin(t, []Root{diskRoot(t, dir)})
			assert.Empty(t, found.Skills)
			assert.Empty(t, found.Skipped)
			assert.Equal(t, []Problem{{Path: dir + "/skills",
				Message: "skills folder refused: symlink points outside the workspace"}}, found.Problems)
		})
	}

	t.Run("link inside the workspace", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "shared", "good", "SKILL.md"), skillMD("name: good"))
		symlinkOrSkip(t, "shared", filepath.Join(dir, "skills"))
		found := discoverWithin(t, []Root{diskRoot(t, dir)})
		assert.Equal(t, []string{"good"}, names(found.Skills))
		assert.Empty(t, found.Problems)
	})
}

// TestDiscoverDoesNotFollowSymlinksOnDisk: below the skills folder, a
// linked skill folder or SKILL.md is reported, never followed, whether it
// leads in or out of the workspace.
func TestDiscoverDoesNotFollowSymlinksOnDisk(t *testing.T) {
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "evil", "SKILL.md"), skillMD("name: evil"))
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "skills", "real", "SKILL.md"), skillMD("name: real"))
	symlinkOrSkip(t, filepath.Join(outside, "evil"), filepath.Join(dir, "skills", "evil-dir"))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "skills", "evil-file"), 0o755))
	symlinkOrSkip(t, filepath.Join(outside, "evil", "SKILL.md"), filepath.Join(dir, "skills", "evil-file", "SKILL.md"))
	symlinkOrSkip(t, "real", filepath.Join(dir, "skills", "alias"))

	found := discoverWithin(t, []Root{diskRoot(t, dir)})
	assert.Equal(t, []string{"real"}, names(found.Skills))
	assert.Equal(t, []Problem{
		{Path: dir + "/skills/alias", Message: "symlink not followed"},
		{Path: dir + "/skills/evil-dir", Message: "symlink not followed"},
		{Path: dir + "/skills/evil-file/SKILL.md", Message: "symlink not followed"},
	}, found.Problems)
}
