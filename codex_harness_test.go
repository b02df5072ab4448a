package sysprompt_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"
)

// codexTurn renders examples/requests/codex.toml, edited by edit, over the
// example workspace at /ws with an agent config: the example one when
// cfgText is "".
func codexTurn(t *testing.T, cfgText string, edit func(*engine.Request)) *engine.Result {
	t.Helper()
	return codexTurnIn(t, exampleWorkspace(t), cfgText, edit)
}

// codexTurnIn is codexTurn over the workspace ws (files under /ws).
func codexTurnIn(t *testing.T, ws afero.Fs, cfgText string, edit func(*engine.Request)) *engine.Result {
	t.Helper()
	src := []byte(cfgText)
	if cfgText == "" {
		src = mustReadFile(t, "examples/agents.toml")
	}
	cfg, err := config.Parse("agents.toml", src)
	require.NoError(t, err)
	e, err := engine.New(packWith(t, nil), engine.WithFS(ws), engine.WithConfig(cfg),
		engine.WithWarningStore(bootstrap.NewMemoryStore()))
	require.NoError(t, err)
	req, err := engine.ParseRequest("codex.toml", mustReadFile(t, "examples/requests/codex.toml"))
	require.NoError(t, err)
	req.Workspace.Path = "/ws"
	if edit != nil {
		edit(&req)
	}
	res, err := e.Render(t.Context(), req)
	require.NoError(t, err)
	return res
}

// layerText is the text of the named layer; it fails the test when the
// result has no such layer.
func layerText(t *testing.T, res *engine.Result, name string) string {
	t.Helper()
	for _, l := range res.Layers {
		if l.Name == name {
			return l.Text
		}
	}
	require.Failf(t, "no layer", "no layer %q", name)
	return ""
}

func withoutTools(names ...string) func(*engine.Request) {
	return func(r *engine.Request) {
		r.Tools = slices.DeleteFunc(r.Tools, func(tl engine.Tool) bool { return slices.Contains(names, tl.Name) })
	}
}

// Codex keeps its own model instructions: the harness sends no system
// layer, and its developer layer holds little beyond TOOLS.md.
func TestCodexSendsNoSystemPrompt(t *testing.T) {
	res := codexTurn(t, "", nil)
	var names []string
	for _, l := range res.Layers {
		names = append(names, l.Name)
		if l.Name == "system" {
			assert.Empty(t, strings.TrimSpace(strings.ReplaceAll(l.Text, res.Boundary, "")), "the system layer is not empty")
		}
	}
	assert.NotContains(t, names, "system")
	dev := layerText(t, res, "developer")
	for _, f := range res.Files {
		if f.Name == "TOOLS.md" {
			dev = strings.Replace(dev, f.Content, "", 1)
		}
	}
	own := utf8.RuneCountInString(dev)
	assert.Less(t, own, 1000, "the developer layer, without TOOLS.md, should stay near 0.8k chars:\n%s", dev)
	for _, unwanted := range []string{"## Tooling", "## Safety", "## Messaging", "## Behavior Contract", "## Skills", "SOUL.md"} {
		assert.False(t, holds(dev, unwanted), "want no %q in the developer layer", unwanted)
	}
	assert.True(t, holds(dev, "## OpenClaw Runtime"))
	assert.Contains(t, dev, "`openclaw help`")
	assert.Contains(t, dev, "https://docs.openclaw.ai")
}

// With the memory tools, in the agent's own workspace, a note points to
// them; MEMORY.md's text is in no layer.
func TestCodexMemoryNoteWithTools(t *testing.T) {
	res := codexTurn(t, "", nil)
	collab := layerText(t, res, "collaboration")
	assert.True(t, holds(collab, "## Workspace Memory"))
	assert.NotContains(t, collab, "## /ws/MEMORY.md")
	for _, l := range res.Layers {
		assert.NotContains(t, l.Text, "Mar Aberto", "MEMORY.md's text in layer %s", l.Name)
	}
}

