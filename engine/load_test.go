package engine_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
)

// TestLoad renders many turns of one session concurrently over one engine:
// every render succeeds, the stable prefix never changes, and the heap
// after the run is what it was before it (a per-render leak would grow
// with the number of renders).
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	const workers = 16
	renders := 10000
	if raceEnabled {
		renders = 2000 // the race detector makes each render several times slower
	}

	fsys := workspaceFS(t, smallWorkspace())
	for _, name := range []string{"weather", "notes", "deploy"} {
		skill := "---\nname: " + name + "\ndescription: Helps with " + name + ".\n---\nSteps.\n"
		require.NoError(t, afero.WriteFile(fsys, "/ws/skills/"+name+"/SKILL.md", []byte(skill), 0o644))
	}
	e, err := engine.New(packWith(t, nil), engine.WithFS(fsys))
	require.NoError(t, err)
	ctx := context.Background()
	first, err := e.Render(ctx, turn(0))
	require.NoError(t, err)
	want := first.Layers[0].Stable
	require.NotEmpty(t, want)

	// run renders n turns on the workers and returns the first failure.
	run := func(n int) error {
		var next atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for range workers {
			wg.Go(func() {
				for i := int(next.Add(1)); i <= n; i = int(next.Add(1)) {
					res, err := e.Render(ctx, turn(i))
					if err != nil {
						errs <- fmt.Errorf("render %d: %w", i, err)
						return
					}
					if res.Layers[0].Stable != want {
						errs <- fmt.Errorf("render %d: the stable prefix changed (sha256 %s, want %s)", i, res.Layers[0].StableSHA256(), first.Layers[0].StableSHA256())
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		return <-errs
	}

	// Warm up every worker's pooled template set and the file caches.
	require.NoError(t, run(workers*4))
	before := heapAfterGC()
	start := time.Now()
	require.NoError(t, run(renders))
	took := time.Since(start)
	after := heapAfterGC()

	t.Logf("%d renders on %d goroutines in %v (%v per render, GOMAXPROCS=%d, race=%v)",
		renders, workers, took.Round(time.Millisecond), (took / time.Duration(renders)).Round(time.Microsecond),
		runtime.GOMAXPROCS(0), raceEnabled)
	t.Logf("HeapAlloc after warm-up GC: %.2f MiB; after the run and GC: %.2f MiB", mib(before), mib(after))
	growth := int64(after) - int64(before)
	assert.Less(t, growth, int64(8<<20), "heap grew by %.2f MiB over %d renders", float64(growth)/(1<<20), renders)
}

// heapAfterGC returns HeapAlloc after two collections, so objects that
// sync.Pool keeps for one more cycle are gone too.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// turn is the i-th turn of one session: every volatile field varies, every
// stable one stays.
func turn(i int) engine.Request {
	req := directRequest()
	req.Date = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * 7 * time.Minute).Format(time.RFC3339)
	req.Channel = engine.Channel{ID: fmt.Sprintf("chan-%d", i%7), Delivery: []string{"automatic", "message_tool_only"}[i%2]}
	req.Owners = []string{fmt.Sprintf("telegram:%d", i), "discord:ana"}[:1+i%2]
	req.Runtime.Host = fmt.Sprintf("host-%d", i%13)
	req.ExtraSystemPrompt = fmt.Sprintf("Turn %d: keep it short.", i)
	req.Session = engine.Session{Key: "main", ID: fmt.Sprintf("s-%d", i%5), Reset: false}
	return req
}
