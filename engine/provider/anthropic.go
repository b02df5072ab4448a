package provider

import (
	"encoding/json"

	"github.com/sysprompt/sysprompt/engine"
)

// AnthropicRequest is the body of an Anthropic Messages API request
// (POST /v1/messages).
type AnthropicRequest struct {
	Model     string `json:"model"`
	MaxTokens int    `json:"max_tokens"`
	// System is the prompt: the stable text in a block marked for the
	// prompt cache, then the per-turn text in a block without the mark.
	System []AnthropicTextBlock `json:"system,omitempty"`
	Tools  []AnthropicTool      `json:"tools,omitempty"`
	// Messages is the conversation; the API wants at least one, which
	// the caller appends (or passes with the Messages option).
	Messages []Message `json:"messages"`
}

// AnthropicTextBlock is a text block of the system prompt.
type AnthropicTextBlock struct {
	Type         string        `json:"type"` // always "text"
	Text         string        `json:"text"`
	CacheControl *CacheControl `json:"cache_control,omitempty"`
}

// CacheControl marks the end of a cached prefix; Type is "ephemeral".
type CacheControl struct {
	Type string `json:"type"`
}

// AnthropicTool is a tool definition: its schema is the request tool's,
// encoded with keys sorted.
type AnthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Anthropic builds the Messages request body for a result rendered from a
// request whose runtime facts are rt. The model is the Model option's or
// rt.Model's (which must then be an Anthropic model), max_tokens the
// MaxTokens option's or DefaultMaxTokens.
//
// A Messages request carries one system prompt, so the harness must have
// one layer, named "system" (the embedded harness). The codex harness is
// refused: its layers are additions for the Codex runtime, which sends
// them with its own model instructions and AGENTS.md.
//
// With the cache mark on the stable block, Anthropic caches the tools and
// the stable text, which are the same on every turn of a session.
func Anthropic(res *engine.Result, rt engine.Runtime, opts ...Option) (*AnthropicRequest, error) {
	a := anthropicAPI
	o, err := a.build(res, opts)
	if err != nil {
		return nil, err
	}
	system, err := a.systemLayer(res)
	if err != nil {
		return nil, err
	}
	body := &AnthropicRequest{MaxTokens: DefaultMaxTokens, System: systemBlocks(system), Messages: []Message{}}
	if body.Model, err = a.model(rt, o.model); err != nil {
		return nil, err
	}
	if o.maxTokensSet {
		body.MaxTokens = o.maxTokens
	}
	list, err := a.tools(res.Tools)
	if err != nil {
		return nil, err
	}
	for _, t := range list {
		body.Tools = append(body.Tools, AnthropicTool{Name: t.name, Description: t.description, InputSchema: t.schema})
	}
	body.Messages = append(body.Messages, o.messages...)
	return body, nil
}

// systemBlocks splits a layer at the cache boundary. An empty tier gets
// no block, since the API refuses empty text blocks.
func systemBlocks(l engine.Layer) []AnthropicTextBlock {
	var blocks []AnthropicTextBlock
	if l.Stable != "" {
		blocks = append(blocks, AnthropicTextBlock{Type: "text", Text: l.Stable, CacheControl: &CacheControl{Type: "ephemeral"}})
	}
	if l.Dynamic != "" {
		blocks = append(blocks, AnthropicTextBlock{Type: "text", Text: l.Dynamic})
	}
	return blocks
}