// MEMORY.md falls back to turn context, as a bounded file block in the
// collaboration layer, when the memory tools are missing or the turn reads
// another workspace than the agent's.
func TestCodexMemoryFallsBackToTurnContext(t *testing.T) {
	cases := []struct {
		name, config string
		edit         func(*engine.Request)
	}{
		{"no memory tools", "", withoutTools("memory_search", "memory_get")},
		{"another workspace", "[[agents.list]]\nid = \"wren\"\nworkspace = \"/home/ana/.openclaw/workspace\"\n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := codexTurn(t, c.config, c.edit)
			collab := layerText(t, res, "collaboration")
			assert.True(t, holds(collab, "## /ws/MEMORY.md"), "MEMORY.md is not in the collaboration layer:\n%s", collab)
			assert.Contains(t, collab, "Mar Aberto")
			assert.False(t, holds(collab, "## Workspace Memory"))
			assert.NotContains(t, layerText(t, res, "developer"), "Mar Aberto")
		})
	}
}

// The same workspace, spelled with a trailing slash, is the agent's own.
func TestCodexMemoryNoteInTheAgentsWorkspace(t *testing.T) {
	res := codexTurn(t, "[[agents.list]]\nid = \"wren\"\nworkspace = \"/ws/\"\n", nil)
	assert.True(t, holds(layerText(t, res, "collaboration"), "## Workspace Memory"))
}

// Every cron turn under Codex is treated as a lightweight one: it keeps
// its scheduled prompt and gets no skills list.
func TestCodexCronTurnHasNoSkillsList(t *testing.T) {
	res := codexTurn(t, "", func(r *engine.Request) { r.SessionKind = "cron" })
	for _, l := range res.Layers {
		assert.False(t, holds(l.Text, "## Skills"), "skills list in layer %s", l.Name)
		assert.NotContains(t, l.Text, "<available_skills>")
	}
	main := codexTurn(t, "", nil)
	assert.True(t, holds(layerText(t, main, "collaboration"), "## Skills"), "a main turn keeps the list")
}

// BOOTSTRAP.md keeps its turn-context role: the collaboration layer.
func TestCodexBootstrapIsTurnContext(t *testing.T) {
	ws := exampleWorkspace(t)
	require.NoError(t, afero.WriteFile(ws, "/ws/BOOTSTRAP.md", []byte("# First run\nAsk Ana what to call you.\n"), 0o644))
	res := codexTurnIn(t, ws, "", nil) // setup pending: detected from the file
	collab := layerText(t, res, "collaboration")
	assert.True(t, holds(collab, "## /ws/BOOTSTRAP.md"), "BOOTSTRAP.md is not in the collaboration layer:\n%s", collab)
	assert.Contains(t, collab, "work through it before anything else")
	assert.False(t, holds(layerText(t, res, "developer"), "## /ws/BOOTSTRAP.md"))
}

// A message-tool-only turn is told that its final reply stays private,
// since the developer layer says replies reach the chat.
func TestCodexMessageToolDelivery(t *testing.T) {
	res := codexTurn(t, "", func(r *engine.Request) { r.Channel.Delivery = "message_tool_only" })
	collab := res.Layers[len(res.Layers)-1]
	assert.Equal(t, "collaboration", collab.Name)
	assert.Contains(t, collab.Dynamic, "only what you send with `message`")
	assert.NotContains(t, codexTurn(t, "", nil).Layers[1].Text, "## Delivery")
}

// TestCodexSharedSessionsKeepMemoryPrivate: under Codex too, a group or
// cron session gets neither MEMORY.md nor the note that stands in for it.
func TestCodexSharedSessionsKeepMemoryPrivate(t *testing.T) {
	for name, edit := range map[string]func(*engine.Request){
		"group": func(r *engine.Request) { r.ChatType = "group" },
		"cron":  func(r *engine.Request) { r.SessionKind = "cron" },
		"group without memory tools": func(r *engine.Request) {
			r.ChatType = "group"
			r.Tools = slices.DeleteFunc(r.Tools, func(t engine.Tool) bool { return strings.HasPrefix(t.Name, "memory_") })
		},
	} {
		t.Run(name, func(t *testing.T) {
			res := codexTurn(t, "", edit)
			for _, l := range res.Layers {
				assert.False(t, holds(l.Text, "## Workspace Memory"), "%s layer", l.Name)
				assert.NotContains(t, l.Text, "Curated by Wren", "%s layer", l.Name)
				assert.NotContains(t, l.Text, "MEMORY.md - Long-term memory", "%s layer", l.Name)
			}
		})
	}
}
