package engine

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/internal/diag"
	"github.com/sysprompt/sysprompt/engine/internal/memo"
	"github.com/sysprompt/sysprompt/engine/internal/pack"
	"github.com/sysprompt/sysprompt/engine/internal/strict"
	"github.com/sysprompt/sysprompt/engine/internal/tidy"
	"github.com/sysprompt/sysprompt/engine/internal/zone"
	"github.com/sysprompt/sysprompt/engine/view"
	"github.com/sysprompt/sysprompt/internal/echo"
)

// Request holds the live facts of one agent run. Every field says whether
// it is stable (the same from turn to turn of a session, so it may shape
// the cached prefix) or volatile (may change every turn, so only dynamic
// sections may read it). The tier tag is the single declaration the engine
// enforces: a stable section that reads a volatile field fails to render.
//
// Keys in TOML and JSON request files are the snake_case names below;
// unknown keys are errors.
type Request struct {
	// Mode is full (default), minimal (sub-agents) or none (identity only).
	Mode Mode `toml:"mode" json:"mode" tier:"stable"`
	// Harness selects the manifest's harness; default "embedded".
	Harness string `toml:"harness" json:"harness" tier:"stable"`
	// Agent is the agent id used to pick [[agents.list]] overrides.
	Agent string `toml:"agent" json:"agent" tier:"stable"`
	// SessionKind is main, subagent, cron or heartbeat; default main.
	SessionKind string `toml:"session_kind" json:"session_kind" tier:"stable"`
	// ChatType is the session's chat type: direct, group or channel. A
	// session keeps its chat type for its whole life, so it is stable: a
	// group or channel session never gets the private workspace files
	// (MEMORY.md), and its prefix still stays the same turn after turn.
	// Unset, it comes from the session key, which also names the session
	// for its life: a key with a "group" or "channel" part
	// ("agent:wren:discord:group:…") is that chat type, so privacy fails
	// closed; any other key means direct.
	ChatType string `toml:"chat_type" json:"chat_type" tier:"stable"`
	// LightContext marks a lightweight cron run: no workspace files are
	// read, and the pack leaves out the skills list and memory guidance,
	// so the scheduled prompt is all the run has. It is fixed for the
	// run, so stable; only a cron run may set it.
	LightContext bool `toml:"light_context" json:"light_context" tier:"stable"`
	// Session holds per-turn session facts.
	Session Session `toml:"session" json:"session" tier:"volatile"`
	// Tools are the tools the model can call this run, in the caller's order.
	Tools []Tool `toml:"tools" json:"tools" tier:"stable"`
	// Channel is where the turn came from and how replies are delivered.
	Channel Channel `toml:"channel" json:"channel" tier:"volatile"`
	// Runtime describes the host and model; it feeds the Runtime line.
	Runtime Runtime `toml:"runtime" json:"runtime" tier:"volatile"`
	// Workspace is the agent's workspace directory.
	Workspace Workspace `toml:"workspace" json:"workspace" tier:"stable"`
	// Docs points at local documentation and source.
	Docs Docs `toml:"docs" json:"docs" tier:"stable"`
	// Sandbox describes the sandbox the run executes in, if any.
	Sandbox Sandbox `toml:"sandbox" json:"sandbox" tier:"stable"`
	// Date is the current time, RFC 3339 ("2026-11-30T09:15:00Z").
	Date string `toml:"date" json:"date" tier:"volatile"`
	// Timezone is the user's IANA time zone; it overrides userTimezone.
	Timezone string `toml:"timezone" json:"timezone" tier:"stable"`
	// ElevatedLevel is the elevated exec level in force, as the user last
	// set it with /elevated: off, on, ask or full; unset when unknown.
	ElevatedLevel string `toml:"elevated_level" json:"elevated_level" tier:"volatile"`
	// Heartbeat is set on heartbeat turns.
	Heartbeat Heartbeat `toml:"heartbeat" json:"heartbeat" tier:"volatile"`
	// Owners are the sender ids allowed to command the agent.
	Owners []string `toml:"owners" json:"owners" tier:"volatile"`
	// TTSHint is the caller's text-to-speech guidance.
	TTSHint string `toml:"tts_hint" json:"tts_hint" tier:"volatile"`
	// ModelAliases maps short names to provider/model references.
	ModelAliases map[string]string `toml:"model_aliases" json:"model_aliases" tier:"stable"`
	// Reactions is the channel's reaction guidance level.
	Reactions Reactions `toml:"reactions" json:"reactions" tier:"volatile"`
	// ExtraSystemPrompt is caller text for this turn (group or subagent context).
	ExtraSystemPrompt string `toml:"extra_system_prompt" json:"extra_system_prompt" tier:"volatile"`
	// Contributions are provider prompt contributions. Their
	// stable prefix and overrides are stable, their dynamic suffix is
	// volatile; templates see them merged as StablePrefix and DynamicSuffix.
	Contributions []Contribution `toml:"contributions" json:"contributions" tier:"-"`
}

