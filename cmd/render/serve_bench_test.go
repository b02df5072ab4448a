package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/vfs"
)

// The two benchmarks measure the same warm turn, the example request on
// the example workspace rendered again, in process and through a render
// serve subprocess over OS pipes. Each runs on the built-in pack, and on
// an ejected copy given with -pack, where serve checks for pack edits on
// every request.

const benchWorkspace = "../../examples/workspace"

// benchPack is a case: its name and its -pack ("" for none).
type benchPack struct{ name, dir string }

// benchPacks are the cases: the built-in pack, and an ejected copy. The
// copy is left to age past vfs.RacyWindow, as a pack in use is: within
// it serve cannot trust a file's identity and builds the pack again on
// every request, which is not the turn these benchmarks measure.
func benchPacks(b *testing.B) []benchPack {
	dir := filepath.Join(b.TempDir(), "pack")
	require.Equal(b, 0, runCLI("", "eject", dir).code)
	time.Sleep(vfs.RacyWindow)
	return []benchPack{{"builtin", ""}, {"pack", dir}}
}

func BenchmarkInProcess(b *testing.B) {
	for _, pack := range benchPacks(b) {
		b.Run(pack.name, func(b *testing.B) {
			c := common{workspace: benchWorkspace, pack: pack.dir}
			e, err := c.engine()
			require.NoError(b, err)
			req, err := engine.ParseRequest("direct.json", []byte(exampleRequest(b)))
			require.NoError(b, err)
			c.override(e, &req)
			ctx := context.Background()
			_, err = e.Render(ctx, req) // warm
			require.NoError(b, err)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Render(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkServe times writing the request line and reading the whole
// reply line; the reply is checked to be a result, not decoded.
func BenchmarkServe(b *testing.B) {
	bin := buildRender(b)
	for _, pack := range benchPacks(b) {
		b.Run(pack.name, func(b *testing.B) {
			args := []string{"serve", "-workspace", benchWorkspace}
			if pack.dir != "" {
				args = append(args, "-pack", pack.dir)
			}
			cmd := exec.Command(bin, args...)
			stdin, err := cmd.StdinPipe()
			require.NoError(b, err)
			stdout, err := cmd.StdoutPipe()
			require.NoError(b, err)
			require.NoError(b, cmd.Start())
			out := bufio.NewReaderSize(stdout, 1<<20)
			line := []byte(requestLine("1", exampleRequest(b)) + "\n")
			turn := func() {
				if _, err := stdin.Write(line); err != nil {
					b.Fatal(err)
				}
				reply, err := out.ReadSlice('\n')
				if err != nil || !bytes.HasPrefix(reply, []byte(fmt.Sprintf(`{"schema_version":%d,"id":1,"result":`, serveSchemaVersion))) {
					b.Fatalf("%v: %.200s", err, reply)
				}
			}
			turn() // warm
			for b.Loop() {
				turn()
			}
			require.NoError(b, stdin.Close())
			_, _ = io.Copy(io.Discard, out)
			require.NoError(b, cmd.Wait())
		})
	}
}
