//go:build unix

package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
)

// TestCommandHookEndsItsProcessGroup: whatever a hook leaves running in the
// background, holding its stdout, is killed once the hook exits or times
// out, and the call returns promptly with the hook's own outcome.
func TestCommandHookEndsItsProcessGroup(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	tests := []struct {
		name    string
		script  string // $PIDFILE: where the child's pid goes
		timeout time.Duration
		want    []bootstrap.Entry
		wantErr error
	}{
		{
			name:   "child left behind after exit",
			script: `sleep 100 & echo $! > "$PIDFILE"; echo '{"files": [{"name": "SOUL.md"}]}'`,
			want:   []bootstrap.Entry{{Name: "SOUL.md"}},
		},
		{
			name:    "hook and child past the timeout",
			script:  `sleep 100 & echo $! > "$PIDFILE"; sleep 100`,
			timeout: time.Second, // time enough to write the pid, however busy the machine
			wantErr: context.DeadlineExceeded,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pid")
			command := "PIDFILE=" + pidFile + "; " + tt.script

			start := time.Now()
			got, err := CommandHook(command, tt.timeout)(context.Background(), bootstrap.Event{})
			elapsed := time.Since(start)
			pid := readPID(t, pidFile)

			assert.Less(t, elapsed, 5*time.Second, "the call waited for the background child")
			assert.Eventually(t, func() bool { return gone(pid) }, 5*time.Second, 10*time.Millisecond,
				"the background child %d is still running", pid)
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
			} else {
				assert.NoError(t, err)
				assert.Equal(t, tt.want, got)
			}
		})
	}
}

// TestCommandHookChildOutsideTheGroup: a child that left the group with
// setsid, holding stdout, is ended when the hook is done on Linux, along
// with what it started in its own group; elsewhere it only delays the
// call by pipeGrace.
func TestCommandHookChildOutsideTheGroup(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	dir := t.TempDir()
	pidFile, grandFile := filepath.Join(dir, "pid"), filepath.Join(dir, "grandchild")
	command := "setsid sh -c 'sleep 300 & echo $! > " + grandFile + "; echo $$ > " + pidFile + "; exec sleep 300' & " +
		"while [ ! -s " + pidFile + " ]; do sleep 0.01; done; echo '{\"files\": []}'"

	start := time.Now()
	got, err := CommandHook(command, 0)(context.Background(), bootstrap.Event{})
	elapsed := time.Since(start)
	pid, grandchild := readPID(t, pidFile), readPID(t, grandFile)

	require.NoError(t, err)
	assert.Equal(t, []bootstrap.Entry{}, got)
	assert.Less(t, elapsed, pipeGrace+4*time.Second)
	if runtime.GOOS == "linux" {
		assert.True(t, gone(pid), "the setsid child %d outlived the hook", pid)
		assert.True(t, gone(grandchild), "its child %d outlived the hook", grandchild)
		assert.Less(t, elapsed, pipeGrace, "the call waited on the child's pipe")
	}
}

// readPID reads the pid a hook wrote, and kills that process when the
// test ends, so a failing run leaves nothing behind.
func readPID(t *testing.T, name string) int {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err, "the hook wrote no pid")
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

// gone reports whether process pid has ended: it no longer exists, or it
// is a zombie that nothing has reaped yet (as an init that does not reap
// orphans, in some containers, leaves them).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// "pid (comm) state ...": comm may hold spaces and parentheses.
	_, rest, ok := bytes.Cut(stat[bytes.LastIndexByte(stat, ')')+1:], []byte(" "))
	return ok && len(rest) > 0 && rest[0] == 'Z'
}