// Session holds the volatile per-turn session facts.
type Session struct {
	Key   string `toml:"key" json:"key"`
	ID    string `toml:"id" json:"id"`
	Reset bool   `toml:"reset" json:"reset"` // a /new or /reset turn
}

// Tool is one callable tool.
type Tool struct {
	Name        string         `toml:"name" json:"name"`
	Description string         `toml:"description" json:"description"`
	Schema      map[string]any `toml:"schema" json:"schema"` // a JSON request's numbers are json.Number, sent as written
}

// Channel is the messaging surface of the turn. The chat type is the
// session's (Request.ChatType), not the turn's.
type Channel struct {
	ID           string   `toml:"id" json:"id"`
	Delivery     string   `toml:"delivery" json:"delivery"` // automatic | message_tool_only
	Capabilities []string `toml:"capabilities" json:"capabilities"`
	// SilentReplies is "generic" (the default) or "none". With automatic
	// delivery in a group or channel session, generic adds the Silent
	// Replies section and the message tool's NO_REPLY rule (answer
	// NO_REPLY when there is nothing to say); none leaves both out, for a
	// turn whose own context (the caller's group rules, say) already says
	// when to stay silent and with what token.
	SilentReplies string `toml:"silent_replies" json:"silent_replies"`
}

// Runtime describes where and with what the agent runs.
type Runtime struct {
	Host         string `toml:"host" json:"host"`
	OS           string `toml:"os" json:"os"`
	Arch         string `toml:"arch" json:"arch"`
	Version      string `toml:"version" json:"version"`
	Provider     string `toml:"provider" json:"provider"`
	Model        string `toml:"model" json:"model"`
	DefaultModel string `toml:"default_model" json:"default_model"`
	RepoRoot     string `toml:"repo_root" json:"repo_root"`
	Shell        string `toml:"shell" json:"shell"`
	Thinking     string `toml:"thinking" json:"thinking"`
	Reasoning    string `toml:"reasoning" json:"reasoning"`
}

// Workspace is the agent workspace.
type Workspace struct {
	Path string `toml:"path" json:"path"`
	// BrandNew says whether first-run setup is pending. Unset, the
	// workspace decides: setup is pending while BOOTSTRAP.md has content.
	// true makes it pending even without the file; false makes it done
	// even with one.
	BrandNew *bool `toml:"brand_new" json:"brand_new"`
}

// Docs locates documentation and source.
type Docs struct {
	Path   string `toml:"path" json:"path"`
	URL    string `toml:"url" json:"url"`
	Source string `toml:"source" json:"source"`
}

// Sandbox describes a sandboxed run.
type Sandbox struct {
	Enabled         bool   `toml:"enabled" json:"enabled"`
	Workdir         string `toml:"workdir" json:"workdir"`
	MountSource     string `toml:"mount_source" json:"mount_source"` // the host folder mounted as the workspace
	WorkspaceAccess string `toml:"workspace_access" json:"workspace_access"`
	Elevated        bool   `toml:"elevated" json:"elevated"`           // exec may run on the host
	ElevatedFull    bool   `toml:"elevated_full" json:"elevated_full"` // and the full level (no approvals) is allowed
}

