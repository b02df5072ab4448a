package engine_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
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
	cfg, err := engine.ParseConfig("agents.toml", []byte(exampleConfig))
	require.NoError(t, err)

	// Defaults only.
	s, err := resolveWith(t, cfg, engine.Request{Agent: "main"})
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
	s, err = resolveWith(t, cfg, engine.Request{Agent: "scout", Timezone: "Asia/Kolkata"})
	require.NoError(t, err)
	assert.Equal(t, 4000, s.BootstrapMaxChars)
	assert.Equal(t, "Asia/Kolkata", s.UserTimezone)
	assert.False(t, s.HeartbeatSection)
	assert.True(t, s.HeartbeatEnabled, "inherited from defaults")
	require.NotNil(t, s.SkillsAllowlist)
	assert.Empty(t, *s.SkillsAllowlist, "[] means no skills")
	assert.Equal(t, map[string]string{"gpt5": "on"}, s.PromptOverlays)

	// No config: built-in defaults.
	s, err = resolveWith(t, nil, engine.Request{})
	require.NoError(t, err)
	assert.Equal(t, engine.DefaultBootstrapMaxChars, s.BootstrapMaxChars)
	assert.Equal(t, "always", s.TruncationWarning)
	assert.Equal(t, "suggest", s.DelegationMode)
}

func TestResolveUnknownAgent(t *testing.T) {
	cfg, err := engine.ParseConfig("agents.toml", []byte(exampleConfig))
	require.NoError(t, err)
	_, err = resolveWith(t, cfg, engine.Request{Agent: "mian"})
	require.EqualError(t, err, `agents.toml: agent "mian" is not in [[agents.list]] (known: main, scout)`)

	// Without a list, every agent takes the defaults.
	noList, err := engine.ParseConfig("agents.toml", []byte("[agents.defaults]\nbootstrapMaxChars = 7000\n"))
	require.NoError(t, err)
	s, err := resolveWith(t, noList, engine.Request{Agent: "main"})
	require.NoError(t, err)
	assert.Equal(t, 7000, s.BootstrapMaxChars)
}

func TestPackManifestSitsBetweenBuiltinAndConfig(t *testing.T) {
	p := packWith(t, map[string]string{
		"sections/manifest.toml": string(mustRead(t, "sections/manifest.toml")) + "\n",
	})
	_ = p
	cfg, err := engine.ParseConfig("c.toml", []byte("[agents.defaults]\nbootstrapTotalMaxChars = 500\n"))
	require.NoError(t, err)
	// The manifest's [bootstrap] values apply when the config is silent.
	res := render(t, minimalPack(t, manifest(`"identity", "d"`)+"\n[bootstrap]\nmax_chars = 123\ntotal_max_chars = 456\n",
		map[string]string{"d": section(stable, "{{ .Config.BootstrapMaxChars }} {{ .Config.BootstrapTotalMaxChars }}")}),
		engine.Request{}, engine.WithConfig(cfg))
	assert.Contains(t, res.Layers[0].Stable, "123 500")
}

func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"unknown key", "[agents.defaults]\nbootstrapMaxChar = 5\n", `c.toml:2:1: unknown key "agents.defaults.bootstrapMaxChar"`},
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
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := engine.ParseConfig("c.toml", []byte(tc.src))
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

func TestExampleConfigParses(t *testing.T) {
	src := mustReadFile(t, "../examples/agents.toml")
	cfg, err := engine.ParseConfig("examples/agents.toml", src)
	require.NoError(t, err)
	s, err := resolveWith(t, cfg, engine.Request{Agent: "scout"})
	require.NoError(t, err)
	assert.Equal(t, 6000, s.BootstrapMaxChars)
	assert.False(t, s.HeartbeatEnabled)
	assert.Equal(t, "off", s.PromptOverlays["gpt5"])
}

// resolveWith resolves req for cfg over a pack without [bootstrap] or
// [skills] defaults, so only built-in defaults, config and request count.
func resolveWith(t *testing.T, cfg *engine.Config, req engine.Request) (engine.Settings, error) {
	t.Helper()
	var opts []engine.Option
	if cfg != nil {
		opts = append(opts, engine.WithConfig(cfg))
	}
	p := minimalPack(t, manifest(`"identity"`), nil)
	addFile(p, "templates/overlays/gpt5.toml", string(mustRead(t, "templates/overlays/gpt5.toml")))
	e, err := engine.New(p, opts...)
	require.NoError(t, err)
	return e.Resolve(req)
}
