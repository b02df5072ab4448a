//go:build unix

package bootstrap

import (
	"os/exec"
	"syscall"
)

// killGroup runs cmd in its own process group and makes cancellation kill
// the whole group, so "sh -c 'sleep 5'" does not leave sleep running.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
