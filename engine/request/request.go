// Package request is the request an agent runtime sends for one run:
// its types, whose tier tags say which facts may change from turn to
// turn, and Parse, which reads one from TOML or JSON strictly and checks
// every value, naming the key at its line and column when it is wrong.
// Package engine renders it and names its types as its own.
package request

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/sysprompt/sysprompt/engine/internal/diag"
	"github.com/sysprompt/sysprompt/engine/internal/pack"
	"github.com/sysprompt/sysprompt/engine/internal/strict"
	"github.com/sysprompt/sysprompt/engine/internal/zone"
	"github.com/sysprompt/sysprompt/internal/echo"
)

// Mode is the prompt mode: full, minimal or none.
type Mode = pack.Mode

// The prompt modes.
const (
	ModeFull    = pack.ModeFull
	ModeMinimal = pack.ModeMinimal
	ModeNone    = pack.ModeNone
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
	Name        string `toml:"name" json:"name"`
	Description string `toml:"description" json:"description"`
	Schema      Schema `toml:"schema" json:"schema"`
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

// Parse decodes a TOML or JSON request (JSON when the first
// non-space byte is '{'). name is used in error messages.
func Parse(name string, src []byte) (Request, error) {
	var req Request
	var err error
	trimmed := bytes.TrimSpace(src)
	isJSON := len(trimmed) > 0 && trimmed[0] == '{'
	if isJSON {
		err = strict.JSON(src, &req)
	} else {
		var t tomlRequest
		if err = strict.TOML(string(src), &t); err == nil {
			req, err = t.request(string(src))
		}
	}
	if err != nil {
		return Request{}, diag.Decode(diag.PhaseRequest, name, movedKey(err))
	}
	if err := req.Validate(); err != nil {
		e := &diag.Error{Phase: diag.PhaseRequest, File: name, Err: err}
		if ke, ok := err.(*KeyError); ok {
			e.Err = ke.Err
			// Each format is searched by its own scanner: reading a
			// megabyte of JSON as TOML cost more than the parse.
			locate := func() (int, int) { return strict.LocateKey(string(src), ke.Key) }
			if isJSON {
				locate = func() (int, int) { return strict.JSONKeyPos(src, ke.Key) }
			}
			if l, c := locate(); l > 0 {
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

// DecodeJSON decodes a JSON document that holds a request among other
// values (render serve's {"id": …, "request": {…}} line, say) into v, as
// strictly as Parse reads a JSON request: exact keys, none repeated,
// UTF-8, within MaxRequestBytes and MaxDepth. It does not validate the
// requests in v; Validate does. An error is positioned in src.
func DecodeJSON(name string, src []byte, v any) error {
	if err := strict.JSON(src, v); err != nil {
		return diag.Decode(diag.PhaseRequest, name, err)
	}
	return nil
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

// KeyError is a bad value at a dotted key; Err's message names the key.
type KeyError struct {
	Key string
	Err error
}

func (e *KeyError) Error() string { return e.Key + ": " + e.Err.Error() }

func badValue(key, got string, allowed ...string) error {
	return &KeyError{Key: key, Err: fmt.Errorf("%s = %s is not allowed (want %s)", key, echo.Quote(got), strings.Join(allowed, ", "))}
}

// Validate checks a request's values; empty means default. Parse calls
// it, and so does a render, for a request built in Go.
func (r *Request) Validate() error {
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
			return &KeyError{Key: "date", Err: fmt.Errorf("date %s is not an RFC 3339 time such as 2026-11-30T09:15:00Z", echo.Quote(r.Date))}
		}
	}
	if r.Timezone != "" {
		// "Local" would make the output depend on the machine.
		if _, err := zone.Load(r.Timezone); err != nil || r.Timezone == "Local" {
			return &KeyError{Key: "timezone", Err: fmt.Errorf("timezone %s is not a known IANA zone", echo.Quote(r.Timezone))}
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
				return &KeyError{Key: "contributions.section_overrides." + k,
					Err: fmt.Errorf("contributions[%d]: unknown section override %s (want %s)", i, echo.Quote(k), strings.Join(pack.OverrideKeys, ", "))}
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

// SharedChat reports whether the session is a group or channel chat,
// where people other than the owner read what the agent writes. This is
// the one place that decides it; templates read it as .SharedChat.
func (r *Request) SharedChat() bool { return r.ChatType == "group" || r.ChatType == "channel" }

// checkLines holds the strings the prompt prints inline to one line each:
// a line break there would start a line of the prompt's own (a forged
// heading), and a control or bidi character would hide what the line says.
// Text that is meant to span lines (extra_system_prompt, tts_hint, the
// heartbeat prompt, tool descriptions, contributions) is not checked.
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
		for _, alias := range slices.Sorted(maps.Keys(r.ModelAliases)) { // the first bad one in order
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
		return &KeyError{Key: key, Err: fmt.Errorf("%s is %d bytes long; it may take %d", name, len(v), max)}
	}
	if err := echo.OneLine(name, v); err != nil {
		return &KeyError{Key: key, Err: err}
	}
	return nil
}

// lineOK reports whether v is a single line of at most max bytes.
func lineOK(v string, max int) bool {
	return len(v) <= max && !strings.ContainsFunc(v, echo.BreaksLine)
}
