package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/host"
)

const toolTable = `
[[tool]]
name = "read"
summary = "Read files."
[[tool]]
name = "exec"
summary = "Run commands."
[[tool]]
name = "cron"
summary = "Schedule work."
`

func TestToolLinesFollowTheTableThenSortTheRest(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "tools"`), map[string]string{
		"tools": section(stable, "{{ range .ToolLines }}{{ .Name }}={{ .Summary }};{{ end }}"),
	})
	addFile(p, "templates/tools.toml", toolTable)
	req := engine.Request{Tools: []engine.Tool{
		{Name: "zeta", Description: "Last one.\nMore detail."},
		{Name: "Exec"},
		{Name: " alpha "},
		{Name: "READ", Description: "ignored: the table wins"},
	}}
	res := render(t, p, req)
	assert.Equal(t, "I am the agent.\n\nREAD=Read files.;Exec=Run commands.;alpha=;zeta=Last one.;", res.Layers[0].Stable)
}

func TestToolTableIsStrict(t *testing.T) {
	p := minimalPack(t, manifest(`"identity"`), nil)
	addFile(p, "templates/tools.toml", "[[tool]]\nname = \"read\"\nsumary = \"x\"\n")
	res := engine.Lint(p)
	require.NotEmpty(t, res.Errors)
	assert.Equal(t, `templates/tools.toml:3:1: unknown key "tool.sumary" (did you mean summary?)`, res.Errors[0].Error())
	addFile(p, "templates/tools.toml", "[[tool]]\nname = \"read\"\n[[tool]]\nname = \"Read\"\n")
	res = engine.Lint(p)
	require.NotEmpty(t, res.Errors)
	assert.Equal(t, `templates/tools.toml:3:1: tool "Read" is listed twice`, res.Errors[0].Error())
}

const channelTable = `
[[channel]]
id = "telegram"
name = "Telegram"
capabilities = ["nativeApprovals"]

[[channel]]
id = "irc"
name = "IRC"
`

// The catalog reaches every section through .Pack: an entry by id (any
// case), merged with the turn's capabilities, and the list in file order.
func TestChannelCatalogInTemplates(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "list", "turn"`), map[string]string{
		"list": section(stable, `{{ range .Pack.Channels }}{{ .ID }}={{ .Name }};{{ end }}`),
		"turn": section(dynamic, `{{ $ch := (.Pack.Channel .Channel.ID).With .Channel.Capabilities }}`+
			`[{{ $ch.Name }}] native={{ $ch.Has "nativeApprovals" }} buttons={{ $ch.Has "inlineButtons" }}`),
	})
	addFile(p, "templates/channels.toml", channelTable)
	cases := []struct {
		channel engine.Channel
		want    string
	}{
		{engine.Channel{ID: "TELEGRAM"}, "[Telegram] native=true buttons=false"},
		{engine.Channel{ID: "irc"}, "[IRC] native=false buttons=false"},
		{engine.Channel{ID: "irc", Capabilities: []string{"inlineButtons"}}, "[IRC] native=false buttons=true"},
		{engine.Channel{ID: "matrix", Capabilities: []string{"nativeApprovals"}}, "[] native=true buttons=false"},
		{engine.Channel{}, "[] native=false buttons=false"},
	}
	for _, c := range cases {
		res := render(t, p, engine.Request{Channel: c.channel})
		assert.Equal(t, "I am the agent.\n\ntelegram=Telegram;irc=IRC;", res.Layers[0].Stable)
		assert.Equal(t, c.want, res.Layers[0].Dynamic, "%+v", c.channel)
	}

	// Without the file the catalog is empty: every channel is unlisted.
	p = minimalPack(t, manifest(`"identity", "turn"`), map[string]string{
		"turn": section(dynamic, `{{ with (.Pack.Channel .Channel.ID).Name }}{{ . }}{{ else }}unlisted{{ end }}`),
	})
	assert.Equal(t, "unlisted", render(t, p, engine.Request{Channel: engine.Channel{ID: "telegram"}}).Layers[0].Dynamic)
}

