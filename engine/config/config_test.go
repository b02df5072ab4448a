package config_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/config"
)

const exampleConfig = `
[agents.defaults]
bootstrapMaxChars = 9000
userTimezone = "Europe/Lisbon"
timeFormat = "24"

[agents.defaults.heartbeat]
enabled = true

[[agents.list]]
id = "main"

[[agents.list]]
id = "scout"
bootstrapMaxChars = 4000
skills = []
[agents.list.heartbeat]
includeSystemPromptSection = false
[agents.list.promptOverlays.gpt5]
personality = "on"

[skills.limits]
maxSkillsPromptChars = 12000

[memory]
citations = "off"

[tools.experimental]
planTool = true

[plugins.voice]
enabled = true
`

func TestResolvePrecedence(t *testing.T) {
	cfg, err := config.Parse("agents.toml", []byte(exampleConfig))
	require.NoError(t, err)

	// Defaults only.
	s, err := resolveWith(t, cfg, config.Turn{Agent: "main"})
	require.NoError(t, err)
	assert.Equal(t, 9000, s.BootstrapMaxChars, "agents.defaults beats the built-in default")
	assert.Equal(t, 60000, s.BootstrapTotalMaxChars, "built-in default")
	assert.Equal(t, "Europe/Lisbon", s.UserTimezone)
	assert.Equal(t, "24", s.TimeFormat)
	assert.True(t, s.HeartbeatSection)
	assert.Nil(t, s.SkillsAllowlist, "unset allowlist means all skills")
	assert.Equal(t, 12000, s.MaxSkillsPromptChars)
	assert.Equal(t, "off", s.MemoryCitations)
	assert.True(t, s.PlanTool)
	assert.Equal(t, map[string]bool{"voice": true}, s.Plugins)

	// The agent entry beats the defaults; the request beats both.
	s, err = resolveWith(t, cfg, config.Turn{Agent: "scout", Timezone: "Asia/Kolkata"})
	require.NoError(t, err)
	assert.Equal(t, 4000, s.BootstrapMaxChars)
	assert.Equal(t, "Asia/Kolkata", s.UserTimezone)
	assert.False(t, s.HeartbeatSection)
	assert.True(t, s.HeartbeatEnabled, "inherited from defaults")
	require.NotNil(t, s.SkillsAllowlist)
	assert.Empty(t, *s.SkillsAllowlist, "[] means no skills")
	assert.Equal(t, map[string]string{"gpt5": "on"}, s.PromptOverlays)

	// No config: the pack's defaults.
	s, err = resolveWith(t, nil, config.Turn{})
	require.NoError(t, err)
	assert.Equal(t, 20000, s.BootstrapMaxChars, "the pack's default")
	assert.Equal(t, "always", s.TruncationWarning)
	assert.Equal(t, "suggest", s.DelegationMode)
}

// Every setting a config leaves alone comes from the pack's defaults:
// Resolve has no values of its own to fall back on.
func TestResolveTakesEveryDefaultFromThePack(t *testing.T) {
	d := config.Defaults{
		BootstrapMaxChars:      1,
		BootstrapTotalMaxChars: 2,
		TruncationWarning:      "once",
		TimeFormat:             "12",
		HeartbeatEnabled:       false,
		HeartbeatSection:       false,
		HeartbeatPrompt:        "Beat.",
		DelegationMode:         "prefer",
		MaxSkillsPromptChars:   3,
		MaxSkillsInPrompt:      4,
		MemoryCitations:        "on",
	}
	cfg, err := config.Parse("c.toml", []byte("[agents.defaults]\nworkspace = \"/w\"\n"))
	require.NoError(t, err)
	s, err := config.Resolve(cfg, d, config.Turn{})
	require.NoError(t, err)
	assert.Equal(t, config.Settings{
		Workspace:              "/w",
		BootstrapMaxChars:      1,
		BootstrapTotalMaxChars: 2,
		TruncationWarning:      "once",
		TimeFormat:             "12",
		HeartbeatPrompt:        "Beat.",
		DelegationMode:         "prefer",
		PromptOverlays:         map[string]string{},
		MaxSkillsPromptChars:   3,
		MaxSkillsInPrompt:      4,
		MemoryCitations:        "on",
		ContextLimits:          map[string]int{},
		Plugins:                map[string]bool{},
	}, s)
}

