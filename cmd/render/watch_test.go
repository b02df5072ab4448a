package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/host"
)

// syncBuffer lets the test read output while the loop writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestWatchLoop(t *testing.T) {
	e, err := engine.New(sysprompt.Pack)
	require.NoError(t, err)
	// Each render takes the next request; a nil entry fails.
	reqs := []*engine.Request{
		{Timezone: "Europe/Lisbon", Runtime: engine.Runtime{Host: "one"}},
		{Timezone: "Europe/Lisbon", Runtime: engine.Runtime{Host: "two"}},
		nil,
		{Timezone: "Asia/Kolkata", Runtime: engine.Runtime{Host: "two"}},
	}
	var mu sync.Mutex
	renders := 0
	renderOnce := func() (*engine.Result, error) {
		mu.Lock()
		defer mu.Unlock()
		req := reqs[renders]
		renders++
		if req == nil {
			return nil, errors.New("sections/x.md.tmpl:3:7: section x: boom")
		}
		return e.Render(context.Background(), *req)
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return renders }

	ctx, cancel := context.WithCancel(context.Background())
	changes := make(chan string)
	var stdout, stderr syncBuffer
	done := make(chan struct{})
	go func() {
		watchLoop(ctx, changes, renderOnce, &stdout, &stderr)
		close(done)
	}()
	waitFor := func(n int) {
		t.Helper()
		require.Eventually(t, func() bool { return count() == n }, 5*time.Second, 10*time.Millisecond)
		time.Sleep(20 * time.Millisecond) // let the loop finish printing
	}
	waitFor(1)
	assert.Contains(t, stdout.String(), "<!-- SYSPROMPT_CACHE_BOUNDARY -->")
	assert.Contains(t, stdout.String(), "\n[watch] rendered:")

	// A burst of saves renders once.
	for range 3 {
		changes <- "request.toml"
	}
	waitFor(2)
	out := stdout.String()
	assert.Contains(t, out, "-Runtime: host=one")
	assert.Contains(t, out, "+Runtime: host=two")
	assert.Contains(t, out, "\n[watch] stable prefix unchanged;")

	// A failing render is reported and watching goes on.
	changes <- "sections/x.md.tmpl"
	waitFor(3)
	assert.Contains(t, stderr.String(), "render: sections/x.md.tmpl:3:7: section x: boom")
	assert.Contains(t, stdout.String(), "\n[watch] render failed; still watching\n")

	// The next good render diffs against the last good one.
	changes <- "request.toml"
	waitFor(4)
	assert.Contains(t, stdout.String(), "\n[watch] stable prefix changed in system layer, section current_time;")

	// A save that changes nothing says so instead of printing an empty diff.
	reqs = append(reqs, reqs[3])
	changes <- "request.toml"
	waitFor(5)
	assert.True(t, strings.HasSuffix(stdout.String(), "\n[watch] prompt unchanged\n"))

	// A tool's schema is not in the prompt, but providers cache it: a
	// change to it is said even when the text stays the same.
	withTool := func(schema string) *engine.Request {
		r := *reqs[3]
		r.Tools = []engine.Tool{{Name: "read", Schema: engine.Schema(schema)}}
		return &r
	}
	reqs = append(reqs, withTool(`{"type":"object"}`), withTool(`{"type":"string"}`))
	changes <- "request.toml"
	waitFor(6)
	assert.Regexp(t, `\n\[watch\] stable prefix changed in system layer, section tooling; tool definitions changed; \+\d+ chars`, stdout.String())
	changes <- "request.toml"
	waitFor(7)
	assert.True(t, strings.HasSuffix(stdout.String(), "\n[watch] prompt unchanged; tool definitions changed\n"), stdout.String())

	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("watch did not stop when its context ended")
	}
	assert.Equal(t, 7, count())
	assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "only the failure went to stderr")

	// After the first prompt, every line is a diff line or a status line,
	// and no status line reads as a diff line.
	_, after, ok := strings.Cut(stdout.String(), "\n[watch] rendered:")
	require.True(t, ok)
	_, after, _ = strings.Cut(after, "\n")
	status := 0
	for _, line := range strings.Split(strings.TrimSuffix(after, "\n"), "\n") {
		if strings.HasPrefix(line, statusPrefix) {
			status++
			continue
		}
		assert.Regexp(t, `^(diff |--- |\+\+\+ |@@ | |-|\+|$)`, line, "a diff line")
		assert.NotRegexp(t, `stable prefix|prompt unchanged|render failed`, line, "a status line that reads as a diff line")
	}
	assert.Equal(t, 6, status, "one status line per later render")
}

