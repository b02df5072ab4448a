package sysprompt_test

// Helpers for the pack's tests. Most are internal/packtest's, shared
// with the engine's tests; they use only the engine's exported API, so
// the pack is tested as a caller sees it.

import (
	"io/fs"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/internal/packtest"
)

// mustRead reads a file of the built-in pack.
func mustRead(t testing.TB, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(sysprompt.Pack, name)
	require.NoError(t, err)
	return b
}

// mustReadFile reads a file of the repository.
func mustReadFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	return b
}

func packWith(t testing.TB, changes map[string]string) fs.FS {
	return packtest.PackWith(t, sysprompt.Pack, changes)
}

var (
	workspaceFS    = packtest.Workspace
	render         = packtest.Render
	directRequest  = packtest.DirectRequest
	smallWorkspace = packtest.SmallWorkspace
)