func TestResolveUnknownAgent(t *testing.T) {
	cfg, err := config.Parse("agents.toml", []byte(exampleConfig))
	require.NoError(t, err)
	_, err = resolveWith(t, cfg, config.Turn{Agent: "mian"})
	require.EqualError(t, err, `agents.toml: agent "mian" is not in [[agents.list]] (known: main, scout)`)

	// Without a list, every agent takes the defaults.
	noList, err := config.Parse("agents.toml", []byte("[agents.defaults]\nbootstrapMaxChars = 7000\n"))
	require.NoError(t, err)
	s, err := resolveWith(t, noList, config.Turn{Agent: "main"})
	require.NoError(t, err)
	assert.Equal(t, 7000, s.BootstrapMaxChars)
}

func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"unknown key", "[agents.defaults]\nbootstrapMaxChar = 5\n", `c.toml:2:1: unknown key "agents.defaults.bootstrapMaxChar" (did you mean bootstrapMaxChars?)`},
		{"unknown table", "[agent.defaults]\nworkspace = \"/x\"\n", `c.toml:1:2: unknown key "agent.defaults"`},
		{"wrong type", "[agents.defaults]\nbootstrapMaxChars = \"many\"\n", `c.toml:2:1: key "agents.defaults.bootstrapMaxChars": incompatible types: TOML value has type string; destination has type integer`},
		{"bad enum", "[agents.defaults]\ntimeFormat = \"25\"\n", `c.toml:2:1: timeFormat = "25" is not allowed (want auto, 12, 24)`},
		{"bad warning", "[agents.defaults]\nbootstrapPromptTruncationWarning = \"sometimes\"\n", `c.toml:2:1: bootstrapPromptTruncationWarning = "sometimes" is not allowed (want off, once, always)`},
		{"not positive", "[agents.defaults]\nbootstrapMaxChars = 0\n", `c.toml:2:1: bootstrapMaxChars must be a positive number of characters, not 0`},
		{"bad zone", "[agents.defaults]\nuserTimezone = \"Mars/Olympus\"\n", `c.toml:2:1: userTimezone "Mars/Olympus" is not a known IANA zone`},
		{"bad value in second agent", "[[agents.list]]\nid = \"a\"\ntimeFormat = \"12\"\n\n[[agents.list]]\nid = \"b\"\ntimeFormat = \"13\"\n", `c.toml:7:1: timeFormat = "13" is not allowed (want auto, 12, 24)`},
		{"nested enum", "[[agents.list]]\nid = \"a\"\n[agents.list.subagents]\ndelegationMode = \"always\"\n", `c.toml:4:1: subagents.delegationMode = "always" is not allowed (want suggest, prefer)`},
		{"agent without id", "[[agents.list]]\nworkspace = \"/w\"\n", `c.toml:1:1: [[agents.list]] entry 1 has no id`},
		{"duplicate agent", "[[agents.list]]\nid = \"a\"\n[[agents.list]]\nid = \"a\"\n", `c.toml:3:1: agent id "a" is listed twice`},
		{"citations", "[memory]\ncitations = \"maybe\"\n", `c.toml:2:1: memory.citations = "maybe" is not allowed (want auto, on, off)`},
		{"syntax", "[agents.defaults\n", `c.toml:2:1: expected '.' or ']' to end table name, but got '\n' instead`},
		// BurntSushi/toml matches a struct field whatever the case; the
		// original's keys are camelCase and exact, and two spellings of one
		// key must not overwrite each other silently.
		{"key in the wrong case", "[agents.defaults]\nbootstrapMaxChars = 5\nbootstrapmaxchars = 7\n", `c.toml:3:1: unknown key "agents.defaults.bootstrapmaxchars" (did you mean bootstrapMaxChars?)`},
		{"table in the wrong case", "[Agents.defaults]\nbootstrapMaxChars = 5\n", `c.toml:1:2: unknown key "Agents.defaults"`},
		{"contextTokens", "[agents.defaults]\ncontextTokens = 0\n", `c.toml:2:1: contextTokens must be positive, not 0`},
		// The prompt prints the workspace on a line of its own: the config's
		// is refused where it is written, as the request's path is.
		{"workspace with a line break", "[agents.defaults]\nworkspace = \"/w\\n## Forged\"\n", `c.toml:2:1: workspace = "/w\n## Forged" holds U+000A; the prompt prints it on one line, so it takes no line breaks or control characters`},
		{"empty workspace", "[[agents.list]]\nid = \"a\"\nworkspace = \"\"\n", `c.toml:3:1: workspace is empty (leave the key out instead)`},
		// The pack refuses an empty heartbeat prompt; an empty one here
		// would drop the pack's prompt from the Heartbeats section.
		{"empty heartbeat prompt", "[agents.defaults.heartbeat]\nprompt = \"  \"\n", `c.toml:2:1: heartbeat.prompt is empty (leave the key out for the pack's prompt)`},
		// Session keys name the agent in lower case, so two ids that differ
		// only in case are one agent listed twice.
		{"agent ids differing in case", "[[agents.list]]\nid = \"wren\"\n[[agents.list]]\nid = \"Wren\"\n", `c.toml:3:1: agent id "Wren" differs from "wren" only in case`},
		// An empty name never matches a skill or a plugin.
		{"empty skill in allowlist", "[[agents.list]]\nid = \"a\"\nskills = [\"fact-check\", \" \"]\n", `c.toml:3:1: skills[1] is empty (a skill's name)`},
		{"empty bundled skill", "[skills]\nallowBundled = [\"\"]\n", `c.toml:2:1: skills.allowBundled[0] is empty (a skill's name)`},
		{"empty skill entry", "[skills.entries.\"\"]\nenabled = true\n", `c.toml:1:2: skills.entries has an empty skill name`},
		{"empty plugin id", "[plugins.\"\"]\nenabled = true\n", `c.toml:1:2: plugins has an empty plugin id`},
		{"unknown key in inline agent", "# agents\nagents.list = [{ id = \"a\" },\n  { id = \"b\", heartbeat = { enabld = true } }]\n", `c.toml:2:1: unknown key "agents.list.heartbeat.enabld" (did you mean enabled?)`},
		// agents.list written as an array of inline tables: each entry's
		// errors point at that entry.
		{"duplicate agent inline", "# agents\nagents.list = [{ id = \"a\" },\n  { id = \"a\" }]\n", `c.toml:3:3: agent id "a" is listed twice`},
		{"bad value in inline agent", "# agents\nagents.list = [{ id = \"a\" },\n  { id = \"b\", timeFormat = \"x\" }]\n", `c.toml:3:3: timeFormat = "x" is not allowed (want auto, 12, 24)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasPrefix(tc.name, "backslash") && filepath.Separator == '\\' {
				t.Skip(`"~\" is a home folder where \ separates folders`)
			}
			_, err := config.Parse("c.toml", []byte(tc.src))
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

