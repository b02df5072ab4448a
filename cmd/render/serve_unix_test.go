//go:build unix

package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// SIGTERM and SIGINT end serve with status 0, its change marker's folder
// removed, while its stdin is still open.
func TestServeEndsOnSignal(t *testing.T) {
	t.Parallel()
	bin := buildRender(t)
	pack := writeFiles(t, map[string]string{"sections/user_identity.md.tmpl": "+++\nmodes = [\"full\"]\ntier = \"dynamic\"\n+++\nOurs.\n"})
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			cmd := exec.Command(bin, "serve", "-pack", pack)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			stdin, err := cmd.StdinPipe()
			require.NoError(t, err)
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { stdin.Close() })

			_, err = io.WriteString(stdin, requestLine("1", "{}")+"\n")
			require.NoError(t, err)
			line, err := bufio.NewReader(stdout).ReadString('\n')
			require.NoError(t, err)
			assert.Contains(t, line, `"id":1,"result"`)
			marker, err := os.ReadDir(tmp)
			require.NoError(t, err)
			require.Len(t, marker, 1, "serve keeps its change marker in TMPDIR")

			require.NoError(t, cmd.Process.Signal(sig))
			require.NoError(t, cmd.Wait(), "exit status 0")
			left, err := os.ReadDir(tmp)
			require.NoError(t, err)
			assert.Empty(t, left, "the marker's folder is removed")
		})
	}
}
