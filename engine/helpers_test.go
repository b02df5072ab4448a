package engine_test

import (
	"io/fs"
	"os"
	"testing"

	"github.com/spf13/afero"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/internal/packtest"
)

// The helpers the engine's and the pack's tests share, bound to the
// built-in pack.
func packWith(t testing.TB, changes map[string]string) fs.FS {
	return packtest.PackWith(t, sysprompt.Pack, changes)
}

func minimalPack(t testing.TB, manifestText string, sections map[string]string) fs.FS {
	return packtest.MinimalPack(t, manifestText, sections)
}

var (
	section        = packtest.Section
	manifest       = packtest.Manifest
	addFile        = packtest.AddFile
	setDefault     = packtest.SetDefault
	dropDefault    = packtest.DropDefault
	workspaceFS    = packtest.Workspace
	render         = packtest.Render
	directRequest  = packtest.DirectRequest
	smallWorkspace = packtest.SmallWorkspace
)

const (
	stable  = packtest.Stable
	dynamic = packtest.Dynamic
)

// exampleWorkspace copies examples/workspace into memory at /ws.
func exampleWorkspace(t testing.TB) afero.Fs {
	t.Helper()
	ws := afero.NewMemMapFs()
	copyExampleWorkspace(t, ws, "/ws")
	return ws
}

// copyExampleWorkspace writes examples/workspace into fsys at root.
func copyExampleWorkspace(t testing.TB, fsys afero.Fs, root string) {
	packtest.CopyDir(t, os.DirFS("../examples/workspace"), fsys, root)
}