// A broken catalog is a load error where the problem is written.
func TestChannelCatalogIsStrict(t *testing.T) {
	cases := []struct{ name, file, want string }{
		{"unknown key", "[[channel]]\nid = \"telegram\"\nname = \"Telegram\"\nnative_approvals = true\n",
			`templates/channels.toml:4:1: unknown key "channel.native_approvals"`},
		{"duplicate id", channelTable + "\n[[channel]]\nid = \"telegram\"\nname = \"Telegram again\"\n",
			`templates/channels.toml:12:6: channel "telegram" is listed twice (first at line 3)`},
		{"no id", "[[channel]]\nname = \"Telegram\"\n", `templates/channels.toml:1:3: [[channel]] entry 1 has no id`},
		{"id not lowercase", "[[channel]]\nid = \"Telegram\"\nname = \"Telegram\"\n",
			`templates/channels.toml:2:6: channel id "Telegram" must be lowercase letters, digits, '-' or '_'`},
		{"no name", "[[channel]]\nid = \"irc\"\nname = \" \"\n", `templates/channels.toml:3:8: channel "irc" has no name: templates show it to the model`},
		{"capability twice", "[[channel]]\nid = \"irc\"\nname = \"IRC\"\ncapabilities = [\"inlineButtons\",\n  \"InlineButtons\"]\n",
			`templates/channels.toml:5:3: channel "irc" lists capability "InlineButtons" twice`},
		{"blank capability", "[[channel]]\nid = \"irc\"\nname = \"IRC\"\ncapabilities = [\"native approvals\"]\n",
			`templates/channels.toml:4:17: channel "irc": capability "native approvals" is empty or holds white space`},
		{"syntax", "[[channel]]\nid = \"irc\n", `templates/channels.toml:2:`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := minimalPack(t, manifest(`"identity"`), nil)
			addFile(p, "templates/channels.toml", c.file)
			res := engine.Lint(p)
			require.NotEmpty(t, res.Errors)
			assert.True(t, strings.HasPrefix(res.Errors[0].Error(), c.want), "got  %s\nwant %s", res.Errors[0].Error(), c.want)
			_, err := engine.New(p)
			assert.Error(t, err)
		})
	}
}

const overlayFile = `
name = "gpt5"
models = ['(?i)(^|[/:])gpt-5([.-]|$)']
providers = ["openai", "codex"]
setting = "gpt5"
default_style = "friendly"
stable_prefix = "## Contract\nFinish the job."
[styles.friendly]
interaction_style = "## Interaction Style\nWarm."
[styles.terse]
interaction_style = "## Interaction Style\nBrief."
`

