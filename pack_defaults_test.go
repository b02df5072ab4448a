package sysprompt_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/vfs"
)

// probeDefaults prints the settings a render takes from the pack's
// defaults when no agent config is given.
const probeDefaults = `+++
modes = ["full", "minimal"]
tier = "stable"
+++
{{ .Config.BootstrapMaxChars }} {{ .Config.BootstrapTotalMaxChars }} {{ .Config.TruncationWarning }} ` +
	`{{ .Config.MaxSkillsPromptChars }} {{ .Config.MaxSkillsInPrompt }} ` +
	`{{ .Config.TimeFormat }} {{ .Config.MemoryCitations }} {{ .Config.DelegationMode }} ` +
	`{{ .Config.HeartbeatEnabled }} {{ .Config.HeartbeatSection }}`

// probeFiles prints the workspace files a render injects, on each side of
// the cache boundary.
const probeFiles = `+++
modes = ["full", "minimal"]
tier = "%s"
+++
%s:{{ range .%s.Injected }} {{ .Name }}{{ end }}`

// userPack is a -pack directory layered over the built-in pack, as the
// CLI builds it: its own manifest, with no [bootstrap] table, and probe
// sections, nothing else.
func userPack(t *testing.T, files map[string]string) afero.Fs {
	t.Helper()
	user := afero.NewMemMapFs()
	files["sections/manifest.toml"] = "identity_section = \"identity\"\nboundary = \"<!-- B -->\"\n\n" +
		"[[layer]]\nname = \"system\"\nsections = [\"identity\", \"probe\", \"stable_files\", \"dynamic_files\"]\n"
	files["sections/probe.md.tmpl"] = probeDefaults
	files["sections/stable_files.md.tmpl"] = fmt.Sprintf(probeFiles, "stable", "stable", "Files")
	files["sections/dynamic_files.md.tmpl"] = fmt.Sprintf(probeFiles, "dynamic", "dynamic", "DynamicFiles")
	for name, text := range files {
		require.NoError(t, afero.WriteFile(user, name, []byte(text), 0o644))
	}
	return user
}

// A pack directory without its own templates/defaults.toml takes the
// built-in one: the settings defaults have no other source to fall back on.
func TestLayeredPackInheritsTheBuiltinDefaults(t *testing.T) {
	p := vfs.Pack(sysprompt.Pack, userPack(t, map[string]string{}))
	res := render(t, p, engine.Request{})
	assert.Contains(t, res.Layers[0].Stable, "20000 60000 always 18000 150 auto auto suggest true true")

	// With its own file, the pack's values win, file for file.
	own := regexp.MustCompile(`(?m)^format = .*$`).ReplaceAllString(string(mustRead(t, "templates/defaults.toml")), `format = "24"`)
	p = vfs.Pack(sysprompt.Pack, userPack(t, map[string]string{"templates/defaults.toml": own}))
	res = render(t, p, engine.Request{})
	assert.Contains(t, res.Layers[0].Stable, "20000 60000 always 18000 150 24 auto suggest true true")
}

// The workspace file lists come with the built-in defaults too: a pack
// directory whose manifest says nothing about them injects the product's
// files, with HEARTBEAT.md below the cache boundary.
func TestLayeredPackInheritsTheBuiltinFileLists(t *testing.T) {
	p := vfs.Pack(sysprompt.Pack, userPack(t, map[string]string{}))
	res := render(t, p, engine.Request{Workspace: engine.Workspace{Path: "/ws"}}, engine.WithFS(workspaceFS(t, smallWorkspace())))
	assert.True(t, strings.HasSuffix(res.Layers[0].Stable, "\nstable: AGENTS.md SOUL.md TOOLS.md IDENTITY.md USER.md MEMORY.md"), res.Layers[0].Stable)
	assert.Equal(t, "dynamic: HEARTBEAT.md", res.Layers[0].Dynamic)

	// A sub-agent gets the subagent list.
	res = render(t, p, engine.Request{Workspace: engine.Workspace{Path: "/ws"}, SessionKind: "subagent"}, engine.WithFS(workspaceFS(t, smallWorkspace())))
	assert.True(t, strings.HasSuffix(res.Layers[0].Stable, "\nstable: AGENTS.md TOOLS.md"), res.Layers[0].Stable)
}

// A pack directory's own templates/channels.toml replaces the built-in
// catalog whole: a channel it leaves out has no default capabilities.
func TestLayeredPackReplacesTheChannelCatalog(t *testing.T) {
	user := afero.NewMemMapFs()
	require.NoError(t, afero.WriteFile(user, "templates/channels.toml",
		[]byte("[[channel]]\nid = \"irc\"\nname = \"IRC\"\ncapabilities = [\"nativeApprovals\"]\n"), 0o644))
	p := vfs.Pack(sysprompt.Pack, user)
	for channel, native := range map[string]bool{"irc": true, "telegram": false} {
		req := engine.Request{Tools: []engine.Tool{{Name: "exec"}}, Channel: engine.Channel{ID: channel}}
		text := render(t, p, req).Layers[0].Dynamic
		assert.Equal(t, native, strings.Contains(text, "appears in this chat as an approval card"), "%s:\n%s", channel, text)
	}
}