// A bad value of any size is echoed as its first 200 bytes and its size.
func TestConfigErrorsEchoLongValuesShort(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	cut := `"` + long[:200] + `"… (204800 bytes)`
	for src, want := range map[string]string{
		"[agents.defaults]\ntimeFormat = \"" + long + "\"\n":   "c.toml:2:1: timeFormat = " + cut + " is not allowed (want auto, 12, 24)",
		"[agents.defaults]\nuserTimezone = \"" + long + "\"\n": "c.toml:2:1: userTimezone " + cut + " is not a known IANA zone",
		"[agents.defaults]\n" + long + " = 1\n":                "c.toml:2:1: unknown key " + `"agents.defaults.` + long[:184] + `"… (204816 bytes)`,
	} {
		_, err := config.Parse("c.toml", []byte(src))
		require.Error(t, err)
		assert.Equal(t, want, err.Error())
	}
}

// A [bootstrap.replace] key the pack never reads is refused where it is
// written, with the nearest file name when one is close.
func TestCheckReplace(t *testing.T) {
	files := []string{"AGENTS.md", "SOUL.md", "USER.md"}
	cases := []struct{ name, src, want string }{
		{"typo", "[bootstrap.replace]\n\"SOUL.md\" = \"p.md\"\n\"AGENT.md\" = \"a.md\"\n",
			`c.toml:3:1: [bootstrap.replace] "AGENT.md" is not a workspace file of the pack (did you mean AGENTS.md?)`},
		{"path", "[bootstrap]\n[bootstrap.replace]\n  \"../../etc/passwd\" = \"SOUL.md\"\n",
			`c.toml:3:3: [bootstrap.replace] "../../etc/passwd" is not a workspace file of the pack (want one of AGENTS.md, SOUL.md, USER.md)`},
		{"inline", "[bootstrap]\nreplace = { \"soul.md\" = \"p.md\" }\n",
			`c.toml:2:19: [bootstrap.replace] "soul.md" is not a workspace file of the pack (did you mean SOUL.md?)`},
		// A path the render would refuse is refused here, where it is written.
		{"value escapes", "[bootstrap.replace]\n\"SOUL.md\" = \"../../etc/passwd\"\n",
			`c.toml:2:1: [bootstrap.replace] "SOUL.md": path "../../etc/passwd" refused: path escapes the workspace`},
		{"value absolute", "[bootstrap.replace]\n\"USER.md\" = \"u.md\"\n\"SOUL.md\" = \"/etc/passwd\"\n",
			`c.toml:3:1: [bootstrap.replace] "SOUL.md": path "/etc/passwd" refused: absolute path`},
		{"not found by the locator", "[bootstrap.replace]\n\"a\\u0022b\" = \"p.md\"\n",
			`c.toml:1:2: [bootstrap.replace] "a\"b" is not a workspace file of the pack (want one of AGENTS.md, SOUL.md, USER.md)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Parse("c.toml", []byte(tc.src))
			require.NoError(t, err)
			assert.EqualError(t, cfg.CheckReplace(files), tc.want)
		})
	}
	cfg, err := config.Parse("c.toml", []byte("[bootstrap.replace]\n\"SOUL.md\" = \"p.md\"\n"))
	require.NoError(t, err)
	assert.NoError(t, cfg.CheckReplace(files))
}

func TestExampleConfigParses(t *testing.T) {
	src := mustRead(t, "../../examples/agents.toml")
	cfg, err := config.Parse("examples/agents.toml", src)
	require.NoError(t, err)
	s, err := resolveWith(t, cfg, config.Turn{Agent: "scout"})
	require.NoError(t, err)
	assert.Equal(t, 6000, s.BootstrapMaxChars)
	assert.False(t, s.HeartbeatEnabled)
	assert.Equal(t, "off", s.PromptOverlays["gpt5"])
}

// defaults stand in for a pack's templates/defaults.toml: values no
// config key below sets, so a test sees which layer each setting came from.
var defaults = config.Defaults{
	BootstrapMaxChars:      20000,
	BootstrapTotalMaxChars: 60000,
	TruncationWarning:      "always",
	TimeFormat:             "auto",
	HeartbeatEnabled:       true,
	HeartbeatSection:       true,
	HeartbeatPrompt:        "Check HEARTBEAT.md.",
	DelegationMode:         "suggest",
	MaxSkillsPromptChars:   18000,
	MaxSkillsInPrompt:      150,
	MemoryCitations:        "auto",
}

func resolveWith(t *testing.T, cfg *config.Config, turn config.Turn) (config.Settings, error) {
	t.Helper()
	return config.Resolve(cfg, defaults, turn)
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	return b
}

func TestExtraSkillDirs(t *testing.T) {
	// The three ways TOML can write the key all reach the same list.
	for _, src := range []string{
		"[skills.load]\nextraDirs = [\"~/shared/skills\", \"/opt/skills/\", \"~\", \"/opt/skills\"]\n",
		"[skills]\nload.extraDirs = [\n  \"~/shared/skills\",\n  \"/opt/skills/\",\n  \"~\",\n  \"/opt/skills\",\n]\n",
		"skills.load.extraDirs = [\"~/shared/skills\", \"/opt/skills/\", \"~\", \"/opt/skills\"]\n",
	} {
		cfg, err := config.Parse("c.toml", []byte(src))
		require.NoError(t, err, src)
		dirs, err := cfg.ExtraSkillDirs("/home/ana/")
		require.NoError(t, err)
		assert.Equal(t, []string{"/home/ana/shared/skills", "/opt/skills", "/home/ana"}, dirs, "expanded, cleaned, repeats dropped")
	}

	// "~" with no home known is placed on its element.
	cfg, err := config.Parse("c.toml", []byte("[skills.load]\nextraDirs = [\n  \"/opt/skills\",\n  \"~/shared\",\n]\n"))
	require.NoError(t, err)
	_, err = cfg.ExtraSkillDirs("")
	require.EqualError(t, err, `c.toml:4:3: skills.load.extraDirs[1] = "~/shared": the host's home directory is not known, so "~" cannot be expanded`)

	// skills.managedDir follows the same rules.
	cfg, err = config.Parse("c.toml", []byte("[skills]\nmanagedDir = \"~/.config/app/skills/\"\n"))
	require.NoError(t, err)
	managed, err := cfg.ManagedSkillDir("/home/ana")
	require.NoError(t, err)
	assert.Equal(t, "/home/ana/.config/app/skills", managed)
	_, err = cfg.ManagedSkillDir("")
	require.EqualError(t, err, `c.toml:2:1: skills.managedDir = "~/.config/app/skills/": the host's home directory is not known, so "~" cannot be expanded`)

	var none *config.Config
	dirs, err := none.ExtraSkillDirs("/home/ana")
	require.NoError(t, err)
	assert.Empty(t, dirs)
}

func TestExtraSkillDirsRefused(t *testing.T) {
	many := "[skills.load]\nextraDirs = ["
	for i := range config.MaxExtraDirs + 1 {
		many += fmt.Sprintf("%q, ", fmt.Sprintf("/s/%d", i))
	}
	many += "]\n"
	cases := []struct{ name, src, want string }{
		{"relative", "[skills.load]\nextraDirs = [\"/ok\", \"team/skills\"]\n",
			`c.toml:2:21: skills.load.extraDirs[1] = "team/skills": a relative folder is refused; write it as an absolute path or start it with "~/"`},
		{"dot relative", "skills.load.extraDirs = [\"./skills\"]\n",
			`c.toml:1:26: skills.load.extraDirs[0] = "./skills": a relative folder is refused; write it as an absolute path or start it with "~/"`},
		{"other user's home", "[skills.load]\nextraDirs = [\n  \"~bob/skills\",\n]\n",
			`c.toml:3:3: skills.load.extraDirs[0] = "~bob/skills": only "~" or "~/…" (the host's home) is expanded; write the folder as an absolute path`},
		{"empty", "[skills.load]\nextraDirs = [\" \"]\n", `c.toml:2:14: skills.load.extraDirs[0] = " ": empty folder name`},
		{"backslash after ~ where / separates folders", "[skills.load]\nextraDirs = ['~\\x']\n",
			`c.toml:2:14: skills.load.extraDirs[0] = "~\\x": only "~" or "~/…" (the host's home) is expanded; write the folder as an absolute path`},
		{"too many", many, fmt.Sprintf(`c.toml:2:1: skills.load.extraDirs lists %d folders; at most %d are searched`, config.MaxExtraDirs+1, config.MaxExtraDirs)},
		{"not a list", "[skills.load]\nextraDirs = \"/opt/skills\"\n", `c.toml:2:1: key "skills.load.extraDirs": incompatible types: TOML value has type string; destination has type slice`},
		{"relative managed folder", "[skills]\nmanagedDir = \"managed\"\n",
			`c.toml:2:1: skills.managedDir = "managed": a relative folder is refused; write it as an absolute path or start it with "~/"`},
		{"unknown load key", "[skills.load]\nwatch = true\n", `c.toml:2:1: unknown key "skills.load.watch"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Parse("c.toml", []byte(tc.src))
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

// contextLimits are the runtime's excerpt budgets: carried into the
// settings, agent keys over the defaults' key by key, and never the
// prompt cap, which is promptLimits.maxChars.
func TestContextLimitsAreCarriedAndThePromptCapIsPromptLimits(t *testing.T) {
	cfg, err := config.Parse("c.toml", []byte(`
[agents.defaults.contextLimits]
memoryGetMaxChars = 4000
toolResultMaxChars = 12000
[agents.defaults.promptLimits]
maxChars = 90000

[[agents.list]]
id = "scout"
contextLimits = { toolResultMaxChars = 6000, agentsRefreshMaxChars = 2000 }
promptLimits.maxChars = 0
`))
	require.NoError(t, err)
	s, err := resolveWith(t, cfg, config.Turn{})
	require.NoError(t, err)
	assert.Equal(t, 90000, s.MaxPromptChars)
	assert.Equal(t, map[string]int{"memoryGetMaxChars": 4000, "toolResultMaxChars": 12000}, s.ContextLimits)

	s, err = resolveWith(t, cfg, config.Turn{Agent: "scout"})
	require.NoError(t, err)
	assert.Zero(t, s.MaxPromptChars, "0 lifts the defaults' cap")
	assert.Equal(t, map[string]int{"memoryGetMaxChars": 4000, "toolResultMaxChars": 6000, "agentsRefreshMaxChars": 2000}, s.ContextLimits)

	s, err = resolveWith(t, nil, config.Turn{})
	require.NoError(t, err)
	assert.Equal(t, map[string]int{}, s.ContextLimits, "empty, not null, in the effective config")
}

func TestContextLimitsErrors(t *testing.T) {
	moved := "contextLimits.maxPromptChars is no longer read: the whole-prompt cap moved to promptLimits.maxChars; contextLimits.* are budgets for runtime excerpts and never change the system prompt"
	cases := []struct{ name, src, want string }{
		{"old prompt cap", "[agents.defaults.contextLimits]\nmaxPromptChars = 100\n", "c.toml:2:1: " + moved},
		{"old prompt cap in an agent", "[[agents.list]]\nid = \"a\"\n[[agents.list]]\nid = \"b\"\ncontextLimits.maxPromptChars = 5\n", "c.toml:5:1: " + moved},
		{"zero", "[agents.defaults.contextLimits]\nmemoryGetMaxChars = 0\n", "c.toml:2:1: contextLimits.memoryGetMaxChars = 0: a contextLimits budget must be a positive integer"},
		{"negative", "[agents.defaults]\ncontextLimits = { toolResultMaxChars = -3 }\n", "c.toml:2:19: contextLimits.toolResultMaxChars = -3: a contextLimits budget must be a positive integer"},
		{"string", "[agents.defaults.contextLimits]\nmemoryGetMaxChars = \"4k\"\n", `c.toml:2:1: contextLimits.memoryGetMaxChars = "4k": a contextLimits budget must be a positive integer`},
		{"float", "[agents.defaults.contextLimits]\nmemoryGetMaxChars = 4000.5\n", "c.toml:2:1: contextLimits.memoryGetMaxChars = 4000.5: a contextLimits budget must be a positive integer"},
		{"table", "[agents.defaults.contextLimits.memory]\nmaxChars = 4\n", "c.toml:1:2: contextLimits.memory = a table: a contextLimits budget must be a positive integer"},
		{"negative prompt cap", "[agents.defaults.promptLimits]\nmaxChars = -1\n", "c.toml:2:1: promptLimits.maxChars must not be negative (0 means no cap)"},
		{"unknown prompt limit", "[agents.defaults.promptLimits]\nmaxTokens = 1\n", `c.toml:2:1: unknown key "agents.defaults.promptLimits.maxTokens"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Parse("c.toml", []byte(tc.src))
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}