func TestOverlays(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "style", "prefix"`), map[string]string{
		"style":  section(stable+"\noverride = \"interaction_style\"", ""),
		"prefix": section(stable, "{{ .StablePrefix }}"),
	})
	addFile(p, "templates/overlays/gpt5.toml", overlayFile)
	gpt5 := engine.Runtime{Provider: "openai", Model: "openai/gpt-5.1"}
	cases := []struct {
		name    string
		runtime engine.Runtime
		config  string
		want    string
	}{
		{"default style", gpt5, "", "I am the agent.\n\n## Interaction Style\nWarm.\n\n## Contract\nFinish the job."},
		{"on is the default style", gpt5, "[agents.defaults.promptOverlays.gpt5]\npersonality = \"on\"\n", "I am the agent.\n\n## Interaction Style\nWarm.\n\n## Contract\nFinish the job."},
		{"another style", gpt5, "[agents.defaults.promptOverlays.gpt5]\npersonality = \"terse\"\n", "I am the agent.\n\n## Interaction Style\nBrief.\n\n## Contract\nFinish the job."},
		{"off keeps the contract", gpt5, "[agents.defaults.promptOverlays.gpt5]\npersonality = \"off\"\n", "I am the agent.\n\n## Contract\nFinish the job."},
		{"other provider", engine.Runtime{Provider: "anthropic", Model: "gpt-5"}, "", "I am the agent."},
		{"other model", engine.Runtime{Provider: "openai", Model: "gpt-50"}, "", "I am the agent."},
		{"codex gpt-5-codex", engine.Runtime{Provider: "codex", Model: "gpt-5-codex"}, "", "I am the agent.\n\n## Interaction Style\nWarm.\n\n## Contract\nFinish the job."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var opts []engine.Option
			if tc.config != "" {
				cfg, err := config.Parse("c.toml", []byte(tc.config))
				require.NoError(t, err)
				opts = append(opts, engine.WithConfig(cfg))
			}
			res := render(t, p, engine.Request{Runtime: tc.runtime}, opts...)
			assert.Equal(t, tc.want, res.Layers[0].Stable)
		})
	}

	// A request contribution merges after the overlay: its override wins.
	res := render(t, p, engine.Request{Runtime: gpt5, Contributions: []engine.Contribution{{SectionOverrides: map[string]string{"interaction_style": "## Interaction Style\nMine."}}}})
	assert.Contains(t, res.Layers[0].Stable, "Mine.")

	// An unknown style, or a setting no overlay reads, is a config error
	// at load, whatever model the first render uses.
	cfg, err := config.Parse("c.toml", []byte("[agents.defaults.promptOverlays.gpt5]\npersonality = \"pirate\"\n"))
	require.NoError(t, err)
	_, err = engine.New(p, engine.WithConfig(cfg))
	require.EqualError(t, err, `c.toml:2:1: promptOverlays.gpt5.personality = "pirate" is not allowed (want on, off, friendly, terse)`)
	cfg, err = config.Parse("c.toml", []byte("[[agents.list]]\nid = \"a\"\n[agents.list.promptOverlays.gpt6]\npersonality = \"on\"\n"))
	require.NoError(t, err)
	_, err = engine.New(p, engine.WithConfig(cfg))
	require.EqualError(t, err, `c.toml:3:2: promptOverlays.gpt6: no overlay of the pack has the setting "gpt6" (have gpt5)`)
}

func TestPackDefaultsReachTheTemplates(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "d"`), map[string]string{
		"d": section(stable, "{{ .Config.TimeFormat }} {{ .Config.MemoryCitations }} {{ .Config.DelegationMode }} {{ .Config.HeartbeatEnabled }} {{ .Config.HeartbeatSection }}"),
	})
	res := render(t, p, engine.Request{})
	assert.Contains(t, res.Layers[0].Stable, "auto auto suggest true true", "the built-in pack's defaults")

	setDefault(t, p, "format", `"24"`)
	setDefault(t, p, "citations", `"off"`)
	setDefault(t, p, "delegation_mode", `"prefer"`)
	setDefault(t, p, "enabled", "false")
	setDefault(t, p, "include_section", "false")
	res = render(t, p, engine.Request{})
	assert.Contains(t, res.Layers[0].Stable, "24 off prefer false false", "a pack's own defaults")
}

// Every default is required: a pack that leaves one out is told which,
// at the table it belongs in (or the top of the file, with no table).
func TestPackDefaultsAreRequired(t *testing.T) {
	const missing = " is missing: templates/defaults.toml is the only source of the pack's defaults, so it must set every one"
	for key, want := range map[string]string{
		"format":             "templates/defaults.toml:7:2: time.format" + missing,
		"citations":          "templates/defaults.toml:14:2: memory.citations" + missing,
		"delegation_mode":    "templates/defaults.toml:17:2: subagents.delegation_mode" + missing,
		"enabled":            "templates/defaults.toml:20:2: heartbeat.enabled" + missing,
		"include_section":    "templates/defaults.toml:20:2: heartbeat.include_section" + missing,
		"prompt":             "templates/defaults.toml:20:2: heartbeat.prompt" + missing,
		"max_in_prompt":      "templates/defaults.toml:10:2: skills.max_in_prompt" + missing,
		"truncation_warning": "templates/defaults.toml:26:2: bootstrap.truncation_warning" + missing,
		"files":              "templates/defaults.toml:26:2: bootstrap.files" + missing,
		"dynamic":            "templates/defaults.toml:26:2: bootstrap.dynamic" + missing,
	} {
		t.Run(key, func(t *testing.T) {
			p := minimalPack(t, manifest(`"identity"`), nil)
			dropDefault(t, p, key)
			_, err := engine.New(p)
			require.EqualError(t, err, want)
		})
	}

	// Without its table, the key is placed at the top of the file.
	p := minimalPack(t, manifest(`"identity"`), nil)
	dropDefault(t, p, "format")
	m := p.(fstest.MapFS)
	m["templates/defaults.toml"].Data = []byte(strings.Replace(string(m["templates/defaults.toml"].Data), "[time]\n", "", 1))
	_, err := engine.New(p)
	require.EqualError(t, err, "templates/defaults.toml:1:1: time.format"+missing)
}

