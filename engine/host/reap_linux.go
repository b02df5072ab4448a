package host

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// A hook's orphans, on Linux. While a hook runs this process is a child
// subreaper, so a descendant that leaves the hook's process group (with
// setsid) and outlives its parent is handed to us rather than to init.
// Once the hook is done, every child of ours whose environment carries
// the run's mark is killed with its process group, and reaped with what
// it leaves, round after round until none is left.

// hookRunVar marks the environment of a hook run's processes.
const hookRunVar = "SYSPROMPT_HOOK_RUN"

// maxReapRounds bounds the rounds: each ends a generation of escapees (a
// chain of setsid processes takes one round a link), and a round that
// finds none ends the reaping.
const maxReapRounds = 256

// subreaper counts the hooks running, across goroutines: the process is
// a subreaper while any runs.
var subreaper struct {
	sync.Mutex
	hooks int
}

// markRun marks cmd's environment and makes this process a subreaper
// until the returned function, called once cmd has been waited for, has
// ended whatever of the run is left.
func markRun(cmd *exec.Cmd) (endRun func()) {
	mark := []byte(fmt.Sprintf("%s=%d-%d", hookRunVar, os.Getpid(), rand.Uint64()))
	cmd.Env = append(cmd.Environ(), string(mark))
	subreaper.Lock()
	if subreaper.hooks++; subreaper.hooks == 1 {
		unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	}
	subreaper.Unlock()
	return func() {
		killed := map[int]bool{} // process groups
		if cmd.Process != nil {
			// The hook's own group, killed by the runner already: a child
			// of it that exited after its parent is our zombie to reap.
			killed[cmd.Process.Pid] = true
		}
		for range maxReapRounds {
			found := false
			for _, c := range children() {
				switch {
				case killed[c.group]:
					// Killed with its group, maybe still dying: a dying
					// process's environment may no longer read.
				case !c.zombie && c.marked(mark):
					unix.Kill(-c.group, unix.SIGKILL)
					killed[c.group] = true
				default:
					continue
				}
				unix.Kill(c.pid, unix.SIGKILL) // nothing to a zombie
				unix.Wait4(c.pid, nil, 0, nil)
				found = true
			}
			if !found {
				break
			}
		}
		subreaper.Lock()
		if subreaper.hooks--; subreaper.hooks == 0 {
			unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
		}
		subreaper.Unlock()
	}
}

// child is one child process of ours, as /proc shows it.
type child struct {
	pid, group int
	zombie     bool
}

func (c child) marked(mark []byte) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(c.pid) + "/environ")
	return err == nil && bytes.Contains(append([]byte{0}, env...), append(append([]byte{0}, mark...), 0))
}

// children lists this process's children.
func children() []child {
	self := os.Getpid()
	entries, _ := os.ReadDir("/proc")
	var out []child
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// "pid (comm) state ppid pgrp ...": comm may hold spaces and
		// parentheses.
		f := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(string(f[1]))
		group, _ := strconv.Atoi(string(f[2]))
		if ppid == self {
			out = append(out, child{pid: pid, group: group, zombie: string(f[0]) == "Z"})
		}
	}
	return out
}