// Heartbeat is set on heartbeat turns.
type Heartbeat struct {
	Prompt string `toml:"prompt" json:"prompt"`
}

// Reactions is reaction guidance for the channel.
type Reactions struct {
	Level string `toml:"level" json:"level"` // minimal | extensive
}

// Contribution is one provider's prompt contribution.
type Contribution struct {
	StablePrefix     string            `toml:"stable_prefix" json:"stable_prefix"`
	DynamicSuffix    string            `toml:"dynamic_suffix" json:"dynamic_suffix"`
	SectionOverrides map[string]string `toml:"section_overrides" json:"section_overrides"`
}

// Bounds on request (and config) documents, checked before they are
// parsed: a JSON document may take MaxRequestBytes, a TOML one
// MaxTOMLRequestBytes (a reader need read at most one byte more than
// MaxRequestBytes to be refused with a clear error), and nothing may
// nest deeper than MaxDepth (arrays and objects; in TOML, tables,
// arrays and dotted keys counted together). Documents must also be UTF-8
// without a byte-order mark.
const (
	MaxRequestBytes     = strict.MaxBytes
	MaxTOMLRequestBytes = strict.MaxTOMLBytes
	MaxDepth            = strict.MaxDepth
)

// ParseRequest decodes a TOML or JSON request (JSON when the first
// non-space byte is '{'). name is used in error messages.
func ParseRequest(name string, src []byte) (Request, error) {
	var req Request
	var err error
	if trimmed := bytes.TrimSpace(src); len(trimmed) > 0 && trimmed[0] == '{' {
		err = strict.JSON(src, &req)
	} else {
		err = strict.TOML(string(src), &req)
	}
	if err != nil {
		return Request{}, diag.Decode(PhaseRequest, name, movedKey(err))
	}
	if err := req.validate(); err != nil {
		e := &Error{Phase: PhaseRequest, File: name, Err: err}
		if ke, ok := err.(*keyError); ok {
			e.Err = ke.err
			if l, c := strict.LocateKey(string(src), ke.key); l > 0 {
				e.Line, e.Col = l, c
			} else if l, c := strict.JSONKeyPos(src, ke.key); l > 0 {
				e.Line, e.Col = l, c
			}
		}
		if de, ok := err.(*duplicateToolError); ok {
			de.locate(e, name, src)
		}
		return Request{}, e
	}
	return req, nil
}

// movedKeys are request keys that have moved, with where to.
var movedKeys = map[string]string{
	"channel.chat_type": "the chat type belongs to the session, not the turn: set chat_type at the top level",
}

// movedKey adds where an unknown key went, when it is one that moved.
func movedKey(err error) error {
	if pe, ok := errors.AsType[*strict.PosError](err); ok && pe.Unknown {
		if hint, ok := movedKeys[pe.Key]; ok {
			pe.Msg += "; " + hint
		}
	}
	return err
}

// keyError is a bad value at a dotted key.
type keyError struct {
	key string
	err error
}

func (e *keyError) Error() string { return e.key + ": " + e.err.Error() }

func badValue(key, got string, allowed ...string) error {
	return &keyError{key: key, err: fmt.Errorf("%s = %s is not allowed (want %s)", key, echo.Quote(got), strings.Join(allowed, ", "))}
}