// An enumerated default takes the values the config's key takes.
func TestPackDefaultsAreValidated(t *testing.T) {
	for key, tc := range map[string]struct{ value, want string }{
		"format":             {`"25"`, `templates/defaults.toml:8:1: time.format = "25" is not allowed (want auto, 12, 24)`},
		"citations":          {`"maybe"`, `templates/defaults.toml:15:1: memory.citations = "maybe" is not allowed (want auto, on, off)`},
		"delegation_mode":    {`"always"`, `templates/defaults.toml:18:1: subagents.delegation_mode = "always" is not allowed (want suggest, prefer)`},
		"truncation_warning": {`"never"`, `templates/defaults.toml:29:1: bootstrap.truncation_warning = "never" is not allowed (want off, once, always)`},
		"enabled":            {`"yes"`, `templates/defaults.toml:21:1: key "heartbeat.enabled": incompatible types: TOML value has type string; destination has type boolean`},
		"max_chars":          {"-1", `templates/defaults.toml:27:1: bootstrap.max_chars must be a positive number, not -1`},
	} {
		t.Run(key, func(t *testing.T) {
			p := minimalPack(t, manifest(`"identity"`), nil)
			setDefault(t, p, key, tc.value)
			_, err := engine.New(p)
			require.EqualError(t, err, tc.want)
		})
	}
}

// The workspace file lists are defaults like the others: required, with
// an explicit [] meaning none, and each name checked where it is written.
func TestBootstrapFileLists(t *testing.T) {
	ws := workspaceFS(t, map[string]string{"AGENTS.md": "agents", "SOUL.md": "soul", "HEARTBEAT.md": "beat"})
	req := engine.Request{Workspace: engine.Workspace{Path: "/ws"}}
	p := minimalPack(t, manifest(`"identity", "ctx", "late"`), map[string]string{
		"ctx":  section(stable, "{{ range .Files }}{{ .Name }};{{ end }}"),
		"late": section(dynamic, "{{ range .DynamicFiles }}{{ .Name }};{{ end }}"),
	})
	setDefault(t, p, "files", `["SOUL.md", "HEARTBEAT.md"]`)
	res := render(t, p, req, engine.WithFS(ws))
	assert.Equal(t, "I am the agent.\n\nSOUL.md;", res.Layers[0].Stable)
	assert.Equal(t, "HEARTBEAT.md;", res.Layers[0].Dynamic)

	setDefault(t, p, "dynamic", "[]")
	res = render(t, p, req, engine.WithFS(ws))
	assert.Equal(t, "I am the agent.\n\nSOUL.md;HEARTBEAT.md;", res.Layers[0].Stable, "an explicit [] puts no file below the boundary")

	setDefault(t, p, "files", "[]")
	res = render(t, p, req, engine.WithFS(ws))
	assert.Equal(t, "I am the agent.", res.Layers[0].Stable, "an explicit [] injects no file")

	for value, want := range map[string]string{
		`["SOUL.md", "SOUL.md"]`:   `templates/defaults.toml:34:21: bootstrap.files: "SOUL.md" is listed twice`,
		`["SOUL.md", "../etc.md"]`: `templates/defaults.toml:34:21: bootstrap.files: path "../etc.md" refused: path escapes the workspace`,
		`["SOUL.md", "/abs/x.md"]`: `templates/defaults.toml:34:21: bootstrap.files: path "/abs/x.md" refused: absolute path`,
	} {
		setDefault(t, p, "files", value)
		_, err := engine.New(p)
		assert.EqualError(t, err, want, value)
	}
}

