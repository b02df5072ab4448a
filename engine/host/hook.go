package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
)

// DefaultHookTimeout bounds a CommandHook given no timeout.
const DefaultHookTimeout = 10 * time.Second

// Bounds on what a hook command may print, so a runaway command cannot
// exhaust memory.
const (
	maxHookStdout = 1 << 20
	maxHookStderr = 64 << 10
)

// CommandHook returns a Hook that runs command with "sh -c" (so it needs a
// POSIX shell; Windows is not supported). The Event is written to its stdin
// as JSON; it must print the new list to stdout as one JSON object:
//
//	{"files": [{"name": "SOUL.md", "path": "personas/pirate.md"}, {"name": "AGENTS.md"}]}
//
// "path" may be left out to mean the name. Unknown fields, trailing data, a
// missing "files" key, more than 1 MiB of output, a non-zero exit (the error
// quotes the first line of stderr) and running longer than timeout
// (DefaultHookTimeout when timeout <= 0) are errors.
//
// On Unix the command runs in a process group of its own, which is killed
// at the timeout and also as soon as the command exits: a process it left
// running in the background does not outlive it. On Linux neither does one
// that left the group (setsid): while a hook runs, this process is a
// child subreaper, and the run's processes handed to it are ended with
// their groups. Elsewhere such a process is beyond reach.
func CommandHook(command string, timeout time.Duration) bootstrap.Hook {
	if timeout <= 0 {
		timeout = DefaultHookTimeout
	}
	return func(ctx context.Context, ev bootstrap.Event) ([]bootstrap.Entry, error) {
		input, err := json.Marshal(ev)
		if err != nil {
			return nil, fmt.Errorf("bootstrap hook %q: encode event: %w", command, err)
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()

		cmd := exec.CommandContext(ctx, "sh", "-c", command)
		// Should cancelling not end the shell, Wait kills it after this.
		cmd.WaitDelay = time.Second
		stdout := &limitedBuffer{limit: maxHookStdout}
		stderr := &limitedBuffer{limit: maxHookStderr}
		if err := runGroup(cmd, input, stdout, stderr); err != nil {
			if ctxErr := ctx.Err(); errors.Is(ctxErr, context.DeadlineExceeded) {
				return nil, fmt.Errorf("bootstrap hook %q: timed out after %s: %w", command, timeout, ctxErr)
			} else if ctxErr != nil {
				return nil, fmt.Errorf("bootstrap hook %q: %w", command, ctxErr)
			}
			if line := firstLine(stderr.String()); line != "" {
				return nil, fmt.Errorf("bootstrap hook %q: %w: %s", command, err, line)
			}
			return nil, fmt.Errorf("bootstrap hook %q: %w", command, err)
		}
		if stdout.overflow {
			return nil, fmt.Errorf("bootstrap hook %q: output exceeds %d bytes", command, maxHookStdout)
		}
		files, err := parseHookOutput(stdout.Bytes())
		if err != nil {
			return nil, fmt.Errorf("bootstrap hook %q: %w", command, err)
		}
		return files, nil
	}
}

// running counts the hooks in flight, so that a program about to exit
// can let them end what they started (AwaitHooks).
var running struct {
	sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0; nil while it is 0
}

func hookStarted() {
	running.Lock()
	if running.n++; running.n == 1 {
		running.idle = make(chan struct{})
	}
	running.Unlock()
}

func hookEnded() {
	running.Lock()
	if running.n--; running.n == 0 {
		close(running.idle)
		running.idle = nil
	}
	running.Unlock()
}

// AwaitHooks waits, at most for timeout, until no command hook is running,
// and reports whether none is. A hook whose context has ended kills its
// process group and, on Linux, what left the group, before it returns: a
// program that ends on a signal cancels its renders and calls this first,
// so that nothing a hook started outlives it.
func AwaitHooks(timeout time.Duration) bool {
	running.Lock()
	idle := running.idle
	running.Unlock()
	if idle == nil {
		return true
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-idle:
		return true
	case <-t.C:
		return false
	}
}

// pipeGrace bounds how long runGroup goes on reading after the hook and
// its process group are gone, for a process that left the group and still
// holds a pipe.
const pipeGrace = time.Second

// runGroup runs cmd with input on its stdin and copies its stdout and
// stderr to the writers. Once cmd has exited, or been cancelled, what is
// left of its process group is killed: a background child that inherited
// stdout would otherwise keep the read, and itself, going long after the
// hook is done.
//
// It makes the pipes itself: with exec's, Wait returns only once the
// reads are done, which leaves no moment to kill the group between the
// shell's exit and the end of the reads.
func runGroup(cmd *exec.Cmd, input []byte, stdout, stderr io.Writer) error {
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	inGroup(cmd)
	hookStarted()
	endRun := markRun(cmd)
	err = cmd.Start()
	// The hook has its own copies of these now; with the parent's closed,
	// the reads below end when the last process holding them does.
	closeAll(inR, outW, errW)
	if err != nil {
		endRun()
		hookEnded()
		closeAll(inW, outR, errR)
		return err
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		inW.Write(input) // a hook need not read the event: EPIPE is fine
		inW.Close()
	})
	wg.Go(func() { io.Copy(stdout, outR) })
	wg.Go(func() { io.Copy(stderr, errR) })

	err = cmd.Wait()
	killGroup(cmd)
	endRun()
	hookEnded()
	read := make(chan struct{})
	go func() {
		wg.Wait()
		close(read)
	}()
	select {
	case <-read:
	case <-time.After(pipeGrace):
		// Something outside the group holds a pipe: stop reading, as
		// Wait's WaitDelay does for exec's own pipes.
		closeAll(inW, outR, errR)
		<-read
	}
	closeAll(outR, errR)
	return err
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// parseHookOutput decodes {"files": [...]} strictly.
func parseHookOutput(out []byte) ([]bootstrap.Entry, error) {
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, errors.New(`printed nothing; expected {"files": [...]}`)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	var doc struct {
		Files *[]bootstrap.Entry `json:"files"`
	}
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf(`bad output (expected {"files": [...]}): %w`, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("bad output: data after the JSON object")
	}
	if doc.Files == nil {
		return nil, errors.New(`bad output: missing "files"`)
	}
	return *doc.Files, nil
}

// firstLine returns the first non-blank line of s, trimmed.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

// limitedBuffer keeps the first limit bytes written and notes any excess;
// it never fails a write, so the command is not killed by a broken pipe.
// It wraps rather than embeds bytes.Buffer, whose ReadFrom would let
// io.Copy bypass the limit.
type limitedBuffer struct {
	buf      bytes.Buffer
	limit    int
	overflow bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.buf.Len(); len(p) > room {
		b.overflow = true
		b.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *limitedBuffer) Bytes() []byte  { return b.buf.Bytes() }
func (b *limitedBuffer) String() string { return b.buf.String() }
