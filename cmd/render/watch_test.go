package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine"
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
	assert.Contains(t, stdout.String(), "-- rendered:")

	// A burst of saves renders once.
	for range 3 {
		changes <- "request.toml"
	}
	waitFor(2)
	out := stdout.String()
	assert.Contains(t, out, "-Runtime: host=one")
	assert.Contains(t, out, "+Runtime: host=two")
	assert.Contains(t, out, "-- stable prefix unchanged;")

	// A failing render is reported and watching goes on.
	changes <- "sections/x.md.tmpl"
	waitFor(3)
	assert.Contains(t, stderr.String(), "render: sections/x.md.tmpl:3:7: section x: boom")
	assert.Contains(t, stdout.String(), "render failed; still watching")

	// The next good render diffs against the last good one.
	changes <- "request.toml"
	waitFor(4)
	assert.Contains(t, stdout.String(), "-- stable prefix changed in system layer, section current_time;")

	// A save that changes nothing says so instead of printing an empty diff.
	reqs = append(reqs, reqs[3])
	changes <- "request.toml"
	waitFor(5)
	assert.True(t, strings.HasSuffix(stdout.String(), "-- prompt unchanged\n"))

	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("watch did not stop when its context ended")
	}
	assert.Equal(t, 5, count())
	assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "only the failure went to stderr")
}

func TestWatchTargets(t *testing.T) {
	dir := writeFiles(t, map[string]string{"ws/AGENTS.md": "x", "ws/skills/a/SKILL.md": "---\nname: a\n---\n", "req/r.toml": "", "req/prompt.md": ""})
	targets := newWatchTargets(common{workspace: dir + "/ws", request: dir + "/req/r.toml"})
	assert.Equal(t, []string{dir + "/ws", dir + "/ws/skills", dir + "/ws/skills/a", dir + "/req"}, targets.dirs)
	assert.True(t, targets.relevant(dir+"/ws/AGENTS.md"))
	assert.True(t, targets.relevant(dir+"/ws/skills/b/SKILL.md"), "a new skill folder counts")
	assert.True(t, targets.relevant(dir+"/req/r.toml"))
	assert.False(t, targets.relevant(dir+"/req/prompt.md"), "output written next to the request must not loop")
	assert.False(t, targets.relevant(dir+"/wsx/AGENTS.md"), "a sibling with a common prefix is not in the tree")
}