func TestOverlayValidation(t *testing.T) {
	p := minimalPack(t, manifest(`"identity"`), nil)
	addFile(p, "templates/overlays/bad.toml", "name = \"x\"\nmodels = ['(']\n")
	res := engine.Lint(p)
	require.NotEmpty(t, res.Errors)
	assert.Contains(t, res.Errors[0].Error(), "templates/overlays/bad.toml:2:1: overlay \"x\": bad model pattern")
}

func TestHarnessFileRouting(t *testing.T) {
	m := manifest(`"identity", "ctx"`) + `
[[harness]]
name = "codex"
[harness.files]
"AGENTS.md" = { omit = "the harness reads it" }
"MEMORY.md" = { omit = "memory note instead", when_tools = ["memory_search"] }
[[harness.layer]]
name = "system"
sections = ["identity", "ctx"]
`
	p := minimalPack(t, m, map[string]string{
		"ctx": section(stable, "{{ range .Files }}{{ .Name }}:{{ .Status }}:{{ .RawChars }};{{ end }}"),
	})
	setDefault(t, p, "files", `["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "MEMORY.md"]`)
	setDefault(t, p, "optional", "[]")
	ws := workspaceFS(t, map[string]string{"AGENTS.md": "agents", "MEMORY.md": "memory", "SOUL.md": "soul", "TOOLS.md": "t", "IDENTITY.md": "i", "USER.md": "u"})
	req := engine.Request{Harness: "codex", Workspace: engine.Workspace{Path: "/ws"}}
	res := render(t, p, req, engine.WithFS(ws))
	assert.Equal(t, "AGENTS.md:SKIPPED:6;SOUL.md:OK:4;TOOLS.md:OK:1;IDENTITY.md:OK:1;USER.md:OK:1;MEMORY.md:OK:6;", strings.TrimPrefix(res.Layers[0].Stable, "I am the agent.\n\n"))
	req.Tools = []engine.Tool{{Name: "memory_search"}}
	res = render(t, p, req, engine.WithFS(ws))
	assert.Contains(t, res.Layers[0].Stable, "MEMORY.md:SKIPPED:6;")
}

// when_agent_workspace: a file that stands for the agent's memory is left
// out only while the turn reads the agent's own workspace.
func TestHarnessFileRoutingByWorkspace(t *testing.T) {
	m := manifest(`"identity", "ctx"`) + `
[[harness]]
name = "codex"
[harness.files]
"MEMORY.md" = { omit = "memory note instead", when_tools = ["memory_search"], when_agent_workspace = true }
[[harness.layer]]
name = "system"
sections = ["ctx"]
`
	p := minimalPack(t, m, map[string]string{
		"ctx": section(stable, "{{ with .Files.Get \"MEMORY.md\" }}{{ .Status }}{{ end }}"),
	})
	ws := workspaceFS(t, map[string]string{"MEMORY.md": "memory"})
	req := engine.Request{Harness: "codex", Workspace: engine.Workspace{Path: "/ws"}, Tools: []engine.Tool{{Name: "memory_search"}}}
	for _, c := range []struct{ config, want string }{
		{"", "SKIPPED"}, // no config: the turn's workspace is the agent's
		{"[agents.defaults]\nuserTimezone = \"UTC\"\n", "SKIPPED"},
		{"[agents.defaults]\nworkspace = \"/ws/\"\n", "SKIPPED"},
		{"[agents.defaults]\nworkspace = \"/home/ana/agent\"\n", "OK"},
		{"[agents.defaults]\nworkspace = \"/ws\"\n[[agents.list]]\nid = \"a\"\nworkspace = \"/elsewhere\"\n", "OK"},
	} {
		opts := []engine.Option{engine.WithFS(ws)}
		if c.config != "" {
			cfg, err := config.Parse("c.toml", []byte(c.config))
			require.NoError(t, err)
			opts = append(opts, engine.WithConfig(cfg))
		}
		r := req
		if strings.Contains(c.config, "agents.list") {
			r.Agent = "a"
		}
		res := render(t, p, r, opts...)
		assert.Equal(t, c.want, res.Layers[0].Stable, "config %q", c.config)
	}
}

