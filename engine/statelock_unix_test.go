//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/host"
)

// A state file whose lock another process holds costs a render about a
// second, not the prompt: the notice shows, nothing is recorded, and the
// result says why.
func TestRenderWithTheStateLockHeld(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out a held lock")
	}
	path := filepath.Join(t.TempDir(), "seen.json")
	lock, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	defer lock.Close()
	require.NoError(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_EX))

	ws := workspaceFS(t, map[string]string{"AGENTS.md": strings.Repeat("a", 3000)})
	store := host.NewFileStore(afero.NewOsFs(), path, nil)
	e, err := engine.New(packWith(t, nil), engine.WithFS(ws), engine.WithWarningStore(store), onceConfig(t, ""))
	require.NoError(t, err)
	start := time.Now()
	res, err := e.Render(context.Background(), engine.Request{Workspace: engine.Workspace{Path: "/ws"}})
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Contains(t, res.Layers[0].Dynamic, "## Bootstrap Context Notice")
	require.NotEmpty(t, res.Warnings)
	var se *host.StateError
	require.ErrorAs(t, res.Warnings[0], &se)
	assert.Equal(t, "lock", se.Op)
	assert.ErrorContains(t, se, "still held by another store after 1s")
	_, err = os.Stat(path)
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing written without the lock")
}
