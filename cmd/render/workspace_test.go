package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/host"
)

// exampleShown is the workspace path the example requests give: Wren's
// own, on Ana's laptop.
const exampleShown = "/Users/ana/.openclaw/workspace"

// copyExampleWorkspace copies examples/workspace to the folder dir under a
// new temporary folder and returns its absolute path.
func copyExampleWorkspace(t *testing.T, dir string) string {
	t.Helper()
	ws := filepath.Join(t.TempDir(), filepath.FromSlash(dir))
	require.NoError(t, os.CopyFS(ws, os.DirFS("../../examples/workspace")))
	return ws
}

// Where the workspace files sit does not change a byte of the prompt,
// the JSON document or the report: -workspace says where to read them,
// the request says what path the prompt shows.
func TestWorkspaceFolderStaysOutOfThePrompt(t *testing.T) {
	short := copyExampleWorkspace(t, "ws")
	longer := copyExampleWorkspace(t, "a/much/longer/folder/for/the/same/ws")
	for _, name := range []string{"direct.toml", "group.toml", "codex.toml", "subagent.toml"} {
		req := "../../examples/requests/" + name
		for _, args := range [][]string{
			{"-request", req, "-config", "../../examples/agents.toml"},
			{"-request", req, "-config", "../../examples/agents.toml", "-format", "json"},
			{"report", "list", "-request", req},
			{"report", "json", "-request", req},
		} {
			var outs []string
			for _, ws := range []string{short, longer} {
				code, stdout, stderr := cli(append(args, "-workspace", ws)...)
				require.Equal(t, 0, code, "%v: %s", args, stderr)
				assert.NotContains(t, stdout, ws, "%v", args)
				outs = append(outs, stdout)
			}
			assert.Contains(t, outs[0], exampleShown, "%v", args)
			assert.Equal(t, outs[0], outs[1], "%v: the output depends on the folder", args)
		}
	}
	doc := renderJSON(t, "-workspace", short)
	other := renderJSON(t, "-workspace", longer)
	assert.NotEqual(t, doc.Layers[0].StableSHA256, other.Layers[0].StableSHA256,
		"a request without a path shows the folder, as before")
}

// The path shown: the request's, else the config's workspace for the
// agent, else the -workspace folder itself. Files come from the folder.
func TestWorkspaceShownPath(t *testing.T) {
	ws := copyExampleWorkspace(t, "ws")
	config := filepath.Join(t.TempDir(), "agents.toml")
	require.NoError(t, os.WriteFile(config, []byte("[[agents.list]]\nid = \"wren\"\nworkspace = \"/Users/ana/from-config\"\n"), 0o644))
	withRead := request + "[[tools]]\nname = \"read\"\n" // skills are listed for a model that can read them
	for _, tt := range []struct {
		name, request string
		args          []string
		shown         string
	}{
		{"request", withRead + "[workspace]\npath = \"/Users/ana/from-request\"\n", []string{"-config", config, "-agent", "wren"}, "/Users/ana/from-request"},
		{"config", withRead, []string{"-config", config, "-agent", "wren"}, "/Users/ana/from-config"},
		{"folder", withRead, nil, filepath.ToSlash(ws)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := runCLI(tt.request, append([]string{"-request", "-", "-workspace", ws}, tt.args...)...)
			require.Equal(t, 0, res.code, res.stderr)
			assert.Contains(t, res.stdout, "Working directory: "+tt.shown+"\n")
			assert.Contains(t, res.stdout, "## "+tt.shown+"/SOUL.md\n\n# SOUL.md - Who Wren is")
			assert.Contains(t, res.stdout, "<location>"+tt.shown+"/skills/fact-check/SKILL.md</location>")
		})
	}
}

// A -hook command finds the files in the event's "dir" and is shown the
// agent's path as "workspace"; the path it returns is read from the folder.
func TestHookFindsTheWorkspaceFolder(t *testing.T) {
	ws := copyExampleWorkspace(t, "ws")
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "personas"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "personas", "pirate.md"), []byte("Arr, matey."), 0o644))
	// Redirects SOUL.md when the event's dir holds the persona and its
	// workspace is the request's path; prints nothing (a failure) otherwise.
	hook := `ev=$(cat); d=$(printf '%s' "$ev" | sed -n 's/.*"dir":"\([^"]*\)".*/\1/p')
case "$ev" in *'"workspace":"` + exampleShown + `"'*) ;; *) exit 0 ;; esac
test -f "$d/personas/pirate.md" && echo '{"files": [{"name": "SOUL.md", "path": "personas/pirate.md"}]}'`
	code, stdout, stderr := cli("-workspace", ws, "-request", "../../examples/requests/direct.toml", "-hook", hook)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "## "+exampleShown+"/personas/pirate.md\n\nArr, matey.")
	assert.NotContains(t, stdout, ws)
}

// render watch reads the folder the files are read from, and a skill
// added there shows, under the agent's path, on the next render.
func TestWatchSeesASkillInTheWorkspaceFolder(t *testing.T) {
	ws := copyExampleWorkspace(t, "ws")
	c := common{workspace: ws, request: "../../examples/requests/direct.toml", preview: true, stderr: os.Stderr}
	w, err := host.NewWatch(func(string) {})
	require.NoError(t, err)
	defer w.Close()
	r := watchRenderer{w: w}
	before, err := r.render(context.Background(), &c, strings.NewReader(""))
	require.NoError(t, err)
	assert.Contains(t, before.SkillDirs, filepath.Join(ws, "skills"))

	skill := filepath.Join(ws, "skills", "late", "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(skill), 0o755))
	require.NoError(t, os.WriteFile(skill, []byte("---\nname: late\ndescription: added while watching\n---\nbody\n"), 0o644))
	after, err := r.render(context.Background(), &c, strings.NewReader(""))
	require.NoError(t, err)
	assert.Equal(t, before.Skills.Found+1, after.Skills.Found)
	assert.Contains(t, promptText(after), "<location>"+exampleShown+"/skills/late/SKILL.md</location>")
}
