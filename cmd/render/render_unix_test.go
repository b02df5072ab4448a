//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A signal in the middle of a bootstrap hook ends a one-shot render with
// an error, and the hook with it: the hook runs in a process group of its
// own, which a Ctrl-C at the terminal does not reach, so before render
// handled the signal the hook ran on, past its timeout, after render died.
func TestRenderSignalEndsItsHook(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pid")
			hook := "echo $$ > " + pidFile + ".tmp; mv " + pidFile + ".tmp " + pidFile + "; exec sleep 300"
			// "render" is this test binary, put on $PATH by TestMain.
			cmd := exec.Command("render", "-workspace", "../../examples/workspace",
				"-request", "../../examples/requests/direct.toml", "-hook", hook)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			exited := start(t, cmd)
			var pid int
			require.Eventually(t, func() bool {
				b, err := os.ReadFile(pidFile)
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				return err == nil && pid > 0
			}, 30*time.Second, 10*time.Millisecond, "the hook never ran")
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })

			require.NoError(t, cmd.Process.Signal(sig))
			err := <-exited
			exited <- err // for start's cleanup
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "render ended by %v, not with a status", err)
			assert.Equal(t, exitFail, exit.ExitCode())
			assert.Equal(t, "render: interrupted\n", stderr.String())
			// render waits for the hook it killed: nothing is left, not even a zombie.
			assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the hook outlived render")
		})
	}
}
