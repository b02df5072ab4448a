package engine

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/sysprompt/sysprompt/engine/internal/strict"
)

// Config is an agent config file. Its keys are the camelCase names the
// original product documents, so an existing user's settings carry over.
// Unknown keys are errors.
type Config struct {
	Agents    AgentsConfig            `toml:"agents"`
	Bootstrap BootstrapConfig         `toml:"bootstrap"`
	Skills    SkillsConfig            `toml:"skills"`
	Memory    MemoryConfig            `toml:"memory"`
	Tools     ToolsConfig             `toml:"tools"`
	Plugins   map[string]PluginConfig `toml:"plugins"`

	src  string // the document, for value error positions
	name string
	raw  map[string]any // the document as plain values, for requires.config
}

// BootstrapConfig adjusts bootstrap injection.
type BootstrapConfig struct {
	// Replace redirects a bootstrap file to another workspace file:
	// "SOUL.md" = "personas/pirate.md".
	Replace map[string]string `toml:"replace"`
}

// AgentsConfig holds defaults and per-agent overrides.
type AgentsConfig struct {
	Defaults AgentSettings `toml:"defaults"`
	List     []AgentEntry  `toml:"list"`
}

// AgentEntry is one [[agents.list]] entry: an id plus overrides.
type AgentEntry struct {
	ID string `toml:"id"`
	AgentSettings
}

// AgentSettings are the per-agent keys; nil means "not set here".
type AgentSettings struct {
	Workspace                        *string                   `toml:"workspace"`
	BootstrapMaxChars                *int                      `toml:"bootstrapMaxChars"`
	BootstrapTotalMaxChars           *int                      `toml:"bootstrapTotalMaxChars"`
	BootstrapPromptTruncationWarning *string                   `toml:"bootstrapPromptTruncationWarning"`
	UserTimezone                     *string                   `toml:"userTimezone"`
	TimeFormat                       *string                   `toml:"timeFormat"`
	Heartbeat                        *HeartbeatConfig          `toml:"heartbeat"`
	Subagents                        *SubagentsConfig          `toml:"subagents"`
	PromptOverlays                   map[string]OverlaySetting `toml:"promptOverlays"`
	Skills                           *[]string                 `toml:"skills"`
	SkillsLimits                     *AgentSkillsLimits        `toml:"skillsLimits"`
	ContextLimits                    *ContextLimitsConfig      `toml:"contextLimits"`
}

// HeartbeatConfig controls heartbeat turns and their prompt section.
type HeartbeatConfig struct {
	Enabled                    *bool   `toml:"enabled"`
	IncludeSystemPromptSection *bool   `toml:"includeSystemPromptSection"`
	Prompt                     *string `toml:"prompt"`
}

// SubagentsConfig controls delegation guidance.
type SubagentsConfig struct {
	DelegationMode *string `toml:"delegationMode"`
}

// OverlaySetting configures one model-family overlay of the pack
// (promptOverlays.gpt5 for the built-in gpt5 overlay). Personality names
// one of the overlay's styles; "on" picks its default style and "off"
// drops the style but keeps the rest of the overlay.
type OverlaySetting struct {
	Personality *string `toml:"personality"`
}

// AgentSkillsLimits is the per-agent skills budget.
type AgentSkillsLimits struct {
	MaxSkillsPromptChars *int `toml:"maxSkillsPromptChars"`
}

// ContextLimitsConfig bounds the injected context as a whole.
type ContextLimitsConfig struct {
	// MaxPromptChars caps the rendered prompt; a render over it fails
	// with an error naming the size, rather than sending a silently
	// oversized prompt. Zero means no cap.
	MaxPromptChars *int `toml:"maxPromptChars"`
}

// SkillsConfig is the top-level skills table.
type SkillsConfig struct {
	Limits       SkillsLimits          `toml:"limits"`
	AllowBundled []string              `toml:"allowBundled"`
	Entries      map[string]SkillEntry `toml:"entries"`
	Managed      string                `toml:"managedDir"`
}

// SkillsLimits are the catalog budget.
type SkillsLimits struct {
	MaxSkillsPromptChars *int `toml:"maxSkillsPromptChars"`
	MaxSkillsInPrompt    *int `toml:"maxSkillsInPrompt"`
}

// SkillEntry configures one skill by key.
type SkillEntry struct {
	Enabled *bool             `toml:"enabled"`
	Env     map[string]string `toml:"env"`
}

// MemoryConfig controls memory recall wording.
type MemoryConfig struct {
	Citations *string `toml:"citations"`
}