// validate checks enumerated values; empty means default.
func (r *Request) validate() error {
	switch r.Mode {
	case "", ModeFull, ModeMinimal, ModeNone:
	default:
		return badValue("mode", string(r.Mode), "full", "minimal", "none")
	}
	switch r.SessionKind {
	case "", "main", "subagent", "cron", "heartbeat":
	default:
		return badValue("session_kind", r.SessionKind, "main", "subagent", "cron", "heartbeat")
	}
	switch r.ChatType {
	case "", "direct", "group", "channel":
	default:
		return badValue("chat_type", r.ChatType, "direct", "group", "channel")
	}
	switch r.Channel.Delivery {
	case "", "automatic", "message_tool_only":
	default:
		return badValue("channel.delivery", r.Channel.Delivery, "automatic", "message_tool_only")
	}
	switch r.Channel.SilentReplies {
	case "", "generic", "none":
	default:
		return badValue("channel.silent_replies", r.Channel.SilentReplies, "generic", "none")
	}
	switch r.ElevatedLevel {
	case "", "off", "on", "ask", "full":
	default:
		return badValue("elevated_level", r.ElevatedLevel, "off", "on", "ask", "full")
	}
	switch r.Reactions.Level {
	case "", "minimal", "extensive":
	default:
		return badValue("reactions.level", r.Reactions.Level, "minimal", "extensive")
	}
	if r.Date != "" {
		if _, err := time.Parse(time.RFC3339, r.Date); err != nil {
			return &keyError{key: "date", err: fmt.Errorf("date %s is not an RFC 3339 time such as 2026-11-30T09:15:00Z", echo.Quote(r.Date))}
		}
	}
	if r.Timezone != "" {
		// "Local" would make the output depend on the machine.
		if _, err := zone.Load(r.Timezone); err != nil || r.Timezone == "Local" {
			return &keyError{key: "timezone", err: fmt.Errorf("timezone %s is not a known IANA zone", echo.Quote(r.Timezone))}
		}
	}
	if err := r.checkLines(); err != nil {
		return err
	}
	if err := checkToolNames(r.Tools); err != nil {
		return err
	}
	for i, c := range r.Contributions {
		for k := range c.SectionOverrides {
			if !slices.Contains(pack.OverrideKeys, k) {
				return &keyError{key: "contributions.section_overrides." + k,
					err: fmt.Errorf("contributions[%d]: unknown section override %s (want %s)", i, echo.Quote(k), strings.Join(pack.OverrideKeys, ", "))}
			}
		}
	}
	return nil
}

// The longest value a one-line request field may take: ids and keys, which
// also key the engine's caches, and paths and the other facts.
const (
	MaxIDBytes   = 1 << 10
	MaxLineBytes = 4 << 10
)

// checkLines holds the strings the prompt prints inline to one line each:
// a line break there would start a line of the prompt's own (a forged
// heading), and a control or bidi character would hide what the line says.
// Text that is meant to span lines (extra_system_prompt, tts_hint, the
// heartbeat prompt, tool descriptions, contributions) is not checked.
// SharedChat reports whether the session is a group or channel chat,
// where people other than the owner read what the agent writes. This is
// the one place that decides it; templates read it as .SharedChat.
func (r *Request) SharedChat() bool { return r.ChatType == "group" || r.ChatType == "channel" }

func (r *Request) checkLines() error {
	for _, f := range [...]struct {
		key, v string
		max    int
	}{
		{"agent", r.Agent, MaxIDBytes}, {"session.key", r.Session.Key, MaxIDBytes}, {"session.id", r.Session.ID, MaxIDBytes},
		{"channel.id", r.Channel.ID, MaxIDBytes}, {"workspace.path", r.Workspace.Path, MaxLineBytes},
		{"docs.path", r.Docs.Path, MaxLineBytes}, {"docs.url", r.Docs.URL, MaxLineBytes}, {"docs.source", r.Docs.Source, MaxLineBytes},
		{"sandbox.workdir", r.Sandbox.Workdir, MaxLineBytes}, {"sandbox.mount_source", r.Sandbox.MountSource, MaxLineBytes}, {"sandbox.workspace_access", r.Sandbox.WorkspaceAccess, MaxLineBytes},
		{"runtime.host", r.Runtime.Host, MaxLineBytes}, {"runtime.os", r.Runtime.OS, MaxLineBytes}, {"runtime.arch", r.Runtime.Arch, MaxLineBytes},
		{"runtime.version", r.Runtime.Version, MaxLineBytes}, {"runtime.provider", r.Runtime.Provider, MaxLineBytes},
		{"runtime.model", r.Runtime.Model, MaxLineBytes}, {"runtime.default_model", r.Runtime.DefaultModel, MaxLineBytes},
		{"runtime.repo_root", r.Runtime.RepoRoot, MaxLineBytes}, {"runtime.shell", r.Runtime.Shell, MaxLineBytes},
		{"runtime.thinking", r.Runtime.Thinking, MaxLineBytes}, {"runtime.reasoning", r.Runtime.Reasoning, MaxLineBytes},
	} {
		if err := oneLine(f.key, f.key, f.v, f.max); err != nil {
			return err
		}
	}
	// The lists' labels are made only for a bad value: a render checks
	// every request.
	for i, v := range r.Owners {
		if !lineOK(v, MaxIDBytes) {
			return oneLine("owners", fmt.Sprintf("owners[%d]", i), v, MaxIDBytes)
		}
	}
	for i, v := range r.Channel.Capabilities {
		if !lineOK(v, MaxIDBytes) {
			return oneLine("channel.capabilities", fmt.Sprintf("channel.capabilities[%d]", i), v, MaxIDBytes)
		}
	}
	for i, t := range r.Tools {
		if !lineOK(t.Name, MaxIDBytes) {
			return oneLine("tools", fmt.Sprintf("tools[%d].name", i), t.Name, MaxIDBytes)
		}
	}
	for alias, v := range r.ModelAliases {
		if lineOK(alias, MaxIDBytes) && lineOK(v, MaxLineBytes) {
			continue
		}
		for _, alias := range sortedKeys(r.ModelAliases) { // the first bad one in order
			if err := cmp.Or(oneLine("model_aliases", "model_aliases key", alias, MaxIDBytes),
				oneLine("model_aliases."+alias, "model_aliases."+alias, r.ModelAliases[alias], MaxLineBytes)); err != nil {
				return err
			}
		}
	}
	return nil
}