func TestConfigReplacesABootstrapFile(t *testing.T) {
	ws := workspaceFS(t, map[string]string{"SOUL.md": "landlubber", "personas/pirate.md": "Arr, matey."})
	cfg, err := config.Parse("c.toml", []byte("[bootstrap.replace]\n\"SOUL.md\" = \"personas/pirate.md\"\n"))
	require.NoError(t, err)
	res := render(t, packWith(t, nil), engine.Request{Workspace: engine.Workspace{Path: "/ws"}}, engine.WithFS(ws), engine.WithConfig(cfg))
	assert.Contains(t, res.Layers[0].Stable, "Arr, matey.")
	assert.NotContains(t, res.Layers[0].Stable, "landlubber")
}

// A replace key that names no workspace file of the pack fails the engine
// rather than being ignored.
func TestConfigReplaceOfAnUnknownFileIsRefused(t *testing.T) {
	cfg, err := config.Parse("c.toml", []byte("[bootstrap.replace]\n\"AGENT.md\" = \"personas/pirate.md\"\n"))
	require.NoError(t, err)
	_, err = engine.New(sysprompt.Pack, engine.WithConfig(cfg))
	assert.EqualError(t, err, `c.toml:2:1: [bootstrap.replace] "AGENT.md" is not a workspace file of the pack (did you mean AGENTS.md?)`)
}

const catalogPartial = `{{ define "skills_catalog" -}}
<available_skills>
{{- range .Listed }}
  <skill><name>{{ xml .Name }}</name>{{ if $.Descriptions }}<description>{{ xml .Description }}</description>{{ end }}<location>{{ xml .Location }}</location><version>{{ .Version }}</version></skill>
{{- end }}
</available_skills>
{{- with .Note }}
{{ . }}
{{- end }}
{{- end }}`

func skillFile(name, desc, meta string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n" + meta + "---\nDo the thing.\n"
}

