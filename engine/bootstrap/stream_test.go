package bootstrap

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadSeesEdits: every Load reads the files afresh, even an edit that
// keeps size and modification time.
func TestLoadSeesEdits(t *testing.T) {
	fsys, ws := memWorkspace(t, map[string]string{"SOUL.md": "calm"})
	when := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	require.NoError(t, fsys.Chtimes("ws/SOUL.md", when, when))
	opts := testOptions(func(o *Options) { o.Files = []string{"SOUL.md"} })
	content := func() string { return mustLoad(t, ws, opts).Files[0].Content }
	assert.Equal(t, "calm", content())

	require.NoError(t, afero.WriteFile(fsys, "ws/SOUL.md", []byte("wild"), 0o644))
	require.NoError(t, fsys.Chtimes("ws/SOUL.md", when, when))
	assert.Equal(t, "wild", content(), "same size and time")

	require.NoError(t, afero.WriteFile(fsys, "ws/SOUL.md", []byte("wilder"), 0o644))
	assert.Equal(t, "wilder", content(), "new size")

	opts.MaxChars = 3
	assert.Equal(t, StatusTruncated, mustLoad(t, ws, opts).Files[0].Status)
}

// TestConcurrentLoads runs loads of one workspace at once; they must agree.
func TestConcurrentLoads(t *testing.T) {
	_, ws := memWorkspace(t, benchFiles())
	opts := testOptions(func(o *Options) { o.Heartbeat = true })
	want := mustLoad(t, ws, opts)
	var wg sync.WaitGroup
	results := make([]Result, 16)
	for i := range results {
		wg.Go(func() {
			res, err := Load(context.Background(), ws, opts)
			assert.NoError(t, err)
			results[i] = res
		})
	}
	wg.Wait()
	for _, res := range results {
		assert.Equal(t, want, res)
	}
}

// TestLoadHugeSparseFile reads a 2 GiB MEMORY.md with bounded memory. It is
// all NUL bytes (sparse), so it is binary, found on the first read.
func TestLoadHugeSparseFile(t *testing.T) {
	if testing.Short() {
		t.Skip("creates a 2 GiB sparse file")
	}
	dir, ws := diskWorkspace(t, map[string]string{"AGENTS.md": "agents"})
	f, err := os.Create(filepath.Join(dir, "MEMORY.md"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(2<<30))
	require.NoError(t, f.Close())

	peak := measurePeakHeap(t, func() {
		res := mustLoad(t, ws, testOptions(func(o *Options) { o.Files = []string{"AGENTS.md", "MEMORY.md"} }))
		assert.Equal(t, []string{"AGENTS.md OK", "MEMORY.md SKIPPED (binary file)"}, outline(res))
	})
	assert.Less(t, peak, uint64(64<<20), "peak heap growth")
}

// TestLoadLargeTextFile streams 64 MiB of text on a real disk through the
// head and tail window with bounded memory.
func TestLoadLargeTextFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 64 MiB file")
	}
	dir, ws := diskWorkspace(t, nil)
	f, err := os.Create(filepath.Join(dir, "MEMORY.md"))
	require.NoError(t, err)
	line := strings.Repeat("memory line ", 8) + "\n" // 97 bytes
	chunk := strings.Repeat(line, 1024)
	for range (64 << 20) / len(chunk) {
		_, err := f.WriteString(chunk)
		require.NoError(t, err)
	}
	_, err = f.WriteString("THE END\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	peak := measurePeakHeap(t, func() {
		res := mustLoad(t, ws, testOptions(func(o *Options) { o.Files = []string{"MEMORY.md"} }))
		file := res.Files[0]
		assert.Equal(t, StatusTruncated, file.Status)
		assert.True(t, strings.HasSuffix(file.Content, "\nTHE END"))
		assert.LessOrEqual(t, file.InjectedChars, res.MaxChars)
		assert.Greater(t, file.RawChars, 60<<20)
	})
	assert.Less(t, peak, uint64(64<<20), "peak heap growth")
}

// measurePeakHeap runs fn while sampling the heap, and returns the largest
// growth over the heap in use before it started.
func measurePeakHeap(t *testing.T, fn func()) uint64 {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	sample := func() {
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > base && ms.HeapAlloc-base > peak {
			peak = ms.HeapAlloc - base
		}
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			default:
				sample()
				runtime.Gosched()
			}
		}
	}()
	fn()
	close(done)
	<-stopped
	sample()
	t.Logf("peak heap growth %d KiB", peak>>10)
	return peak
}

func benchFiles() map[string]string {
	files := allFiles()
	files["AGENTS.md"] = strings.Repeat("Always run the tests before you push. ", 700) // ~26,600: over budget
	files["MEMORY.md"] = strings.Repeat("- remembered fact\n", 1500)                   // 27,000: over budget
	files["SOUL.md"] = strings.Repeat("Be kind, be brief. ", 200)
	files["HEARTBEAT.md"] = "check the inbox"
	return files
}

// BenchmarkBootstrap loads a workspace with two over-budget files from
// MemMapFs; every Load reads every file.
func BenchmarkBootstrap(b *testing.B) {
	_, ws := memWorkspace(b, benchFiles())
	ctx := context.Background()
	opts := testOptions(func(o *Options) { o.Heartbeat, o.Setup = true, SetupInject })
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(ctx, ws, opts); err != nil {
			b.Fatal(err)
		}
	}
}
