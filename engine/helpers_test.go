package engine_test

import (
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/internal/packtest"
)

// section builds a section file from front matter lines and a body.
func section(front, body string) string {
	return "+++\n" + strings.TrimSpace(front) + "\n+++\n" + body
}

// manifest is a small manifest over the given layer section lists.
func manifest(layers ...string) string {
	var b strings.Builder
	b.WriteString("identity_section = \"identity\"\nboundary = \"<!-- B -->\"\n")
	for _, l := range layers {
		b.WriteString("\n[[layer]]\nname = \"system\"\nsections = [" + l + "]\n")
	}
	return b.String()
}

// minimalPack is a tiny pack for mechanism tests: identity plus the given
// sections, with the built-in partials.
func minimalPack(t testing.TB, manifestText string, sections map[string]string) fs.FS {
	t.Helper()
	m := fstest.MapFS{
		"sections/manifest.toml":    {Data: []byte(manifestText)},
		"sections/identity.md.tmpl": {Data: []byte(section(`modes = ["full", "minimal", "none"]`+"\n"+`tier = "stable"`, "I am the agent."))},
		"templates/bootstrap.tmpl":  {Data: mustRead(t, "templates/bootstrap.tmpl")},
		"templates/defaults.toml":   {Data: mustRead(t, "templates/defaults.toml")},
	}
	for name, text := range sections {
		m["sections/"+name+".md.tmpl"] = &fstest.MapFile{Data: []byte(text)}
	}
	return m
}

func mustRead(t testing.TB, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(sysprompt.Pack, name)
	require.NoError(t, err)
	return b
}

const (
	stable  = "modes = [\"full\", \"minimal\"]\ntier = \"stable\""
	dynamic = "modes = [\"full\", \"minimal\"]\ntier = \"dynamic\""
)

// addFile adds a file to a pack built by minimalPack or packWith.
func addFile(p fs.FS, name, text string) {
	p.(fstest.MapFS)[name] = &fstest.MapFile{Data: []byte(text)}
}

// setDefault changes one key of the pack's templates/defaults.toml; value
// is TOML, a list included. Every key of the file has a name of its own.
func setDefault(t testing.TB, p fs.FS, key, value string) {
	t.Helper()
	editDefault(t, p, key, key+" = "+value)
}

// dropDefault removes one key from the pack's templates/defaults.toml.
func dropDefault(t testing.TB, p fs.FS, key string) {
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

// The helpers engine and pack tests share, bound to the built-in pack.
func packWith(t testing.TB, changes map[string]string) fs.FS {
	return packtest.PackWith(t, sysprompt.Pack, changes)
}

var (
	workspaceFS    = packtest.Workspace
	render         = packtest.Render
	directRequest  = packtest.DirectRequest
	smallWorkspace = packtest.SmallWorkspace
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