// Status lines are coloured only on a terminal; a file gets plain text.
func TestWatchStatusColour(t *testing.T) {
	var b bytes.Buffer
	statusWriter(&b, true)("prompt unchanged")
	statusWriter(&b, false)("prompt unchanged")
	assert.Equal(t, "\x1b[1;36m[watch] prompt unchanged\x1b[0m\n[watch] prompt unchanged\n", b.String())

	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, isTerminal(f), "a regular file")
	assert.False(t, isTerminal(&b), "a buffer")
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		t.Setenv("NO_COLOR", "")
		assert.True(t, isTerminal(tty), "the terminal")
		t.Setenv("NO_COLOR", "1")
		assert.False(t, isTerminal(tty), "NO_COLOR")
	}
}

// TestWatchLoopLeavesAStuckRender: cancelling ends the loop at once even
// while a render ignores the cancellation.
func TestWatchLoopLeavesAStuckRender(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{})
	defer close(release) // lets the abandoned render end
	renderOnce := func() (*engine.Result, error) {
		close(started)
		<-release
		return nil, errors.New("released")
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan struct{})
	go func() { watchLoop(ctx, make(chan string), renderOnce, &stdout, &stderr); close(done) }()
	<-started
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("watch waited for a render that ignores cancellation")
	}
	assert.Empty(t, stdout.String())
	assert.Empty(t, stderr.String())
}

// TestWatchLoopRendersOneAtATime: changes during a render lead to one more
// render once it is done, never to a second one alongside it.
func TestWatchLoopRendersOneAtATime(t *testing.T) {
	e, err := engine.New(sysprompt.Pack)
	require.NoError(t, err)
	release := make(chan struct{})
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	defer unblock()
	var mu sync.Mutex
	renders, inFlight, maxInFlight := 0, 0, 0
	renderOnce := func() (*engine.Result, error) {
		mu.Lock()
		renders++
		first := renders == 1
		inFlight++
		maxInFlight = max(maxInFlight, inFlight)
		mu.Unlock()
		if first {
			<-release
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		return e.Render(context.Background(), engine.Request{Timezone: "Europe/Lisbon"})
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return renders }

	changes, stdout, _ := startWatchLoop(t, renderOnce)
	send := func() {
		t.Helper()
		select {
		case changes <- "request.toml":
		case <-time.After(5 * time.Second):
			t.Fatal("the loop takes no changes while a render runs")
		}
	}
	require.Eventually(t, func() bool { return count() == 1 }, 5*time.Second, time.Millisecond)
	send()
	time.Sleep(3 * debounce) // the change's render is due while the first still runs
	send()
	assert.Equal(t, 1, count(), "no render alongside the running one")
	unblock()
	require.Eventually(t, func() bool { return strings.Contains(stdout.String(), "[watch] prompt unchanged") }, 5*time.Second, time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 1, maxInFlight)
}

// TestWatchLoopRaisesARenderPanic: a panic in the render's goroutine reaches
// the loop's caller (run recovers it) instead of crashing the process.
func TestWatchLoopRaisesARenderPanic(t *testing.T) {
	renderOnce := func() (*engine.Result, error) { panic("boom") }
	var stdout, stderr syncBuffer
	assert.PanicsWithValue(t, "boom", func() {
		watchLoop(context.Background(), make(chan string), renderOnce, &stdout, &stderr)
	})
}

// watch applies -set to the request it re-reads on every change.
func TestWatchRenderAppliesSet(t *testing.T) {
	dir := writeFiles(t, map[string]string{"turn.toml": "[runtime]\nhost = \"box\"\n"})
	w, err := host.NewWatch(func(string) {})
	require.NoError(t, err)
	defer w.Close()
	c := common{request: filepath.Join(dir, "turn.toml"), sets: []string{"runtime.host=other"}, preview: true}
	r := watchRenderer{w: w}
	res, err := r.render(context.Background(), &c, strings.NewReader(""))
	require.NoError(t, err)
	assert.Contains(t, promptText(res), "host=other")
	assert.NotContains(t, promptText(res), "host=box")
}

// watch wakes for an edit in a pack folder that is a symlink to a folder
// kept elsewhere, as the pack is read through it.
func TestWatchTargetsALinkedPackFolder(t *testing.T) {
	dir := t.TempDir()
	pack, shared := filepath.Join(dir, "pack"), filepath.Join(dir, "shared")
	require.NoError(t, os.MkdirAll(pack, 0o755))
	require.NoError(t, os.MkdirAll(shared, 0o755))
	if os.Symlink(shared, filepath.Join(pack, "sections")) != nil {
		t.Skip("no symlinks here")
	}
	w, changed := collectingWatch(t)
	watchTargets(w, &common{pack: pack})
	require.NoError(t, os.WriteFile(filepath.Join(shared, "a.md.tmpl"), []byte("x"), 0o644))
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no change was seen")
	}
}