// oneLine refuses v, the value of name (placed at key), if it holds a
// control character or a line or paragraph separator, or is over max bytes.
func oneLine(key, name, v string, max int) error {
	if len(v) > max {
		return &keyError{key: key, err: fmt.Errorf("%s is %d bytes long; it may take %d", name, len(v), max)}
	}
	if i := strings.IndexFunc(v, breaksLine); i >= 0 {
		r, _ := utf8.DecodeRuneInString(v[i:])
		return &keyError{key: key, err: fmt.Errorf("%s = %s holds %U; the prompt prints it on one line, so it takes no line breaks or control characters", name, echo.Quote(v), r)}
	}
	return nil
}

// lineOK reports whether v is a single line of at most max bytes.
func lineOK(v string, max int) bool {
	return len(v) <= max && !strings.ContainsFunc(v, breaksLine)
}

func breaksLine(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }

// field is one template-visible field of Request or derived and its tier.
type field struct {
	key   string // template name: the Go field name
	index int
	tier  Tier
}

// tieredFields reads the tier tags of a struct: every field is "stable",
// "volatile" or "-" (not template data).
func tieredFields(t reflect.Type) []field {
	var fields []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		switch tag := f.Tag.Get("tier"); tag {
		case "stable":
			fields = append(fields, field{f.Name, i, TierStable})
		case "volatile":
			fields = append(fields, field{f.Name, i, TierDynamic})
		case "-":
		default:
			panic(fmt.Sprintf("engine: %s.%s has tier tag %q; want stable, volatile or -", t.Name(), f.Name, tag))
		}
	}
	return fields
}

// requestFields and derivedFields are read once from the tier tags;
// volatileKeys are the names only dynamic sections may read.
var (
	requestFields = tieredFields(reflect.TypeFor[Request]())
	derivedFields = tieredFields(reflect.TypeFor[derived]())
	volatileKeys  = func() map[string]bool {
		m := map[string]bool{}
		for _, f := range append(slices.Clip(requestFields), derivedFields...) {
			if f.tier == TierDynamic {
				m[f.key] = true
			}
		}
		return m
	}()
)

