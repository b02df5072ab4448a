package pack

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// filesPack is editPack with one harness h whose [harness.files] table,
// starting on line 12, holds entries.
func filesPack(t *testing.T, entries string) (*Pack, []string) {
	t.Helper()
	p, errs := editPack(t, "[[harness]]\nname = \"h\"\n[[harness.layer]]\nname = \"system\"\nbase = \"system\"\n[harness.files]\n"+entries)
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	return p, msgs
}

func TestHarnessFilesValidation(t *testing.T) {
	cases := []struct{ entries, want string }{
		{`"MEMORY.md" = { when_tools = ["memory_search"] }`, `:12:1: harness "h": "MEMORY.md" needs an omit reason`},
		{`"MEMORY.md" = { omit = "  ", when_agent_workspace = true }`, `:12:1: harness "h": "MEMORY.md" needs an omit reason`},
		{`"MEMORY.md" = { omit = "note", when_tools = ["memory_search", ""] }`, `:12:1: harness "h": "MEMORY.md" has an empty name in when_tools`},
		{`"MEMORY.md" = { omit = "note", when_tools = [] }`, `:12:1: harness "h": "MEMORY.md" has when_tools = [], which no turn meets`},
		{`"MEMORY.md" = { omit = "note", when_agent_workspace = "yes" }`, `when_agent_workspace`},
		{`"MEMORY.md" = { omit = "note", when_workspace = true }`, `unknown key "harness.files.\"MEMORY.md\".when_workspace"`},
	}
	for _, c := range cases {
		t.Run(c.entries, func(t *testing.T) {
			_, msgs := filesPack(t, c.entries)
			require.Len(t, msgs, 1, "%v", msgs)
			assert.Contains(t, msgs[0], c.want)
		})
	}
}

// A name outside the pack's bootstrap files can only come from a hook:
// a warning, since it may be meant.
func TestHarnessFilesUnknownNameWarns(t *testing.T) {
	p, msgs := filesPack(t, `"NOTES.md" = { omit = "kept out" }`)
	require.Empty(t, msgs)
	var warned bool
	for _, w := range p.Warnings {
		warned = warned || assert.ObjectsAreEqual(manifestPath+`:12:1: harness "h" routes "NOTES.md", which is not in the bootstrap files of templates/defaults.toml; only a hook can add it`, w.Error())
	}
	assert.True(t, warned, "%v", p.Warnings)
}

func TestHarnessOmit(t *testing.T) {
	p, msgs := filesPack(t, `"AGENTS.md" = { omit = "always" }
"MEMORY.md" = { omit = "tools", when_tools = ["memory_search", "memory_get"], when_agent_workspace = true }
"memory.md" = { omit = "own workspace", when_agent_workspace = true }
"SOUL.md" = { omit = "tools only", when_tools = ["memory_get"] }
`)
	require.Empty(t, msgs)
	h := p.Harnesses["h"]
	has := func(names ...string) func(...string) bool {
		return func(want ...string) bool {
			return slices.ContainsFunc(want, func(w string) bool { return slices.Contains(names, w) })
		}
	}
	cases := []struct {
		name string
		turn Turn
		want map[string]string
	}{
		{"no tools, own workspace", Turn{HasAnyTool: has()},
			map[string]string{"AGENTS.md": "always", "memory.md": "own workspace"}},
		{"one memory tool, own workspace", Turn{HasAnyTool: has("memory_get")},
			map[string]string{"AGENTS.md": "always", "MEMORY.md": "tools", "memory.md": "own workspace", "SOUL.md": "tools only"}},
		{"tools, another workspace", Turn{HasAnyTool: has("memory_search", "memory_get"), OtherWorkspace: true},
			map[string]string{"AGENTS.md": "always", "SOUL.md": "tools only"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, h.Omit(c.turn))
		})
	}
}
