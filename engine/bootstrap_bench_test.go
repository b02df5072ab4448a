package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/vfs"
)

// BenchmarkWarmBootstrap isolates the workspace phase of a warm turn on
// the real disk (open the root, load the bootstrap files through the
// snapshot, close) next to the bare syscalls it cannot avoid: stat and
// open the root, one stat per candidate file, close. The ratio of the two
// is what the snapshot adds to the syscalls.
//
//	go test ./engine -run '^$' -bench WarmBootstrap -benchmem
func BenchmarkWarmBootstrap(b *testing.B) {
	dir := b.TempDir()
	src := os.DirFS("../examples/workspace")
	if err := os.CopyFS(dir, src); err != nil {
		b.Fatal(err)
	}
	// Files changed in the last two seconds are read again every turn.
	time.Sleep(2100 * time.Millisecond)
	e, err := New(sysprompt.Pack, WithFS(vfs.OS()))
	if err != nil {
		b.Fatal(err)
	}
	req, err := ParseRequest("direct.toml", must(os.ReadFile("../examples/requests/direct.toml")))
	if err != nil {
		b.Fatal(err)
	}
	req.Workspace.Path = dir
	ctx := context.Background()
	if _, err := e.Render(ctx, req); err != nil {
		b.Fatal(err)
	}
	h, settings, err := e.prepare(&req)
	if err != nil {
		b.Fatal(err)
	}
	set := e.pool.Get().(*renderSet)
	defer e.pool.Put(set)
	names := e.pack.Bootstrap.Files

	bootstrapPhase := func() {
		var res Result
		ws := vfs.OpenWorkspace(e.opts.fs, settings.Workspace)
		r, err := e.loadBootstrap(ctx, set, &req, &settings, h, ws, &res)
		ws.Close()
		if err != nil || len(r.Files) == 0 {
			b.Fatal(err, len(r.Files))
		}
	}
	syscalls := func() {
		if _, err := os.Stat(dir); err != nil {
			b.Fatal(err)
		}
		root, err := os.OpenRoot(dir)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range names {
			root.Stat(filepath.FromSlash(n)) // two are missing
		}
		root.Close()
	}
	b.Run("bootstrap", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bootstrapPhase()
		}
	})
	b.Run("syscalls", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			syscalls()
		}
	})
	// Both in turn in one loop, so that a busy machine slows both alike:
	// the ratio is the figure to compare.
	b.Run("ratio", func(b *testing.B) {
		var phase, bare time.Duration
		for b.Loop() {
			t0 := time.Now()
			bootstrapPhase()
			t1 := time.Now()
			syscalls()
			phase, bare = phase+t1.Sub(t0), bare+time.Since(t1)
		}
		b.ReportMetric(float64(phase.Nanoseconds())/float64(b.N), "bootstrap-ns/op")
		b.ReportMetric(float64(bare.Nanoseconds())/float64(b.N), "syscalls-ns/op")
		b.ReportMetric(float64(phase)/float64(bare), "ratio")
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
