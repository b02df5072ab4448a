//go:build linux

package host

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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

// A chain of processes, each starting the next in a session of its own,
// is ended link by link once the hook is done.
func TestHookEndsALongSetsidChain(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "chain.sh")
	// chain.sh N: start chain.sh N-1 in a session of its own, then sleep;
	// the last one writes its pid.
	require.NoError(t, os.WriteFile(script, []byte(`n=$1
echo $$ >> `+dir+`/all
if [ "$n" -gt 0 ]; then
  setsid sh `+script+` $((n-1)) </dev/null >/dev/null 2>&1 &
else
  echo $$ > `+dir+`/last.tmp; mv `+dir+`/last.tmp `+dir+`/last
fi
exec sleep 300
`), 0o755))
	depth := 20 // one link a round
	command := fmt.Sprintf("setsid sh %s %d </dev/null >/dev/null 2>&1 & while [ ! -s %s/last ]; do sleep 0.01; done; echo '{\"files\": []}'",
		script, depth, dir)
	_, err := CommandHook(command, 0)(context.Background(), bootstrap.Event{})
	require.NoError(t, err)
	last := readPID(t, filepath.Join(dir, "last"))
	// Clean up the rest of the chain, by pid, whatever happens.
	t.Cleanup(func() {
		b, _ := os.ReadFile(filepath.Join(dir, "all"))
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	assert.True(t, gone(last), "the last of a %d-deep setsid chain (%d) outlived the hook", depth, last)
}