// ToolsConfig holds tool switches.
type ToolsConfig struct {
	Experimental struct {
		PlanTool *bool `toml:"planTool"`
	} `toml:"experimental"`
}

// PluginConfig is one plugin's switch.
type PluginConfig struct {
	Enabled *bool `toml:"enabled"`
}

// ParseConfig decodes an agent config file. name is used in errors.
func ParseConfig(name string, src []byte) (*Config, error) {
	cfg := &Config{src: string(src), name: name}
	if err := strict.TOML(string(src), cfg); err != nil {
		return nil, posError(PhaseConfig, name, err)
	}
	if err := toml.Unmarshal(src, &cfg.raw); err != nil {
		return nil, posError(PhaseConfig, name, err)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// Settings are the resolved options for one agent and request: the config
// resolver's output and the renderer's input. Templates see them as
// .Config (stable); JSON names follow the config keys they come from.
type Settings struct {
	Agent                  string            `json:"agent"`
	Workspace              string            `json:"workspace"`
	BootstrapMaxChars      int               `json:"bootstrapMaxChars"`
	BootstrapTotalMaxChars int               `json:"bootstrapTotalMaxChars"`
	TruncationWarning      string            `json:"bootstrapPromptTruncationWarning"` // off | once | always
	UserTimezone           string            `json:"userTimezone"`
	TimeFormat             string            `json:"timeFormat"` // auto | 12 | 24
	HeartbeatEnabled       bool              `json:"heartbeatEnabled"`
	HeartbeatSection       bool              `json:"heartbeatIncludeSystemPromptSection"` // HEARTBEAT.md and the Heartbeats section are wanted
	HeartbeatPrompt        string            `json:"heartbeatPrompt"`
	DelegationMode         string            `json:"delegationMode"` // suggest | prefer
	PromptOverlays         map[string]string `json:"promptOverlays"` // overlay setting -> style, "on" or "off"
	SkillsAllowlist        *[]string         `json:"skills"`
	MaxSkillsPromptChars   int               `json:"maxSkillsPromptChars"`
	MaxSkillsInPrompt      int               `json:"maxSkillsInPrompt"`
	MaxPromptChars         int               `json:"maxPromptChars"`
	MemoryCitations        string            `json:"memoryCitations"` // auto | on | off
	BootstrapReplace       map[string]string `json:"bootstrapReplace"`
	PlanTool               bool              `json:"planTool"`
	Plugins                map[string]bool   `json:"plugins"`
}

// Built-in defaults, the bottom of the precedence order.
const (
	DefaultBootstrapMaxChars      = 20000
	DefaultBootstrapTotalMaxChars = 60000
	DefaultMaxSkillsPromptChars   = 18000
	DefaultMaxSkillsInPrompt      = 150
	DefaultHeartbeatPrompt        = "Read HEARTBEAT.md if it exists and follow it. If nothing needs attention, reply HEARTBEAT_OK."
)

// Resolve returns the settings a render of req would use: built-in
// defaults < the pack manifest < agents.defaults < agents.list[req.Agent]
// < the request. This is the config resolver, exposed so a
// runtime can see (and log) what a render will be configured with.
func (e *Engine) Resolve(req Request) (Settings, error) {
	return resolve(e.opts.config, &e.pack.manifest, &req)
}

// resolve applies the precedence for cfg (which may be nil) and m. An
// unknown agent id is an error when the config lists agents (a typo would
// otherwise render the defaults silently).
func resolve(cfg *Config, m *manifest, req *Request) (Settings, error) {
	s := Settings{
		Agent:                  req.Agent,
		BootstrapMaxChars:      DefaultBootstrapMaxChars,
		BootstrapTotalMaxChars: DefaultBootstrapTotalMaxChars,
		TruncationWarning:      "always",
		TimeFormat:             "auto",
		HeartbeatEnabled:       true,
		HeartbeatSection:       true,
		HeartbeatPrompt:        DefaultHeartbeatPrompt,
		DelegationMode:         "suggest",
		PromptOverlays:         map[string]string{},
		MaxSkillsPromptChars:   DefaultMaxSkillsPromptChars,
		MaxSkillsInPrompt:      DefaultMaxSkillsInPrompt,
		MemoryCitations:        "auto",
		Plugins:                map[string]bool{},
	}
	if m != nil {
		setIf(&s.BootstrapMaxChars, m.Bootstrap.MaxChars)
		setIf(&s.BootstrapTotalMaxChars, m.Bootstrap.TotalMaxChars)
		setIf(&s.TruncationWarning, m.Bootstrap.TruncationWarning)
		setIf(&s.MaxSkillsPromptChars, m.Skills.MaxPromptChars)
		setIf(&s.MaxSkillsInPrompt, m.Skills.MaxInPrompt)
	}
	if cfg != nil {
		s.apply(&cfg.Agents.Defaults)
		// With no [[agents.list]] every agent takes agents.defaults; with a
		// list, an id it does not hold is a typo, not a new agent.
		if req.Agent != "" && len(cfg.Agents.List) > 0 {
			found := false
			for i := range cfg.Agents.List {
				if cfg.Agents.List[i].ID == req.Agent {
					s.apply(&cfg.Agents.List[i].AgentSettings)
					found = true
					break
				}
			}
			if !found {
				return Settings{}, &Error{Phase: PhaseConfig, File: cfg.name,
					Err: fmt.Errorf("agent %q is not in [[agents.list]] (known: %s)", req.Agent, strings.Join(cfg.agentIDs(), ", "))}
			}
		}
		if v := cfg.Skills.Limits.MaxSkillsPromptChars; v != nil && !cfg.agentSetsSkillsBudget(req.Agent) {
			s.MaxSkillsPromptChars = *v
		}
		setPtr(&s.MaxSkillsInPrompt, cfg.Skills.Limits.MaxSkillsInPrompt)
		setPtr(&s.MemoryCitations, cfg.Memory.Citations)
		setPtr(&s.PlanTool, cfg.Tools.Experimental.PlanTool)
		s.BootstrapReplace = maps.Clone(cfg.Bootstrap.Replace) // the result must not share the config's map
		for id, p := range cfg.Plugins {
			s.Plugins[id] = p.Enabled != nil && *p.Enabled
		}
	}
	setIf(&s.Workspace, req.Workspace.Path)
	setIf(&s.UserTimezone, req.Timezone)
	return s, nil
}

// agentSetsSkillsBudget reports whether the agent (or the defaults) set a
// per-agent skills budget, which wins over skills.limits.
func (c *Config) agentSetsSkillsBudget(agent string) bool {
	if l := c.Agents.Defaults.SkillsLimits; l != nil && l.MaxSkillsPromptChars != nil {
		return true
	}
	for _, a := range c.Agents.List {
		if a.ID == agent && a.SkillsLimits != nil && a.SkillsLimits.MaxSkillsPromptChars != nil {
			return true
		}
	}
	return false
}

func (c *Config) agentIDs() []string {
	ids := make([]string, 0, len(c.Agents.List))
	for _, a := range c.Agents.List {
		ids = append(ids, a.ID)
	}
	sort.Strings(ids)
	return ids
}

// apply overlays the keys a settings table sets.
func (s *Settings) apply(a *AgentSettings) {
	setPtr(&s.Workspace, a.Workspace)
	setPtr(&s.BootstrapMaxChars, a.BootstrapMaxChars)
	setPtr(&s.BootstrapTotalMaxChars, a.BootstrapTotalMaxChars)
	setPtr(&s.TruncationWarning, a.BootstrapPromptTruncationWarning)
	setPtr(&s.UserTimezone, a.UserTimezone)
	setPtr(&s.TimeFormat, a.TimeFormat)
	if h := a.Heartbeat; h != nil {
		setPtr(&s.HeartbeatEnabled, h.Enabled)
		setPtr(&s.HeartbeatSection, h.IncludeSystemPromptSection)
		setPtr(&s.HeartbeatPrompt, h.Prompt)
	}
	if a.Subagents != nil {
		setPtr(&s.DelegationMode, a.Subagents.DelegationMode)
	}
	for _, name := range sortedKeys(a.PromptOverlays) {
		if p := a.PromptOverlays[name].Personality; p != nil {
			s.PromptOverlays[name] = *p
		}
	}
	if a.Skills != nil {
		list := append([]string{}, (*a.Skills)...)
		s.SkillsAllowlist = &list
	}
	if a.SkillsLimits != nil {
		setPtr(&s.MaxSkillsPromptChars, a.SkillsLimits.MaxSkillsPromptChars)
	}
	if a.ContextLimits != nil {
		setPtr(&s.MaxPromptChars, a.ContextLimits.MaxPromptChars)
	}
}

func setPtr[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func setIf[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}

// validate checks every enumerated or bounded value and reports the first
// bad one with its position.
func (c *Config) validate() error {
	check := func(table string, line int, a *AgentSettings) error {
		enum := func(key string, v *string, allowed ...string) error {
			if v == nil || slices.Contains(allowed, *v) {
				return nil
			}
			return c.keyErr(table+"."+key, line, fmt.Errorf("%s = %q is not allowed (want %s)", key, *v, strings.Join(allowed, ", ")))
		}
		positive := func(key string, v *int) error {
			if v == nil || *v > 0 {
				return nil
			}
			return c.keyErr(table+"."+key, line, fmt.Errorf("%s must be a positive number of characters, not %d", key, *v))
		}
		var errs []error
		errs = append(errs,
			positive("bootstrapMaxChars", a.BootstrapMaxChars),
			positive("bootstrapTotalMaxChars", a.BootstrapTotalMaxChars),
			enum("bootstrapPromptTruncationWarning", a.BootstrapPromptTruncationWarning, "off", "once", "always"),
			enum("timeFormat", a.TimeFormat, "auto", "12", "24"))
		if a.UserTimezone != nil {
			if _, err := loadZone(*a.UserTimezone); err != nil || *a.UserTimezone == "" || *a.UserTimezone == "Local" {
				errs = append(errs, c.keyErr(table+".userTimezone", line, fmt.Errorf("userTimezone %q is not a known IANA zone", *a.UserTimezone)))
			}
		}
		if a.Subagents != nil {
			errs = append(errs, enum("subagents.delegationMode", a.Subagents.DelegationMode, "suggest", "prefer"))
		}
		for _, name := range sortedKeys(a.PromptOverlays) {
			if p := a.PromptOverlays[name].Personality; p != nil && strings.TrimSpace(*p) == "" {
				errs = append(errs, c.keyErr(table+".promptOverlays."+name+".personality", line,
					fmt.Errorf("promptOverlays.%s.personality is empty (want on, off, or a style of the overlay such as friendly)", name)))
			}
		}
		if a.SkillsLimits != nil {
			errs = append(errs, positive("skillsLimits.maxSkillsPromptChars", a.SkillsLimits.MaxSkillsPromptChars))
		}
		if a.ContextLimits != nil && a.ContextLimits.MaxPromptChars != nil && *a.ContextLimits.MaxPromptChars < 0 {
			errs = append(errs, c.keyErr(table+".contextLimits.maxPromptChars", line, fmt.Errorf("contextLimits.maxPromptChars must not be negative")))
		}
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := check("agents.defaults", 1, &c.Agents.Defaults); err != nil {
		return err
	}
	headers := strict.Headers(c.src, "agents.list")
	seen := map[string]bool{}
	for i := range c.Agents.List {
		line := 1
		if i < len(headers) {
			line = headers[i]
		}
		a := &c.Agents.List[i]
		if a.ID == "" {
			return &Error{Phase: PhaseConfig, File: c.name, Line: line, Col: 1, Err: fmt.Errorf("[[agents.list]] entry %d has no id", i+1)}
		}
		if seen[a.ID] {
			return &Error{Phase: PhaseConfig, File: c.name, Line: line, Col: 1, Err: fmt.Errorf("agent id %q is listed twice", a.ID)}
		}
		seen[a.ID] = true
		if err := check("agents.list", line, &a.AgentSettings); err != nil {
			return err
		}
	}
	if v := c.Memory.Citations; v != nil && !slices.Contains([]string{"auto", "on", "off"}, *v) {
		return c.keyErr("memory.citations", 1, fmt.Errorf("memory.citations = %q is not allowed (want auto, on, off)", *v))
	}
	for _, k := range []struct {
		key string
		v   *int
	}{{"skills.limits.maxSkillsPromptChars", c.Skills.Limits.MaxSkillsPromptChars}, {"skills.limits.maxSkillsInPrompt", c.Skills.Limits.MaxSkillsInPrompt}} {
		if k.v != nil && *k.v <= 0 {
			return c.keyErr(k.key, 1, fmt.Errorf("%s must be positive, not %d", k.key, *k.v))
		}
	}
	return nil
}

// keyErr places an error at the first definition of key at or after line.
func (c *Config) keyErr(key string, from int, err error) error {
	l, col := strict.LocateKeyAfter(c.src, key, from)
	return &Error{Phase: PhaseConfig, File: c.name, Line: l, Col: col, Err: err}
}

// Lookup reads a dotted path ("browser.enabled") from the config as
// written, for skills' requires.config; ok is false when it is not set.
func (c *Config) Lookup(dotted string) (any, bool) {
	if c == nil {
		return nil, false
	}
	var cur any = c.raw
	for _, part := range strings.Split(dotted, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}