func TestSkillsCatalog(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "skills"`), map[string]string{
		"skills": section(stable, "{{ with .Skills.Listed }}## Skills\n{{ include \"skills_catalog\" $.Skills }}{{ end }}"),
	})
	addFile(p, "templates/skills.tmpl", catalogPartial)
	ws := workspaceFS(t, map[string]string{
		"skills/b-tool/SKILL.md":          skillFile("b-tool", "Uses <b> & \"quotes\"", ""),
		"skills/personal/a-note/SKILL.md": skillFile("a-note", "Takes notes", ""),
		"skills/needs-bin/SKILL.md":       skillFile("needs-bin", "Needs a binary", "metadata:\n  requires:\n    bins: [whisper-cli]\n"),
		"skills/needs-config/SKILL.md":    skillFile("needs-config", "Needs config", "metadata:\n  requires:\n    config: [browser.enabled]\n"),
		"skills/has-bin/SKILL.md":         skillFile("has-bin", "Has its binary", "metadata:\n  requires:\n    bins: [git]\n"),
	})
	host := engine.SkillHost{OS: "linux", LookPath: func(b string) bool { return b == "git" }, Home: "/home/ana"}
	req := engine.Request{Workspace: engine.Workspace{Path: "/ws"}}
	res := render(t, p, req, engine.WithFS(ws), engine.WithSkillHost(host))
	text := res.Layers[0].Stable
	assert.Contains(t, text, "<name>a-note</name>")
	assert.Contains(t, text, "<location>/ws/skills/personal/a-note/SKILL.md</location>")
	assert.Contains(t, text, "<description>Uses &lt;b&gt; &amp; &quot;quotes&quot;</description>")
	assert.Contains(t, text, "<name>has-bin</name>")
	assert.NotContains(t, text, "needs-bin")
	assert.NotContains(t, text, "needs-config")
	assert.Less(t, strings.Index(text, "a-note"), strings.Index(text, "b-tool"), "sorted by name")
	assert.Regexp(t, `<version>sha256:[0-9a-f]{64}</version>`, text)
	assert.Equal(t, 5, res.Skills.Found)
	assert.Equal(t, 3, res.Skills.Listed)

	// requires.config reads the agent config as written.
	withBrowser, err := config.Parse("c.toml", []byte("[plugins.browser]\nenabled = true\n"))
	require.NoError(t, err)
	ws2 := workspaceFS(t, map[string]string{"skills/needs-config/SKILL.md": skillFile("needs-config", "Needs config", "metadata:\n  requires:\n    config: [plugins.browser.enabled]\n")})
	res = render(t, p, req, engine.WithFS(ws2), engine.WithConfig(withBrowser))
	assert.Contains(t, res.Layers[0].Stable, "<name>needs-config</name>")
	res = render(t, p, req, engine.WithFS(ws2))
	assert.NotContains(t, res.Layers[0].Stable, "needs-config")

	// A small budget drops descriptions first, then skills, with a note.
	small, err := config.Parse("c.toml", []byte("[skills.limits]\nmaxSkillsPromptChars = 300\n"))
	require.NoError(t, err)
	res = render(t, p, req, engine.WithFS(ws), engine.WithSkillHost(host), engine.WithConfig(small))
	assert.NotContains(t, res.Layers[0].Stable, "<description>")
	assert.Less(t, res.Skills.Listed, 3)
	assert.Contains(t, res.Layers[0].Stable, res.Skills.Note)
	assert.NotEmpty(t, res.Skills.Note)

	// No eligible skill, no section.
	none, err := config.Parse("c.toml", []byte("[agents.defaults]\nskills = []\n"))
	require.NoError(t, err)
	res = render(t, p, req, engine.WithFS(ws), engine.WithSkillHost(host), engine.WithConfig(none))
	assert.NotContains(t, res.Layers[0].Text, "## Skills")
}

// A session's skills catalog is a snapshot: an edited SKILL.md shows in
// the next session, not in a later turn of the same one.
func TestEditedSkillChangesItsVersion(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "skills"`), map[string]string{
		"skills": section(stable, "{{ include \"skills_catalog\" .Skills }}"),
	})
	addFile(p, "templates/skills.tmpl", catalogPartial)
	ws := workspaceFS(t, map[string]string{"skills/x/SKILL.md": skillFile("x", "one", "")})
	e, err := engine.New(p, engine.WithFS(ws))
	require.NoError(t, err)
	req := engine.Request{Workspace: engine.Workspace{Path: "/ws"}, Session: engine.Session{Key: "main", ID: "s1"}}
	first, err := e.Render(context.Background(), req)
	require.NoError(t, err)
	require.NoError(t, afero.WriteFile(ws, "/ws/skills/x/SKILL.md", []byte(skillFile("x", "two, longer", "")), 0o644))
	sameSession, err := e.Render(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, first.Skills.Skills[0].Version, sameSession.Skills.Skills[0].Version)

	req.Session.ID = "s2"
	second, err := e.Render(context.Background(), req)
	require.NoError(t, err)
	assert.NotEqual(t, first.Skills.Skills[0].Version, second.Skills.Skills[0].Version)
	assert.Contains(t, second.Layers[0].Stable, second.Skills.Skills[0].Version)

	// A /reset turn starts a new session too.
	require.NoError(t, afero.WriteFile(ws, "/ws/skills/x/SKILL.md", []byte(skillFile("x", "three", "")), 0o644))
	req.Session.Reset = true
	third, err := e.Render(context.Background(), req)
	require.NoError(t, err)
	assert.NotEqual(t, second.Skills.Skills[0].Version, third.Skills.Skills[0].Version)
}

