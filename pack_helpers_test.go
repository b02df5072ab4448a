package sysprompt_test

// Helpers for the pack's tests, copied from the engine's tests: they use
// only the exported API of engine, so the pack is tested as a caller sees
// it.

import (
	"context"
	"io/fs"
	"os"
	"testing"
	"testing/fstest"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine"
)

// packWith copies the built-in pack into memory and applies changes:
// a non-empty value writes the file, an empty one deletes it.
func packWith(t testing.TB, changes map[string]string) fs.FS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(sysprompt.Pack, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(sysprompt.Pack, p)
		m[p] = &fstest.MapFile{Data: b}
		return err
	})
	require.NoError(t, err)
	for name, text := range changes {
		if text == "" {
			delete(m, name)
			continue
		}
		m[name] = &fstest.MapFile{Data: []byte(text)}
	}
	return m
}

// workspaceFS builds an in-memory workspace at /ws.
func workspaceFS(t testing.TB, files map[string]string) afero.Fs {
	t.Helper()
	fsys := afero.NewMemMapFs()
	for name, text := range files {
		require.NoError(t, afero.WriteFile(fsys, "/ws/"+name, []byte(text), 0o644))
	}
	return fsys
}

// render compiles the pack and renders req, failing the test on error.
func render(t testing.TB, p fs.FS, req engine.Request, opts ...engine.Option) *engine.Result {
	t.Helper()
	e, err := engine.New(p, opts...)
	require.NoError(t, err)
	res, err := e.Render(context.Background(), req)
	require.NoError(t, err)
	return res
}

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

// directRequest is a full-mode direct chat turn with two tools and the
// usual runtime facts.
func directRequest() engine.Request {
	return engine.Request{
		Mode:      engine.ModeFull,
		Date:      "2026-11-30T09:15:00Z",
		Timezone:  "Europe/Lisbon",
		Workspace: engine.Workspace{Path: "/ws"},
		Tools:     []engine.Tool{{Name: "read", Description: "Read a file."}, {Name: "exec", Description: "Run a command."}},
		Channel:   engine.Channel{ID: "telegram", ChatType: "direct", Delivery: "automatic"},
		Runtime:   engine.Runtime{Host: "box", OS: "linux", Arch: "amd64", Model: "anthropic/claude"},
		Owners:    []string{"telegram:1"},
	}
}

// smallWorkspace is Ana's workspace: every bootstrap file, each short.
// AGENTS.md holds template syntax, which must reach the prompt as text.
func smallWorkspace() map[string]string {
	return map[string]string{
		"AGENTS.md":    "# Agents\nBe careful. Placeholders look like {{ .ClientName }} and {{ template \"x\" }}.\n",
		"SOUL.md":      "Warm and direct.\n",
		"TOOLS.md":     "nas.local is the NAS.\n",
		"IDENTITY.md":  "Name: Wren\n",
		"USER.md":      "Ana, Lisbon.\n",
		"HEARTBEAT.md": "- check the inbox\n",
		"MEMORY.md":    "Ana prefers bullet lists.\n",
	}
}
