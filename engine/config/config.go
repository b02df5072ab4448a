// Package config reads an agent config file (the original product's
// camelCase keys, decoded strictly, every bad value placed at its line and
// column) and resolves it, with the pack's defaults and a request's own
// values, into the Settings one render uses.
package config

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/internal/diag"
	"github.com/sysprompt/sysprompt/engine/internal/strict"
	"github.com/sysprompt/sysprompt/engine/internal/zone"
	"github.com/sysprompt/sysprompt/internal/echo"
	"github.com/sysprompt/sysprompt/internal/hint"
	"github.com/sysprompt/sysprompt/vfs"
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
	PromptLimits                     *PromptLimitsConfig       `toml:"promptLimits"`
	// ContextTokens is the model's context window in tokens, for the
	// context report; it overrides the pack's templates/models.toml.
	ContextTokens *int `toml:"contextTokens"`
	// ContextLimits are the original's budgets for runtime excerpts
	// (memory_get results, live tool results, AGENTS.md re-read after
	// compaction). They never change the system prompt: the engine only
	// checks them and carries them into Settings for the runtime.
	ContextLimits map[string]any `toml:"contextLimits"`
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

// PromptLimitsConfig bounds the rendered system prompt. It is our own key:
// the original's contextLimits budget runtime excerpts, not the prompt.
type PromptLimitsConfig struct {
	// MaxChars caps the rendered prompt; a render over it fails with an
	// error naming the size, rather than sending a silently oversized
	// prompt. Zero means no cap.
	MaxChars *int `toml:"maxChars"`
}

// SkillsConfig is the top-level skills table.
type SkillsConfig struct {
	Limits       SkillsLimits          `toml:"limits"`
	AllowBundled []string              `toml:"allowBundled"`
	Entries      map[string]SkillEntry `toml:"entries"`
	Managed      string                `toml:"managedDir"` // absolute, or "~/…"; see ManagedSkillDir
	Load         SkillsLoad            `toml:"load"`
}

// SkillsLoad says where else skills are loaded from.
type SkillsLoad struct {
	// ExtraDirs are skills folders searched after every other root, so a
	// skill there never shadows one found elsewhere. Each is absolute, or
	// starts with "~" for the host's home (see ExtraSkillDirs).
	ExtraDirs []string `toml:"extraDirs"`
}

// MaxExtraDirs bounds skills.load.extraDirs: every folder costs a walk of
// up to a thousand entries per discovery.
const MaxExtraDirs = 32

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

