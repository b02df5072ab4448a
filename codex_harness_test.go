package sysprompt_test

import (
	"slices"
	"strings"
	"testing"
	"time"
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
	assert.Less(t, own, 1700, "the developer layer, without TOOLS.md, should stay near 1.2k chars (runtime, sub-agents and tools):\n%s", dev)
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
// since the developer layer says replies reach the chat, and how to aim
// the message tool; an automatic turn is told where its reply goes.
func TestCodexMessageToolDelivery(t *testing.T) {
	res := codexTurn(t, "", func(r *engine.Request) { r.Channel.Delivery = "message_tool_only" })
	collab := res.Layers[len(res.Layers)-1]
	assert.Equal(t, "collaboration", collab.Name)
	assert.Contains(t, collab.Dynamic, "only what you send with `message`")
	assert.Contains(t, collab.Dynamic, "set `channel` only to send somewhere else")
	assert.NotContains(t, collab.Dynamic, "send only when you add something", "a direct chat gets no group rule")

	auto := layerText(t, codexTurn(t, "", nil), "collaboration")
	assert.Contains(t, auto, "This turn came from Telegram: your final reply goes back to that chat.")
	assert.NotContains(t, auto, "stays private")

	group := codexTurn(t, "", func(r *engine.Request) { r.ChatType, r.Channel.Delivery = "group", "message_tool_only" })
	assert.Contains(t, group.Layers[1].Dynamic, "In this group, send only when you add something")
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

// codexSession renders turns of one session on one engine, over the
// example workspace with an agent config: the example one (where Wren
// prefers delegation) when cfgText is "".
func codexSession(t *testing.T, cfgText string) func(edit func(*engine.Request)) (*engine.Result, error) {
	t.Helper()
	src := []byte(cfgText)
	if cfgText == "" {
		src = mustReadFile(t, "examples/agents.toml")
	}
	cfg, err := config.Parse("agents.toml", src)
	require.NoError(t, err)
	e, err := engine.New(packWith(t, nil), engine.WithFS(exampleWorkspace(t)), engine.WithConfig(cfg),
		engine.WithWarningStore(bootstrap.NewMemoryStore()))
	require.NoError(t, err)
	return func(edit func(*engine.Request)) (*engine.Result, error) {
		req, err := engine.ParseRequest("codex.toml", mustReadFile(t, "examples/requests/codex.toml"))
		require.NoError(t, err)
		req.Workspace.Path = "/ws"
		if edit != nil {
			edit(&req)
		}
		return e.Render(t.Context(), req)
	}
}

func withTool(name string) func(*engine.Request) {
	return func(r *engine.Request) { r.Tools = append(r.Tools, engine.Tool{Name: name}) }
}

// The developer layer tells Codex's own sub-agents apart from
// sessions_spawn, naming the latter only when the run has it, and points
// to the tool search for deferred tools; none of it is turn-scoped.
func TestCodexSubAgentGuidance(t *testing.T) {
	with := codexTurn(t, "", withTool("sessions_spawn"))
	dev := layerText(t, with, "developer")
	assert.Contains(t, with.Layers[0].Stable, "## Sub-Agents and Tools")
	assert.Contains(t, dev, "Codex's own sub-agent tool")
	assert.Contains(t, dev, "`sessions_spawn` is a different thing")
	assert.Contains(t, dev, "tool-search tool")
	assert.NotContains(t, layerText(t, with, "collaboration"), "sub-agent tool")

	without := layerText(t, codexTurn(t, "", nil), "developer")
	assert.Contains(t, without, "Codex's own sub-agent tool")
	assert.NotContains(t, without, "sessions_spawn")
}

// delegationMode = "prefer" adds Sub-Agent Delegation to the developer
// layer's cached part, only with sessions_spawn and only in full mode.
func TestCodexDelegationWhenPreferred(t *testing.T) {
	turn := codexSession(t, "[agents.defaults.subagents]\ndelegationMode = \"prefer\"\n\n[[agents.list]]\nid = \"wren\"\n")
	res, err := turn(withTool("sessions_spawn"))
	require.NoError(t, err)
	assert.True(t, holds(res.Layers[0].Stable, "## Sub-Agent Delegation"), res.Layers[0].Stable)
	assert.Contains(t, res.Layers[0].Stable, "through `sessions_spawn`")
	assert.False(t, holds(res.Layers[1].Text, "## Sub-Agent Delegation"))

	for name, edit := range map[string]func(*engine.Request){
		"without sessions_spawn": nil,
		"minimal":                func(r *engine.Request) { withTool("sessions_spawn")(r); r.Mode = engine.ModeMinimal },
	} {
		res, err := turn(edit)
		require.NoError(t, err)
		for _, l := range res.Layers {
			assert.False(t, holds(l.Text, "## Sub-Agent Delegation"), "%s: layer %s", name, l.Name)
		}
	}
	suggest := codexTurn(t, "[[agents.list]]\nid = \"wren\"\n", withTool("sessions_spawn"))
	assert.False(t, holds(layerText(t, suggest, "developer"), "## Sub-Agent Delegation"), "suggest is the default")
}

// Memory Recall goes in the collaboration layer wherever the memory tools
// are, groups included (where memory is not quoted), and not without them.
func TestCodexMemoryRecall(t *testing.T) {
	direct := codexTurn(t, "", nil)
	assert.True(t, holds(direct.Layers[1].Stable, "## Memory Recall"))
	assert.False(t, holds(layerText(t, direct, "developer"), "## Memory Recall"))

	group := layerText(t, codexTurn(t, "", func(r *engine.Request) { r.ChatType = "group" }), "collaboration")
	assert.True(t, holds(group, "## Memory Recall"), group)
	assert.Contains(t, group, "do not quote it")
	assert.False(t, holds(group, "## Workspace Memory"), "MEMORY.md is private in a group: no note for it")

	none := codexTurn(t, "", withoutTools("memory_search", "memory_get"))
	for _, l := range none.Layers {
		assert.False(t, holds(l.Text, "## Memory Recall"), "layer %s", l.Name)
	}
}

// A lightweight cron run has nothing of the workspace: no files, skills
// or memory, and a Scheduled Run block is the whole cached part of its
// collaboration layer. A full cron run has the cron files, the skills and
// Memory Recall, and no such block.
func TestCodexCronShapes(t *testing.T) {
	turn := codexSession(t, "")
	light, err := turn(func(r *engine.Request) { r.SessionKind, r.LightContext = "cron", true })
	require.NoError(t, err)
	collab := light.Layers[1]
	require.Equal(t, "collaboration", collab.Name)
	assert.True(t, strings.HasPrefix(collab.Stable, "## Scheduled Run\n"), collab.Stable)
	assert.Equal(t, 1, strings.Count("\n"+collab.Stable, "\n## ")+strings.Count("\n"+collab.Stable, "\n# "), "one section only:\n%s", collab.Stable)
	assert.Empty(t, light.Files, "a lightweight run reads no workspace file")
	for _, l := range light.Layers {
		for _, unwanted := range []string{"## Skills", "<available_skills>", "## Memory Recall", "## Workspace Memory", "# Project Context", "## Conversation"} {
			assert.False(t, holds(l.Text, unwanted), "%q in layer %s", unwanted, l.Name)
		}
	}

	full, err := turn(func(r *engine.Request) { r.SessionKind = "cron" })
	require.NoError(t, err)
	fc := layerText(t, full, "collaboration")
	for _, want := range []string{"## /ws/SOUL.md", "## Skills", "## Memory Recall"} {
		assert.True(t, holds(fc, want), "%q missing from a full cron run:\n%s", want, fc)
	}
	assert.False(t, holds(fc, "## Scheduled Run"))
	assert.False(t, holds(fc, "## /ws/MEMORY.md"), "cron runs never get MEMORY.md")
	assert.NotEqual(t, light.Layers[1].StableSHA256(), full.Layers[1].StableSHA256())

	_, err = turn(func(r *engine.Request) { r.LightContext = true })
	require.Error(t, err, "light_context on a main session")
	assert.Contains(t, err.Error(), "light_context is for cron runs")
}

// The turn's date, in the user's zone, is below the collaboration layer's
// boundary, with the status tool for the exact time when there is one.
func TestCodexTemporalContext(t *testing.T) {
	const date = "2026-11-30T23:30:00Z"
	utc, _ := time.Parse(time.RFC3339, date)
	tokyo := utc.In(time.FixedZone("JST", 9*60*60)).Format(time.DateOnly) // Tokyo keeps no daylight saving time
	res := codexTurn(t, "", allOf(withTool("session_status"), func(r *engine.Request) { r.Date, r.Timezone = date, "Asia/Tokyo" }))
	collab := res.Layers[1]
	assert.Contains(t, collab.Dynamic, "## Temporal Context\nCurrent date: "+tokyo+"\nTime zone: Asia/Tokyo\nFor the exact time, call `session_status`.")
	for _, l := range res.Layers {
		assert.NotContains(t, l.Stable, tokyo, "the date in the cached part of layer %s", l.Name)
	}
	undated := codexTurn(t, "", func(r *engine.Request) { r.Date = "" })
	assert.False(t, holds(undated.Layers[1].Text, "## Temporal Context"))
}

// Within one Codex session the next turn (a new day, other owners, another
// delivery mode, new group context) leaves the developer layer byte for
// byte and the collaboration layer's cached part as they were; only the
// turn facts below the boundary change.
func TestCodexNextTurnKeepsTheDeveloperLayer(t *testing.T) {
	turn := codexSession(t, "")
	group := func(r *engine.Request) { r.ChatType = "group"; r.Session.Key = "agent:wren:telegram:group:-100200" }
	first, err := turn(group)
	require.NoError(t, err)
	next, err := turn(func(r *engine.Request) {
		group(r)
		r.Date = "2026-12-01T08:05:00Z"
		r.Owners = []string{"telegram:48213377", "telegram:55501234"}
		r.Channel.Delivery = "message_tool_only"
		r.ExtraSystemPrompt = "Ana added Marta to the group."
	})
	require.NoError(t, err)
	require.Len(t, next.Layers, len(first.Layers))
	assert.Equal(t, "developer", next.Layers[0].Name)
	assert.Equal(t, first.Layers[0].Text, next.Layers[0].Text, "the developer layer changed")
	assert.Equal(t, first.Layers[1].Stable, next.Layers[1].Stable, "the collaboration layer's cached part changed")
	assert.NotEqual(t, first.Layers[1].Dynamic, next.Layers[1].Dynamic)
	assert.Contains(t, next.Layers[1].Dynamic, "Current date: 2026-12-01")
	assert.Contains(t, next.Layers[1].Dynamic, "Ana added Marta to the group.")
}

// A group session is told how to behave in a shared chat, in the cached
// part of the collaboration layer; a direct one is told it is direct.
func TestCodexConversationContext(t *testing.T) {
	group := codexTurn(t, "", func(r *engine.Request) { r.ChatType = "group" })
	assert.True(t, holds(group.Layers[1].Stable, "## Group Chat"), group.Layers[1].Stable)
	assert.Contains(t, group.Layers[1].Stable, "not everyone who writes is the person you work for")
	assert.False(t, holds(group.Layers[1].Text, "## Conversation"))
	assert.False(t, holds(layerText(t, group, "developer"), "## Group Chat"))

	direct := codexTurn(t, "", nil)
	assert.True(t, holds(direct.Layers[1].Stable, "## Conversation"))
	assert.False(t, holds(direct.Layers[1].Text, "## Group Chat"))
}
