package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/vfs"
)

// The tests here read a workspace from one folder on disk while the
// prompt shows the agent's own path (vfs.OSAt).
const shownWorkspace = "/Users/ana/.openclaw/workspace"

// Two copies of one workspace, in folders of different lengths, render
// the same bytes: only the shown path reaches the prompt and the result.
func TestWorkspaceAtRendersTheSameFromAnyFolder(t *testing.T) {
	longer := filepath.Join(t.TempDir(), "a", "much", "longer", "path", "ws")
	require.NoError(t, os.CopyFS(longer, os.DirFS("../examples/workspace")))
	var results []*engine.Result
	for _, dir := range []string{diskExampleWorkspace(t), longer} {
		e, err := engine.New(os.DirFS(".."), engine.WithFS(vfs.OSAt(dir)))
		require.NoError(t, err)
		res, err := e.Render(context.Background(), exampleDirectRequest(t, shownWorkspace))
		require.NoError(t, err)
		for _, l := range res.Layers {
			assert.NotContains(t, l.Text, dir)
		}
		results = append(results, res)
	}
	text := results[0].Layers[0].Text
	assert.Contains(t, text, "Working directory: "+shownWorkspace+"\n")
	assert.Contains(t, text, "## "+shownWorkspace+"/SOUL.md\n")
	assert.Contains(t, text, "<location>"+shownWorkspace+"/skills/fact-check/SKILL.md</location>")
	assert.Equal(t, results[0].Layers, results[1].Layers)
	assert.Equal(t, results[0].Files, results[1].Files)
	assert.Equal(t, results[0].Skills, results[1].Skills)
}

// The user's own skills folders are theirs, not the workspace folder an
// OSAt filesystem reads, when SkillHost.FS is left to the WithFS one.
func TestWorkspaceAtLeavesTheUsersSkillFolders(t *testing.T) {
	base := t.TempDir()
	ws, home := filepath.Join(base, "ws"), filepath.Join(base, "home")
	for dir, name := range map[string]string{filepath.Join(ws, "skills", "ws-skill"): "ws-skill", filepath.Join(home, ".agents", "skills", "mine"): "mine"} {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillFile(name, "d", "")), 0o644))
	}
	e, err := engine.New(os.DirFS(".."), engine.WithFS(vfs.OSAt(ws)), engine.WithSkillHost(engine.SkillHost{Home: filepath.ToSlash(home)}))
	require.NoError(t, err)
	res, err := e.Render(context.Background(), engine.Request{Workspace: engine.Workspace{Path: shownWorkspace}})
	require.NoError(t, err)
	var listed []string
	for _, sk := range res.Skills.Skills {
		listed = append(listed, sk.Name+"@"+sk.Location)
	}
	assert.ElementsMatch(t, []string{"ws-skill@" + shownWorkspace + "/skills/ws-skill/SKILL.md", "mine@~/.agents/skills/mine/SKILL.md"}, listed)
	assert.Empty(t, res.Skills.Skipped)
}

// The agent:bootstrap hook is told the shown path and the folder the
// files are read from, and the paths it returns are read from that
// folder.
func TestWorkspaceAtHook(t *testing.T) {
	ws := diskExampleWorkspace(t)
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "personas"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "personas", "pirate.md"), []byte("Arr, matey."), 0o644))
	var got bootstrap.Event
	hook := func(_ context.Context, ev bootstrap.Event) ([]bootstrap.Entry, error) {
		got = ev
		// What a hook might do: look in the folder before redirecting.
		if _, err := os.Stat(filepath.Join(ev.Dir, "personas", "pirate.md")); err != nil {
			return nil, err
		}
		for i, f := range ev.Files {
			if f.Name == "SOUL.md" {
				ev.Files[i].Path = "personas/pirate.md"
			}
		}
		return ev.Files, nil
	}
	e, err := engine.New(os.DirFS(".."), engine.WithFS(vfs.OSAt(ws)), engine.WithBootstrapHook(hook))
	require.NoError(t, err)
	res, err := e.Render(context.Background(), exampleDirectRequest(t, shownWorkspace))
	require.NoError(t, err)
	assert.Equal(t, shownWorkspace, got.Workspace)
	assert.Equal(t, ws, got.Dir)
	text := res.Layers[0].Text
	assert.Contains(t, text, "## "+shownWorkspace+"/personas/pirate.md\n\nArr, matey.")
	assert.NotContains(t, text, "SOUL.md - Who Wren is", "SOUL.md went to the persona")
	assert.False(t, strings.Contains(text, ws), "the folder read stays out of the prompt")
}