// A -pack folder removed while watch runs is an error, as it is for a
// render and for serve, not a silent switch to the built-in pack.
func TestWatchRenderRefusesAPackThatIsGone(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"turn.toml":                    "[runtime]\nhost = \"box\"\n",
		"pack/templates/identity.tmpl": "",
	})
	w, err := host.NewWatch(func(string) {})
	require.NoError(t, err)
	defer w.Close()
	pack := filepath.Join(dir, "pack")
	c := common{request: filepath.Join(dir, "turn.toml"), pack: pack, preview: true}
	r := watchRenderer{w: w}
	_, err = r.render(context.Background(), &c, strings.NewReader(""))
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(pack))
	_, err = r.render(context.Background(), &c, strings.NewReader(""))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-pack: stat "+pack+": no such file or directory")
}

// A stream of changes closer together than the debounce (a log written
// into the workspace) does not put off every render: one follows each
// debounce after the first change of a burst.
func TestWatchRendersDuringAStreamOfChanges(t *testing.T) {
	e, err := engine.New(sysprompt.Pack)
	require.NoError(t, err)
	var mu sync.Mutex
	renders := 0
	renderOnce := func() (*engine.Result, error) {
		mu.Lock()
		renders++
		mu.Unlock()
		return e.Render(context.Background(), engine.Request{Timezone: "Europe/Lisbon"})
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return renders }
	changes, _, _ := startWatchLoop(t, renderOnce)
	require.Eventually(t, func() bool { return count() == 1 }, 5*time.Second, time.Millisecond)
	for end := time.Now().Add(20 * debounce); time.Now().Before(end); {
		changes <- "workspace/agent.log"
		time.Sleep(debounce / 3)
	}
	assert.Greater(t, count(), 1, "no render in %v of changes", 20*debounce)
}

// startWatchLoop runs watchLoop over renderOnce until the test ends, and
// returns the channel that feeds it changes and what it writes.
func startWatchLoop(t *testing.T, renderOnce func() (*engine.Result, error)) (chan string, *syncBuffer, *syncBuffer) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	changes := make(chan string)
	var stdout, stderr syncBuffer
	go watchLoop(ctx, changes, renderOnce, &stdout, &stderr)
	return changes, &stdout, &stderr
}

// collectingWatch returns a watch, closed when the test ends, whose
// changes arrive on the channel (16 held, the rest dropped).
func collectingWatch(t *testing.T) (*host.Watch, chan string) {
	changed := make(chan string, 16)
	w, err := host.NewWatch(func(name string) {
		select {
		case changed <- name:
		default:
		}
	})
	require.NoError(t, err)
	t.Cleanup(func() { w.Close() })
	return w, changed
}
