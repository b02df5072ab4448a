//go:build unix

package host

import (
	"os/exec"
	"syscall"
)

// inGroup runs cmd in a process group of its own and makes cancellation
// kill the whole group, so "sh -c 'sleep 5'" does not leave sleep running.
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
}

// killGroup kills every process in cmd's group. The group's id is the
// shell's pid, which is not reused while any process of the group lives,
// so this reaches no one else even once the shell has been waited for.
func killGroup(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
