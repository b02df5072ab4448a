//go:build unix

package skills

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDiscoverRefusesNamedPipe: a FIFO named SKILL.md is reported and not
// loaded, without being opened (nothing writes to it, so a read would
// block discovery forever).
func TestDiscoverRefusesNamedPipe(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "skills", "good", "SKILL.md"), skillMD("name: good"))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "skills", "piped"), 0o755))
	if err := syscall.Mkfifo(filepath.Join(dir, "skills", "piped", "SKILL.md"), 0o644); err != nil {
		t.Skipf("mkfifo unsupported: %v", err)
	}
	found := discoverWithin(t, []Root{diskRoot(t, dir)})
	assert.Equal(t, []string{"good"}, names(found.Skills))
	assert.Empty(t, found.Skipped)
	assert.Equal(t, []Problem{{Path: dir + "/skills/piped/SKILL.md", Message: "not a regular file"}}, found.Problems)
}
