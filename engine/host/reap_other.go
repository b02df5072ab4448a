//go:build !linux

package host

import "os/exec"

// markRun does nothing outside Linux: a process that leaves the hook's
// process group there is not ended (see CommandHook).
func markRun(*exec.Cmd) (endRun func()) { return func() {} }
