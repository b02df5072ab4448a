// Package packtest holds what the engine's, the report's and the pack's
// tests share: an in-memory copy of a pack with edits, a minimal pack for
// mechanism tests, an in-memory workspace, a render that fails the test
// on error, and the usual direct-chat request. It is test support: only
// _test.go files import it.
package packtest

import (
	"context"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt"
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
		ChatType:  "direct",
		Channel:   engine.Channel{ID: "telegram", Delivery: "automatic"},
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

// Section builds a section file from front matter lines and a body.
func Section(front, body string) string {
	return "+++\n" + strings.TrimSpace(front) + "\n+++\n" + body
}

// Manifest is a small manifest over the given layer section lists.
func Manifest(layers ...string) string {
	var b strings.Builder
	b.WriteString("identity_section = \"identity\"\nboundary = \"<!-- B -->\"\n")
	for _, l := range layers {
		b.WriteString("\n[[layer]]\nname = \"system\"\nsections = [" + l + "]\n")
	}
	return b.String()
}

// MinimalPack is a tiny pack for mechanism tests: identity plus the given
// sections, with the built-in partials.
func MinimalPack(t testing.TB, manifestText string, sections map[string]string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{
		"sections/manifest.toml":    {Data: []byte(manifestText)},
		"sections/identity.md.tmpl": {Data: []byte(Section(`modes = ["full", "minimal", "none"]`+"\n"+`tier = "stable"`, "I am the agent."))},
		"templates/bootstrap.tmpl":  {Data: mustRead(t, "templates/bootstrap.tmpl")},
		"templates/defaults.toml":   {Data: mustRead(t, "templates/defaults.toml")},
	}
	for name, text := range sections {
		m["sections/"+name+".md.tmpl"] = &fstest.MapFile{Data: []byte(text)}
	}
	return m
}

// mustRead reads a file of the built-in pack.
func mustRead(t testing.TB, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(sysprompt.Pack, name)
	require.NoError(t, err)
	return b
}

// Front matter of a stable and a dynamic section shown in full and
// minimal mode.
const (
	Stable  = "modes = [\"full\", \"minimal\"]\ntier = \"stable\""
	Dynamic = "modes = [\"full\", \"minimal\"]\ntier = \"dynamic\""
)

// AddFile adds a file to a pack built by MinimalPack or PackWith.
func AddFile(p fs.FS, name, text string) {
	p.(fstest.MapFS)[name] = &fstest.MapFile{Data: []byte(text)}
}

// SetDefault changes one key of the pack's templates/defaults.toml; value
// is TOML, a list included. Every key of the file has a name of its own.
func SetDefault(t testing.TB, p fs.FS, key, value string) {
	t.Helper()
	editDefault(t, p, key, key+" = "+value)
}

// DropDefault removes one key from the pack's templates/defaults.toml.
func DropDefault(t testing.TB, p fs.FS, key string) {
	t.Helper()
	editDefault(t, p, key, "")
}

// editDefault replaces the definition of key, a list over several lines
// included, with line.
func editDefault(t testing.TB, p fs.FS, key, line string) {
	t.Helper()
	m := p.(fstest.MapFS)
	text := string(m["templates/defaults.toml"].Data)
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(key) + ` *= *(?:\[[^\]]*\])?.*\n`)
	require.Len(t, re.FindAllString(text, -1), 1, "templates/defaults.toml should define %s once", key)
	if line != "" {
		line += "\n"
	}
	m["templates/defaults.toml"] = &fstest.MapFile{Data: []byte(re.ReplaceAllLiteralString(text, line))}
}
