//go:build unix

package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWatchSignalEndsAStuckRender runs the real command, its first render
// stuck reading a request that is a named pipe nobody writes to (a read
// no context can cancel), and checks that one SIGINT or SIGTERM ends it
// with status 0.
func TestWatchSignalEndsAStuckRender(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			fifo := filepath.Join(t.TempDir(), "request.toml")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			// "render" is this test binary, put on $PATH by TestMain.
			cmd := exec.Command("render", "watch", "-request", fifo)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			exited := start(t, cmd)

			// Opening the write end without blocking succeeds once watch
			// has the pipe open for its render (after it set up its signal
			// handling). Kept open and never written, the read then waits.
			var w *os.File
			require.Eventually(t, func() bool {
				f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
				w = f
				return err == nil
			}, 30*time.Second, 10*time.Millisecond, "watch never opened the request")
			defer w.Close()

			require.NoError(t, cmd.Process.Signal(sig))
			select {
			case err := <-exited:
				exited <- err // for the cleanup
				require.NoError(t, err, "stderr: %s", stderr.String())
			case <-time.After(5 * time.Second):
				t.Fatalf("watch still running 5 s after %v; stderr: %s", sig, stderr.String())
			}
			assert.Empty(t, stdout.String())
			assert.Empty(t, stderr.String())
		})
	}
}

// render watch renders again soon after a skill is added to the user's
// own skills folder, outside the workspace: it watches every skills folder
// a render read. Within the one second users expect, measured; the bound
// asserted is a generous one, not a speed check.
func TestWatchSeesASkillOutsideTheWorkspace(t *testing.T) {
	home := t.TempDir()
	userSkills := filepath.Join(home, ".agents", "skills")
	require.NoError(t, os.MkdirAll(userSkills, 0o755))
	cmd := exec.Command("render", "watch", "-workspace", copyExampleWorkspace(t, "ws"), "-request", "../../examples/requests/direct.toml")
	cmd.Env = append(os.Environ(), "HOME="+home)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() {
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
	}()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	waitLine := func(want string) time.Time {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			select {
			case line, ok := <-lines:
				require.True(t, ok, "watch ended before printing %q", want)
				if strings.Contains(line, want) {
					return time.Now()
				}
			case <-timeout:
				t.Fatalf("watch never printed %q", want)
			}
		}
	}
	waitLine("[watch] rendered:")
	skill := filepath.Join(userSkills, "late", "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(skill), 0o755))
	written := time.Now()
	require.NoError(t, os.WriteFile(skill, []byte("---\nname: late\ndescription: added while watching\n---\nbody\n"), 0o644))
	shown := waitLine("~/.agents/skills/late/SKILL.md")
	t.Logf("re-rendered %v after the edit", shown.Sub(written).Round(time.Millisecond))
}

// start starts cmd and returns the channel its Wait's result arrives on;
// a test that takes the result puts it back. The process is killed at the
// end of the test if it is still running, so a failing test leaves
// nothing behind.
func start(t *testing.T, cmd *exec.Cmd) chan error {
	t.Helper()
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
	})
	return exited
}

// A watch whose output goes to a file in the workspace (render watch
// -workspace . > prompt.md) settles: its own writes are not changes.
// Nothing is edited after the start; five renders are four too many.
func TestWatchIgnoresItsOwnOutput(t *testing.T) {
	ws := copyExampleWorkspace(t, "ws")
	out, err := os.Create(filepath.Join(ws, "prompt.md"))
	require.NoError(t, err)
	defer out.Close()
	// "render" is this test binary, put on $PATH by TestMain.
	cmd := exec.Command("render", "watch", "-workspace", ws, "-request", "../../examples/requests/direct.toml")
	cmd.Stdout = out
	start(t, cmd)
	defer cmd.Process.Signal(syscall.SIGINT)
	deadline := time.Now().Add(3 * time.Second) // looping, it passes 5 within a second
	renders := 0
	for time.Now().Before(deadline) && renders < 5 {
		b, _ := os.ReadFile(filepath.Join(ws, "prompt.md"))
		renders = strings.Count(string(b), "\n[watch] ") + strings.Count(string(b[:min(len(b), 8)]), "[watch] ")
		time.Sleep(50 * time.Millisecond)
	}
	assert.Less(t, renders, 5, "watch rendered %d times with nothing edited", renders)
}

// An edit behind a symlinked -request, -config or templates/overlays
// wakes the watch: each is watched where its target is too.
func TestWatchSeesEditsBehindSymlinks(t *testing.T) {
	for _, tc := range []struct{ name, link, target string }{
		{"request", "turn.toml", "real/turn.toml"},
		{"config", "agents.toml", "real/agents.toml"},
		{"overlays", "pack/templates/overlays", "real/overlays"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "pack", "templates"), 0o755))
			target := filepath.Join(dir, tc.target)
			edited := target
			if tc.name == "overlays" {
				require.NoError(t, os.MkdirAll(target, 0o755))
				edited = filepath.Join(target, "mark.toml")
			} else {
				require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
			}
			require.NoError(t, os.WriteFile(edited, []byte("# one\n"), 0o644))
			require.NoError(t, os.Symlink(target, filepath.Join(dir, tc.link)))

			w, changed := collectingWatch(t)
			c := &common{pack: filepath.Join(dir, "pack")}
			switch tc.name {
			case "request":
				c.request = filepath.Join(dir, tc.link)
			case "config":
				c.config = filepath.Join(dir, tc.link)
			}
			watchTargets(w, c)
			require.NoError(t, os.WriteFile(edited, []byte("# two\n"), 0o644))
			select {
			case <-changed:
			case <-time.After(5 * time.Second):
				t.Fatalf("no change was seen for an edit to %s behind the symlink %s", tc.target, tc.link)
			}
		})
	}
}
