package engine

import (
	"maps"
	"slices"

	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/internal/dot"
	"github.com/sysprompt/sysprompt/engine/request"
)

// The request types live in engine/request; these names keep them the
// engine's own.
type (
	Request      = request.Request
	Session      = request.Session
	Tool         = request.Tool
	Schema       = request.Schema
	Channel      = request.Channel
	Runtime      = request.Runtime
	Workspace    = request.Workspace
	Docs         = request.Docs
	Sandbox      = request.Sandbox
	Heartbeat    = request.Heartbeat
	Reactions    = request.Reactions
	Contribution = request.Contribution
)

// Bounds on request documents and their one-line fields (see
// engine/request).
const (
	MaxRequestBytes     = request.MaxRequestBytes
	MaxTOMLRequestBytes = request.MaxTOMLRequestBytes
	MaxDepth            = request.MaxDepth
	MaxIDBytes          = request.MaxIDBytes
	MaxLineBytes        = request.MaxLineBytes
)

// ParseRequest decodes a TOML or JSON request (JSON when the first
// non-space byte is '{'); name is used in error messages.
func ParseRequest(name string, src []byte) (Request, error) { return request.Parse(name, src) }

// ToolPosition returns where the request file src writes its tools[i],
// or 0, 0 when it cannot tell, to place an error about that tool.
func ToolPosition(src []byte, i int) (line, col int) { return request.ToolPosition(src, i) }

// DecodeJSON decodes a JSON document that holds requests among other
// values into v, as strictly as ParseRequest reads a JSON request; it
// leaves validating them to Request.Validate (see engine/request).
func DecodeJSON(name string, src []byte, v any) error { return request.DecodeJSON(name, src, v) }

// VolatileFields lists the template names of the volatile fields, sorted.
func VolatileFields() []string { return slices.Sorted(maps.Keys(dot.Volatile)) }

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
