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

	b.Run("bootstrap", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var res Result
			ws := vfs.OpenWorkspace(e.opts.fs, settings.Workspace)
			r, err := e.loadBootstrap(ctx, set, &req, &settings, h, ws, &res)
			ws.Close()
			if err != nil || len(r.Files) == 0 {
				b.Fatal(err, len(r.Files))
			}
		}
	})
	b.Run("syscalls", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
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
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
