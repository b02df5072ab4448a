//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A request that is a named pipe (or /dev/stdin on a terminal) blocks
// its reader until someone writes: like stdin, it is opened only once
// the pack has compiled, so a broken pack is reported at once.
func TestPackErrorLeavesPipeUnopened(t *testing.T) {
	dir := t.TempDir()
	pack := brokenPack(t, dir)
	fifo := filepath.Join(dir, "request.toml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	t.Cleanup(func() {
		// Frees a reader stuck opening the pipe, if the test failed.
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})

	done := make(chan result, 1)
	go func() { done <- runCLI("", "-pack", pack, "-request", fifo) }()
	select {
	case r := <-done:
		assert.Equal(t, exitFail, r.code)
		assert.Contains(t, r.stderr, "sections/safety.md.tmpl")
	case <-time.After(20 * time.Second):
		t.Fatal("render waited for the request pipe though the pack failed")
	}
}