func TestPluginSkillsFollowThePluginSwitch(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "skills"`), map[string]string{
		"skills": section(stable, "{{ range .Skills.Listed }}{{ .Name }};{{ end }}"),
	})
	addFile(p, "templates/skills.tmpl", catalogPartial)
	plugin := afero.NewMemMapFs()
	require.NoError(t, afero.WriteFile(plugin, "skills/voice-notes/SKILL.md", []byte(skillFile("voice-notes", "Record a voice note", "")), 0o644))
	opt := engine.WithPluginSkills("voice", plugin, "skills", "/opt/voice/skills")
	for _, tc := range []struct {
		config string
		want   string
	}{
		{"", "I am the agent."},
		{"[plugins.voice]\nenabled = false\n", "I am the agent."},
		{"[plugins.voice]\nenabled = true\n", "I am the agent.\n\nvoice-notes;"},
	} {
		cfg, err := config.Parse("c.toml", []byte(tc.config))
		require.NoError(t, err)
		res := render(t, p, engine.Request{}, opt, engine.WithConfig(cfg))
		assert.Equal(t, tc.want, res.Layers[0].Stable, tc.config)
	}
}

func TestOnceWarningIsUsedOnlyByARenderThatShowsIt(t *testing.T) {
	for name, newStore := range map[string]func(t *testing.T) bootstrap.Store{
		"memory": func(*testing.T) bootstrap.Store { return bootstrap.NewMemoryStore() },
		"file": func(t *testing.T) bootstrap.Store {
			return host.NewFileStore(afero.NewOsFs(), filepath.Join(t.TempDir(), "seen.json"), nil)
		},
	} {
		t.Run(name, func(t *testing.T) {
			ws := workspaceFS(t, map[string]string{"AGENTS.md": strings.Repeat("a", 3000), "SOUL.md": "s", "TOOLS.md": "t", "IDENTITY.md": "i", "USER.md": "u"})
			store := newStore(t)
			req := engine.Request{Workspace: engine.Workspace{Path: "/ws"}}
			notice := "## Bootstrap Context Notice"

			// A render that fails after the check does not use the warning up.
			capped, err := engine.New(packWith(t, nil), engine.WithFS(ws), engine.WithWarningStore(store), onceConfig(t, "[agents.defaults.promptLimits]\nmaxChars = 100\n"))
			require.NoError(t, err)
			_, err = capped.Render(context.Background(), req)
			require.ErrorContains(t, err, "over promptLimits.maxChars")

			e, err := engine.New(packWith(t, nil), engine.WithFS(ws), engine.WithWarningStore(store), onceConfig(t, ""))
			require.NoError(t, err)
			// Nor does mode none, which has no notice section.
			none := req
			none.Mode = engine.ModeNone
			_, err = e.Render(context.Background(), none)
			require.NoError(t, err)

			first, err := e.Render(context.Background(), req)
			require.NoError(t, err)
			assert.Contains(t, first.Layers[0].Dynamic, notice)
			second, err := e.Render(context.Background(), req)
			require.NoError(t, err)
			assert.NotContains(t, second.Layers[0].Dynamic, notice)
		})
	}
}

// onceConfig is a config with the "once" truncation warning, a 1000
// character budget per bootstrap file, and extra.
func onceConfig(t *testing.T, extra string) engine.Option {
	t.Helper()
	c, err := config.Parse("c.toml", []byte("[agents.defaults]\nbootstrapMaxChars = 1000\nbootstrapPromptTruncationWarning = \"once\"\n"+extra))
	require.NoError(t, err)
	return engine.WithConfig(c)
}

// A state file that cannot be used never costs the prompt: the notice
// shows, and the store tells its warn function why.
func TestOnceWarningWithAnUnusableStateFile(t *testing.T) {
	ws := workspaceFS(t, map[string]string{"AGENTS.md": strings.Repeat("a", 3000)})
	dir := t.TempDir()
	for name, path := range map[string]string{
		"empty":       filepath.Join(dir, "empty.json"),
		"corrupt":     filepath.Join(dir, "corrupt.json"),
		"a directory": dir,
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "empty.json"), nil, 0o600))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "corrupt.json"), []byte(`{"seen": [`), 0o600))
			var warnings []error
			store := host.NewFileStore(afero.NewOsFs(), path, func(err error) { warnings = append(warnings, err) })
			e, err := engine.New(packWith(t, nil), engine.WithFS(ws), engine.WithWarningStore(store), onceConfig(t, ""))
			require.NoError(t, err)
			res, err := e.Render(context.Background(), engine.Request{Workspace: engine.Workspace{Path: "/ws"}})
			require.NoError(t, err)
			assert.Contains(t, res.Layers[0].Dynamic, "## Bootstrap Context Notice")
			require.Len(t, warnings, 1)
			var se *host.StateError
			require.ErrorAs(t, warnings[0], &se)
			assert.Equal(t, path, se.Path)
		})
	}
}
