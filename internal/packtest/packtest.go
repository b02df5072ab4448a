// Package packtest holds what the engine's tests and the pack's tests
// share: an in-memory copy of a pack with edits, an in-memory workspace,
// a render that fails the test on error, and the usual direct-chat
// request. It is test support: only _test.go files import it.
package packtest

import (
	"context"
	"io/fs"
	"path"
	"testing"
	"testing/fstest"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
)

// PackWith copies base into memory and applies changes: a non-empty value
// writes the file, an empty one deletes it.
func PackWith(t testing.TB, base fs.FS, changes map[string]string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(base, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(base, p)
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

// Workspace builds an in-memory workspace at /ws.
func Workspace(t testing.TB, files map[string]string) afero.Fs {
	t.Helper()
	fsys := afero.NewMemMapFs()
	for name, text := range files {
		require.NoError(t, afero.WriteFile(fsys, "/ws/"+name, []byte(text), 0o644))
	}
	return fsys
}

// CopyDir writes every file of src into fsys under root.
func CopyDir(t testing.TB, src fs.FS, fsys afero.Fs, root string) {
	t.Helper()
	require.NoError(t, fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		name := path.Join(root, p)
		if err := fsys.MkdirAll(path.Dir(name), 0o755); err != nil {
			return err
		}
		return afero.WriteFile(fsys, name, data, 0o644)
	}))
}

// Render compiles the pack and renders req, failing the test on error.
func Render(t testing.TB, p fs.FS, req engine.Request, opts ...engine.Option) *engine.Result {
	t.Helper()
	e, err := engine.New(p, opts...)
	require.NoError(t, err)
	res, err := e.Render(context.Background(), req)
	require.NoError(t, err)
	return res
}

// DirectRequest is a full-mode direct chat turn with two tools and the
// usual runtime facts.
func DirectRequest() engine.Request {
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

// SmallWorkspace is Ana's workspace: every bootstrap file, each short.
// AGENTS.md holds template syntax, which must reach the prompt as text.
func SmallWorkspace() map[string]string {
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