// Parse decodes an agent config file. name is used in errors.
func Parse(name string, src []byte) (*Config, error) {
	cfg := &Config{src: string(src), name: name}
	if err := strict.TOML(string(src), cfg); err != nil {
		return nil, diag.Decode(diag.PhaseConfig, name, err)
	}
	if err := toml.Unmarshal(src, &cfg.raw); err != nil {
		return nil, diag.Decode(diag.PhaseConfig, name, err)
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
	MaxPromptChars         int               `json:"promptMaxChars"`  // promptLimits.maxChars; 0 = no cap
	ContextLimits          map[string]int    `json:"contextLimits"`   // runtime-excerpt budgets, carried, not used
	MemoryCitations        string            `json:"memoryCitations"` // auto | on | off
	BootstrapReplace       map[string]string `json:"bootstrapReplace"`
	PlanTool               bool              `json:"planTool"`
	Plugins                map[string]bool   `json:"plugins"`
}

// Defaults are the pack's settings defaults, the bottom of the precedence
// order. Their only source is the pack's templates/defaults.toml, which
// sets every one of them: Go keeps no copy.
type Defaults struct {
	BootstrapMaxChars      int
	BootstrapTotalMaxChars int
	TruncationWarning      string // one of bootstrap.WarningModes
	TimeFormat             string // one of TimeFormats
	HeartbeatEnabled       bool
	HeartbeatSection       bool
	HeartbeatPrompt        string
	DelegationMode         string // one of DelegationModes
	MaxSkillsPromptChars   int
	MaxSkillsInPrompt      int
	MemoryCitations        string // one of CitationModes
}

// The values an enumerated setting accepts, in the config and in a pack's
// defaults alike. bootstrap.WarningModes is the truncation warning's.
var (
	TimeFormats     = []string{"auto", "12", "24"}
	DelegationModes = []string{"suggest", "prefer"}
	CitationModes   = []string{"auto", "on", "off"}
)

// Turn is what a request itself sets, the top of the precedence order.
type Turn struct {
	Agent     string // agents.list id; "" for agents.defaults alone
	Workspace string // overrides the agent's workspace when set
	Timezone  string // overrides userTimezone when set
}

// Resolve applies the precedence: the pack's defaults < agents.defaults
// < agents.list[turn.Agent] < the turn. cfg may be nil. An unknown agent
// id is an error when the config lists agents (a typo would otherwise
// render the defaults silently).
func Resolve(cfg *Config, d Defaults, turn Turn) (Settings, error) {
	s := Settings{
		Agent:                  turn.Agent,
		BootstrapMaxChars:      d.BootstrapMaxChars,
		BootstrapTotalMaxChars: d.BootstrapTotalMaxChars,
		TruncationWarning:      d.TruncationWarning,
		TimeFormat:             d.TimeFormat,
		HeartbeatEnabled:       d.HeartbeatEnabled,
		HeartbeatSection:       d.HeartbeatSection,
		HeartbeatPrompt:        d.HeartbeatPrompt,
		DelegationMode:         d.DelegationMode,
		PromptOverlays:         map[string]string{},
		MaxSkillsPromptChars:   d.MaxSkillsPromptChars,
		MaxSkillsInPrompt:      d.MaxSkillsInPrompt,
		MemoryCitations:        d.MemoryCitations,
		ContextLimits:          map[string]int{},
		Plugins:                map[string]bool{},
	}
	if cfg != nil {
		if err := cfg.applyTo(&s, turn.Agent); err != nil {
			return Settings{}, err
		}
	}
	setIf(&s.Workspace, turn.Workspace)
	setIf(&s.UserTimezone, turn.Timezone)
	return s, nil
}

// applyTo overlays the config's keys for agent onto s.
func (c *Config) applyTo(s *Settings, agent string) error {
	s.apply(&c.Agents.Defaults)
	// With no [[agents.list]] every agent takes agents.defaults; with a
	// list, an id it does not hold is a typo, not a new agent.
	if agent != "" && len(c.Agents.List) > 0 {
		i := slices.IndexFunc(c.Agents.List, func(a AgentEntry) bool { return a.ID == agent })
		if i < 0 {
			return &diag.Error{Phase: diag.PhaseConfig, File: c.name,
				Err: fmt.Errorf("agent %s is not in [[agents.list]] (known: %s)", echo.Quote(agent), strings.Join(c.agentIDs(), ", "))}
		}
		s.apply(&c.Agents.List[i].AgentSettings)
	}
	if v := c.Skills.Limits.MaxSkillsPromptChars; v != nil && !c.agentSetsSkillsBudget(agent) {
		s.MaxSkillsPromptChars = *v
	}
	setPtr(&s.MaxSkillsInPrompt, c.Skills.Limits.MaxSkillsInPrompt)
	setPtr(&s.MemoryCitations, c.Memory.Citations)
	setPtr(&s.PlanTool, c.Tools.Experimental.PlanTool)
	s.BootstrapReplace = maps.Clone(c.Bootstrap.Replace) // the result must not share the config's map
	for id, p := range c.Plugins {
		s.Plugins[id] = p.Enabled != nil && *p.Enabled
	}
	return nil
}

// ContextTokens is the model's context window the config gives agent
// (its own contextTokens, else agents.defaults'), 0 when it gives none.
// It is for the context report, so it stays out of Settings, which
// sections read.
func (c *Config) ContextTokens(agent string) int {
	if c == nil {
		return 0
	}
	n := c.Agents.Defaults.ContextTokens
	for _, a := range c.Agents.List {
		if a.ID == agent && a.ContextTokens != nil {
			n = a.ContextTokens
		}
	}
	if n == nil {
		return 0
	}
	return *n
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
	for _, name := range slices.Sorted(maps.Keys(a.PromptOverlays)) {
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
	if a.PromptLimits != nil {
		setPtr(&s.MaxPromptChars, a.PromptLimits.MaxChars)
	}
	// An agent's budgets override the defaults' key by key; validate has
	// made every value a positive int.
	for _, k := range slices.Sorted(maps.Keys(a.ContextLimits)) {
		if v, ok := a.ContextLimits[k].(int64); ok {
			s.ContextLimits[k] = int(v)
		}
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
	if err := c.validateAgent("agents.defaults", strict.Pos{Line: 1}, &c.Agents.Defaults); err != nil {
		return err
	}
	lines := c.listLines()
	seen := map[string]string{} // lower-cased id -> id: session keys name an agent in lower case
	for i := range c.Agents.List {
		a := &c.Agents.List[i]
		var msg error
		switch other, dup := seen[strings.ToLower(a.ID)]; {
		case a.ID == "":
			msg = fmt.Errorf("[[agents.list]] entry %d has no id", i+1)
		case dup && other == a.ID:
			msg = fmt.Errorf("agent id %s is listed twice", echo.Quote(a.ID))
		case dup:
			msg = fmt.Errorf("agent id %s differs from %s only in case", echo.Quote(a.ID), echo.Quote(other))
		}
		if msg != nil {
			return &diag.Error{Phase: diag.PhaseConfig, File: c.name, Line: lines[i].Line, Col: lines[i].Col, Err: msg}
		}
		seen[strings.ToLower(a.ID)] = a.ID
		if err := c.validateAgent("agents.list", lines[i], &a.AgentSettings); err != nil {
			return err
		}
	}
	top := keyCheck{c, "", strict.Pos{Line: 1}}
	return cmp.Or(
		c.checkExtraDirs(),
		top.names("skills.allowBundled", c.Skills.AllowBundled),
		emptyKey(top, "skills.entries", "skill name", c.Skills.Entries),
		emptyKey(top, "plugins", "plugin id", c.Plugins),
		top.enum("memory.citations", c.Memory.Citations, CitationModes...),
		top.count("skills.limits.maxSkillsPromptChars", c.Skills.Limits.MaxSkillsPromptChars),
		top.count("skills.limits.maxSkillsInPrompt", c.Skills.Limits.MaxSkillsInPrompt))
}

// validateAgent checks one agents.defaults or [[agents.list]] table.
func (c *Config) validateAgent(table string, at strict.Pos, a *AgentSettings) error {
	k := keyCheck{c, table + ".", at}
	errs := []error{
		k.positive("bootstrapMaxChars", a.BootstrapMaxChars),
		k.positive("bootstrapTotalMaxChars", a.BootstrapTotalMaxChars),
		k.count("contextTokens", a.ContextTokens), // tokens, not characters
		k.enum("bootstrapPromptTruncationWarning", a.BootstrapPromptTruncationWarning, bootstrap.WarningModes...),
		k.enum("timeFormat", a.TimeFormat, TimeFormats...),
		k.zone("userTimezone", a.UserTimezone),
		k.workspace(a.Workspace),
	}
	if h := a.Heartbeat; h != nil && h.Prompt != nil && strings.TrimSpace(*h.Prompt) == "" {
		errs = append(errs, k.fail("heartbeat.prompt", "heartbeat.prompt is empty (leave the key out for the pack's prompt)"))
	}
	if a.Subagents != nil {
		errs = append(errs, k.enum("subagents.delegationMode", a.Subagents.DelegationMode, DelegationModes...))
	}
	for _, name := range slices.Sorted(maps.Keys(a.PromptOverlays)) {
		if p := a.PromptOverlays[name].Personality; p != nil && strings.TrimSpace(*p) == "" {
			errs = append(errs, k.fail("promptOverlays."+name+".personality",
				"promptOverlays.%s.personality is empty (want on, off, or a style of the overlay such as friendly)", name))
		}
	}
	if a.Skills != nil {
		errs = append(errs, k.names("skills", *a.Skills))
	}
	if a.SkillsLimits != nil {
		errs = append(errs, k.positive("skillsLimits.maxSkillsPromptChars", a.SkillsLimits.MaxSkillsPromptChars))
	}
	if l := a.PromptLimits; l != nil && l.MaxChars != nil && *l.MaxChars < 0 {
		errs = append(errs, k.fail("promptLimits.maxChars", "promptLimits.maxChars must not be negative (0 means no cap)"))
	}
	errs = append(errs, k.contextLimits(a.ContextLimits))
	return cmp.Or(errs...)
}

// contextLimits checks the runtime-excerpt budgets. Their key names are
// the runtime's business, so any is accepted whose value is a positive
// integer; maxPromptChars, which this engine once read here, is refused
// with where the prompt cap went.
func (k keyCheck) contextLimits(limits map[string]any) error {
	for _, name := range slices.Sorted(maps.Keys(limits)) {
		key := "contextLimits." + name
		if strings.EqualFold(name, "maxPromptChars") {
			return k.fail(key, "%s is no longer read: the whole-prompt cap moved to promptLimits.maxChars; contextLimits.* are budgets for runtime excerpts and never change the system prompt", key)
		}
		v, ok := limits[name].(int64)
		if !ok || v <= 0 || int64(int(v)) != v {
			return k.fail(key, "%s = %s: a contextLimits budget must be a positive integer", key, tomlValue(limits[name]))
		}
	}
	return nil
}

// tomlValue shows a decoded value the way the document wrote it, near
// enough for an error message.
func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return echo.Quote(v)
	case map[string]any:
		return "a table"
	case []any, []map[string]any:
		return "an array"
	}
	return fmt.Sprint(v)
}

// The config keys of skills folders.
const (
	extraDirsKey  = "skills.load.extraDirs"
	managedDirKey = "skills.managedDir"
)

// checkExtraDirs refuses skills folders (skills.managedDir and the extra
// ones) that are empty, relative or too many. A relative one is refused rather than resolved: against the
// working directory it would change with where the runtime was started,
// and the engine never looks at that.
func (c *Config) checkExtraDirs() error {
	if d := c.Skills.Managed; d != "" {
		if msg := extraDirProblem(d); msg != "" {
			return c.keyErr(managedDirKey, 1, fmt.Errorf("%s = %s: %s", managedDirKey, echo.Quote(d), msg))
		}
	}
	dirs := c.Skills.Load.ExtraDirs
	if len(dirs) > MaxExtraDirs {
		return c.keyErr(extraDirsKey, 1, fmt.Errorf("%s lists %d folders; at most %d are searched", extraDirsKey, len(dirs), MaxExtraDirs))
	}
	for i, d := range dirs {
		if msg := extraDirProblem(d); msg != "" {
			return c.elementErr(extraDirsKey, i, fmt.Errorf("%s[%d] = %s: %s", extraDirsKey, i, echo.Quote(d), msg))
		}
	}
	return nil
}

// extraDirProblem says what is wrong with one extra skills folder, or "".
func extraDirProblem(d string) string {
	switch {
	case strings.TrimSpace(d) == "":
		return "empty folder name"
	case d == "~" || strings.HasPrefix(d, "~/") || filepath.Separator == '\\' && strings.HasPrefix(d, `~\`):
		return "" // "~\" only where \ separates folders
	case strings.HasPrefix(d, "~"):
		return `only "~" or "~/…" (the host's home) is expanded; write the folder as an absolute path`
	case path.IsAbs(d) || filepath.IsAbs(d):
		return ""
	}
	return `a relative folder is refused; write it as an absolute path or start it with "~/"`
}

// ExtraSkillDirs returns skills.load.extraDirs with "~" expanded against
// home (the host's home directory, which the runtime passes in), cleaned,
// slash-separated and without repeats. A "~" folder with no home known is
// an error placed on its element.
func (c *Config) ExtraSkillDirs(home string) ([]string, error) {
	if c == nil {
		return nil, nil
	}
	var out []string
	for i, d := range c.Skills.Load.ExtraDirs {
		d, ok := expandHome(d, home)
		if !ok {
			return nil, c.elementErr(extraDirsKey, i, fmt.Errorf("%s[%d] = %s: %s", extraDirsKey, i, echo.Quote(c.Skills.Load.ExtraDirs[i]), noHome))
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out, nil
}

// ManagedSkillDir returns skills.managedDir ("" when unset) with "~"
// expanded against home, as ExtraSkillDirs does.
func (c *Config) ManagedSkillDir(home string) (string, error) {
	if c == nil || c.Skills.Managed == "" {
		return "", nil
	}
	d, ok := expandHome(c.Skills.Managed, home)
	if !ok {
		return "", c.keyErr(managedDirKey, 1, fmt.Errorf("%s = %s: %s", managedDirKey, echo.Quote(c.Skills.Managed), noHome))
	}
	return d, nil
}

const noHome = `the host's home directory is not known, so "~" cannot be expanded`

// expandHome replaces a leading "~" of a checked folder with home and
// cleans the result; ok is false when it needs a home and has none.
func expandHome(d, home string) (string, bool) {
	d = filepath.ToSlash(d)
	if rest, found := strings.CutPrefix(d, "~"); found {
		if home == "" {
			return "", false
		}
		d = filepath.ToSlash(home) + "/" + rest // cleaned below, a home of "/" too
	}
	return path.Clean(d), true
}

// elementErr places an error on the i-th element of the array at key,
// or on the key when the element cannot be found.
func (c *Config) elementErr(key string, i int, err error) *diag.Error {
	if at := strict.ScanTOML(c.src).ElementsOf(key); i < len(at) {
		return &diag.Error{Phase: diag.PhaseConfig, File: c.name, Line: at[i].Line, Col: at[i].Col, Err: err}
	}
	return c.keyErr(key, 1, err)
}

// keyCheck places value errors of one table: a key is found at or after
// the table's line, so [[agents.list]] entries each point at their own;
// one the scan cannot find (inside an inline table) is placed at the table.
type keyCheck struct {
	c      *Config
	prefix string     // "agents.defaults." or "" for top-level keys
	at     strict.Pos // the table's header or inline table; Col 0 places nothing
}

func (k keyCheck) fail(key, format string, args ...any) *diag.Error {
	err := k.c.keyErr(k.prefix+key, k.at.Line, fmt.Errorf(format, args...))
	if err.Line == 0 && k.at.Col > 0 {
		err.Line, err.Col = k.at.Line, k.at.Col
	}
	return err
}

func (k keyCheck) enum(key string, v *string, allowed ...string) error {
	if v == nil || slices.Contains(allowed, *v) {
		return nil
	}
	return k.fail(key, "%s = %s is not allowed (want %s)", key, echo.Quote(*v), strings.Join(allowed, ", "))
}

func (k keyCheck) positive(key string, v *int) error {
	if v == nil || *v > 0 {
		return nil
	}
	return k.fail(key, "%s must be a positive number of characters, not %d", key, *v)
}

func (k keyCheck) count(key string, v *int) error {
	if v == nil || *v > 0 {
		return nil
	}
	return k.fail(key, "%s must be positive, not %d", key, *v)
}

// workspace refuses a workspace the prompt could not show: it prints the
// path on one line, so a line break there would forge a line of its own.
func (k keyCheck) workspace(v *string) error {
	switch {
	case v == nil:
		return nil
	case strings.TrimSpace(*v) == "":
		return k.fail("workspace", "workspace is empty (leave the key out instead)")
	}
	if err := echo.OneLine("workspace", *v); err != nil {
		return k.fail("workspace", "%v", err)
	}
	return nil
}

// names refuses an empty name in a list of skill names: it matches none.
func (k keyCheck) names(key string, names []string) error {
	for i, n := range names {
		if strings.TrimSpace(n) == "" {
			return k.fail(key, "%s[%d] is empty (a skill's name)", key, i)
		}
	}
	return nil
}

// emptyKey refuses an empty key of a table of skills or plugins.
func emptyKey[V any](k keyCheck, key, what string, m map[string]V) error {
	for _, name := range slices.Sorted(maps.Keys(m)) { // the same one every time
		if strings.TrimSpace(name) == "" {
			return k.fail(key+"."+name, "%s has an empty %s", key, what)
		}
	}
	return nil
}

func (k keyCheck) zone(key string, v *string) error {
	if v == nil {
		return nil
	}
	if _, err := zone.Load(*v); err != nil || *v == "" || *v == "Local" {
		return k.fail(key, "%s %s is not a known IANA zone", key, echo.Quote(*v))
	}
	return nil
}

// listLines returns where each [[agents.list]] entry starts: its header,
// or its inline table in an agents.list = [...] array; 1:1 when the scan
// does not find it.
func (c *Config) listLines() []strict.Pos {
	doc := strict.ScanTOML(c.src)
	inline := doc.ElementsOf("agents.list")
	headers := doc.Headers("agents.list")
	lines := make([]strict.Pos, len(c.Agents.List))
	for i := range lines {
		switch {
		case i < len(headers):
			lines[i] = strict.Pos{Line: headers[i], Col: 1}
		case i < len(inline):
			lines[i] = inline[i]
		default:
			lines[i] = strict.Pos{Line: 1, Col: 1}
		}
	}
	return lines
}

// CheckOverlays refuses promptOverlays settings that no overlay of the
// pack reads, and personalities that are neither on, off nor one of the
// overlay's styles: a typo must not fall back to a default silently.
// styles maps each overlay setting of the pack to its style names.
func (c *Config) CheckOverlays(styles map[string][]string) error {
	if c == nil {
		return nil
	}
	if err := c.checkOverlays("agents.defaults", strict.Pos{Line: 1}, &c.Agents.Defaults, styles); err != nil {
		return err
	}
	lines := c.listLines()
	for i := range c.Agents.List {
		if err := c.checkOverlays("agents.list", lines[i], &c.Agents.List[i].AgentSettings, styles); err != nil {
			return err
		}
	}
	return nil
}

func (c *Config) checkOverlays(table string, at strict.Pos, a *AgentSettings, styles map[string][]string) *diag.Error {
	k := keyCheck{c, table + ".promptOverlays.", at}
	for _, name := range slices.Sorted(maps.Keys(a.PromptOverlays)) {
		allowed, known := styles[name]
		if !known {
			return k.fail(name, "promptOverlays.%s: no overlay of the pack has the setting %s (have %s)", name, echo.Quote(name), strings.Join(slices.Sorted(maps.Keys(styles)), ", "))
		}
		p := a.PromptOverlays[name].Personality
		if p == nil || *p == "on" || *p == "off" || slices.Contains(allowed, *p) {
			continue
		}
		return k.fail(name+".personality", "promptOverlays.%s.personality = %s is not allowed (want on, off, %s)", name, echo.Quote(*p), strings.Join(allowed, ", "))
	}
	return nil
}

// CheckReplace refuses a [bootstrap.replace] key that is not one of the
// pack's workspace file names: it would never be read, so a typo there
// would silently keep the original file. It refuses a path the render
// would refuse too, here where it is written.
func (c *Config) CheckReplace(names []string) error {
	if c == nil {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(c.Bootstrap.Replace)) {
		var msg error
		if !slices.Contains(names, name) {
			want := cmp.Or(hint.DidYouMean(name, names), "want one of "+strings.Join(names, ", "))
			msg = fmt.Errorf("[bootstrap.replace] %s is not a workspace file of the pack (%s)", echo.Quote(name), want)
		} else if _, err := vfs.Clean(c.Bootstrap.Replace[name]); err != nil {
			msg = fmt.Errorf("[bootstrap.replace] %s: %w", echo.Quote(name), err)
		} else {
			continue
		}
		err := c.keyErr("bootstrap.replace."+name, 1, msg)
		if err.Line == 0 {
			err.Line, err.Col = strict.LocateKey(c.src, "bootstrap.replace")
		}
		return err
	}
	return nil
}

// keyErr places an error at the first definition of key at or after line.
func (c *Config) keyErr(key string, from int, err error) *diag.Error {
	l, col := strict.LocateKeyAfter(c.src, key, from)
	return &diag.Error{Phase: diag.PhaseConfig, File: c.name, Line: l, Col: col, Err: err}
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
