//go:build linux

package host

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
)

// statOf returns the state letter and ppid of pid, or ok=false when gone.
func statOf(pid int) (state byte, ppid int, ok bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	f := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
	ppid, _ = strconv.Atoi(string(f[1]))
	return f[0][0], ppid, true
}

// A hook's background child that has exited by the time the hook does is
// handed to this process (the subreaper) as a zombie; it is reaped, not
// left behind one per run for the life of a render serve.
func TestHookReapsItsZombieChild(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	// The inner sh starts `sleep 0.3` in the background and exits: the
	// sleep becomes ours. The hook waits until it is a zombie, then answers.
	// (Should the inner sh outlast the sleep and reap it, the loop ends
	// on the stat file being gone, and the test passes vacuously.)
	command := "sh -c 'sleep 0.3 & echo $! > " + pidFile + "'; pid=$(cat " + pidFile + "); " +
		`while s=$(cut -d' ' -f3 /proc/$pid/stat 2>/dev/null) && [ "$s" != Z ]; do sleep 0.01; done; echo '{"files": []}'`
	_, err := CommandHook(command, 0)(context.Background(), bootstrap.Event{})
	require.NoError(t, err)
	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	state, ppid, ok := statOf(pid)
	assert.False(t, ok && ppid == os.Getpid(),
		"the hook's child %d is still a child of this process (state %c): a zombie never reaped", pid, state)
}