// VolatileFields lists the template names of the volatile fields, sorted.
func VolatileFields() []string {
	out := make([]string, 0, len(volatileKeys))
	for k := range volatileKeys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// normalizeBlock prepares provider text for the prompt: CRLF to LF,
// trailing spaces stripped from each line, runs of blank lines folded to
// one (the prompt never holds more outside workspace files), trimmed.
// Empty means absent.
func normalizeBlock(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return tidy.Text(strings.Join(lines, "\n"), nil)
}

// merged is several contributions combined: prefixes and
// suffixes joined with a blank line with duplicates dropped, overrides
// later-wins.
type merged struct {
	stablePrefix  string
	dynamicSuffix string
	overrides     map[string]string
}

// noOverrides is the overrides of a turn without any. Nothing writes to
// it: templates cannot change a map, and mergeContributions starts a map
// of its own for the first override.
var noOverrides = map[string]string{}

func mergeContributions(list []Contribution) merged {
	var prefixes, suffixes []string
	overrides := noOverrides // shared, read only, until one is given
	for _, c := range list {
		if p := normalizeBlock(c.StablePrefix); p != "" && !slices.Contains(prefixes, p) {
			prefixes = append(prefixes, p)
		}
		if s := normalizeBlock(c.DynamicSuffix); s != "" && !slices.Contains(suffixes, s) {
			suffixes = append(suffixes, s)
		}
		// Apply in sorted key order so the result never depends on map order.
		for _, k := range sortedKeys(c.SectionOverrides) {
			if v := normalizeBlock(c.SectionOverrides[k]); v != "" {
				if len(overrides) == 0 {
					overrides = map[string]string{}
				}
				overrides[k] = v
			}
		}
	}
	return merged{
		stablePrefix:  strings.Join(prefixes, "\n\n"),
		dynamicSuffix: strings.Join(suffixes, "\n\n"),
		overrides:     overrides,
	}
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// overlayContributions returns the contributions of every overlay that
// applies to the run, in file order.
func (e *Engine) overlayContributions(req *Request, s *config.Settings) ([]Contribution, error) {
	var out []Contribution
	for _, o := range e.pack.Overlays {
		if !o.Applies(req.Runtime.Provider, req.Runtime.Model) {
			continue
		}
		setting := ""
		if o.Setting != "" {
			setting = s.PromptOverlays[o.Setting]
		}
		overrides, err := o.Style(setting)
		if err != nil {
			return nil, err
		}
		out = append(out, Contribution{StablePrefix: o.StablePrefix, DynamicSuffix: o.Dynamic, SectionOverrides: overrides})
	}
	return out, nil
}

// Template data. A section's dot is a struct built at init (viewType):
// the stable view holds the stable request fields and the stable derived
// values; the full view adds the volatile ones. A stable section that
// reads a volatile field fails because its view has no such field, which
// is how the cache tier is enforced at render time (New checks it
// statically too).

// toolInfos converts the request's tools for templates.
func toolInfos(tools []Tool) view.ToolList {
	if tools == nil {
		return nil
	}
	out := make(view.ToolList, len(tools))
	for i, t := range tools {
		out[i] = view.ToolInfo{Name: t.Name, Description: t.Description}
	}
	return out
}

// viewType is a struct type built at init from the request's tier tags
// and the derived keys: the stable type has only stable fields, the full
// type has all. A template that names a field its view lacks fails with
// "can't evaluate field", which is how the tier is enforced at render
// time; a struct (unlike a map) also cannot be reached around with index.
type viewType struct {
	typ       reflect.Type
	fields    []viewField
	toolLines bool // holds ToolLines, which renders compute only when needed
	tools     bool // holds Tools, likewise
}

type viewField struct {
	name    string
	request int  // index in Request, or -1 for a derived value
	derived int  // index in derived, or -1 for a request field
	tools   bool // Tools: filled from derived.tools
}

// derived holds the values the engine computes for templates; a field's
// name is its template name and its tier tag says which sections see it.
type derived struct {
	Config        config.Settings     `tier:"stable"`
	Pack          view.PackInfo       `tier:"stable"`
	Files         view.FileList       `tier:"stable"`   // bootstrap files above the boundary
	StablePrefix  string              `tier:"stable"`   // merged provider stable prefixes
	DynamicFiles  view.FileList       `tier:"volatile"` // bootstrap files below the boundary
	DynamicSuffix string              `tier:"volatile"` // merged provider dynamic suffixes
	Truncation    view.TruncationInfo `tier:"volatile"` // the warning state changes between turns
	ToolLines     []view.ToolLine     `tier:"stable"`   // in the core table's order
	Skills        view.SkillsView     `tier:"stable"`
	Overrides     view.OverrideSet    `tier:"stable"` // the provider overrides in force
	// Today is the turn's date in the user's time zone (2006-01-02), ""
	// when the request gives no date or no zone is known.
	Today string `tier:"volatile"`
	// BootstrapMode is "full" when first-run setup is pending and this run
	// can work through it, "limited" when it is pending but the run
	// cannot, and "" otherwise.
	BootstrapMode string `tier:"stable"`
	// SharedChat is Request.SharedChat, for templates.
	SharedChat bool `tier:"stable"`

	tools     view.ToolList `tier:"-"` // the Tools view field (a request field in another type)
	skillsKey memo.Key      `tier:"-"` // stands for Skills in memo keys
}

var (
	stableView = newViewType(func(name string) bool { return !volatileKeys[name] })
	fullView   = newViewType(func(string) bool { return true })
)

// newViewType builds the view type holding the fields keep accepts, in
// the full view's order.
func newViewType(keep func(name string) bool) viewType {
	var vt viewType
	var sf []reflect.StructField
	rt := reflect.TypeFor[Request]()
	for _, f := range requestFields {
		if !keep(f.key) {
			continue
		}
		typ, tools := rt.Field(f.index).Type, f.key == "Tools"
		if tools {
			typ = reflect.TypeFor[view.ToolList]()
			vt.tools = true
		}
		sf = append(sf, reflect.StructField{Name: f.key, Type: typ})
		vt.fields = append(vt.fields, viewField{name: f.key, request: f.index, derived: -1, tools: tools})
	}
	dt := reflect.TypeFor[derived]()
	for _, f := range derivedFields {
		if !keep(f.key) {
			continue
		}
		vt.toolLines = vt.toolLines || f.key == "ToolLines"
		sf = append(sf, reflect.StructField{Name: f.key, Type: dt.Field(f.index).Type})
		vt.fields = append(vt.fields, viewField{name: f.key, request: -1, derived: f.index})
	}
	vt.typ = reflect.StructOf(sf)
	return vt
}

// viewKeys are every name a section's dot can hold.
var viewKeys = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range fullView.fields {
		m[f.name] = true
	}
	return m
}()

// build fills a view from the request and the derived values.
func (vt viewType) build(req *Request, d *derived) any {
	v := reflect.New(vt.typ)
	s := v.Elem()
	rv := reflect.ValueOf(req).Elem()
	dv := reflect.ValueOf(d).Elem()
	for i, f := range vt.fields {
		switch {
		case f.tools:
			s.Field(i).Set(reflect.ValueOf(d.tools))
		case f.request >= 0:
			s.Field(i).Set(rv.Field(f.request))
		default:
			s.Field(i).Set(dv.Field(f.derived))
		}
	}
	return v.Interface()
}

// toolLines orders the request's tools: core tools in table order, then
// the others sorted by lowercase name. Names are trimmed and de-duplicated
// case-insensitively; the first spelling wins.
func toolLines(table []pack.ToolEntry, tools []Tool) []view.ToolLine {
	byName := map[string]Tool{}
	var order []string
	for _, t := range tools {
		name, key := strings.TrimSpace(t.Name), toolKey(t.Name)
		if name == "" || slices.Contains(order, key) {
			continue
		}
		t.Name = name
		byName[key] = t
		order = append(order, key)
	}
	lines := make([]view.ToolLine, 0, len(order))
	core := map[string]bool{}
	for _, e := range table {
		key := strings.ToLower(e.Name)
		core[key] = true
		if t, ok := byName[key]; ok {
			lines = append(lines, view.ToolLine{Name: t.Name, Summary: e.Summary})
		}
	}
	var rest []string
	for _, key := range order {
		if !core[key] {
			rest = append(rest, key)
		}
	}
	sort.Strings(rest)
	for _, key := range rest {
		t := byName[key]
		summary, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
		lines = append(lines, view.ToolLine{Name: t.Name, Summary: strings.TrimSpace(summary)})
	}
	return lines
}
