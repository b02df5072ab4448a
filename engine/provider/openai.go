package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/sysprompt/sysprompt/engine"
)

// OpenAIRequest is the body of an OpenAI Responses API request
// (POST /v1/responses).
type OpenAIRequest struct {
	Model string `json:"model"`
	// Instructions is the system layer's text, stable part first; an
	// empty layer leaves it out.
	Instructions string `json:"instructions,omitempty"`
	// Input is the conversation. Its items are Message values; the
	// caller may append the API's other input items (function calls and
	// their outputs) in its own types.
	Input []any        `json:"input"`
	Tools []OpenAITool `json:"tools,omitempty"`
	// PromptCacheKey is "sysprompt-" and 32 hex digits of a sha256 over
	// the stable prefix (see cacheKey): the same on every turn whose
	// stable prefix is the same, so those turns reach the same cache.
	PromptCacheKey  string `json:"prompt_cache_key"`
	MaxOutputTokens int    `json:"max_output_tokens,omitempty"`
}

// OpenAITool is a function tool. Strict is always false: strict mode
// needs every property required and "additionalProperties": false,
// which request schemas do not promise, and the API's default is true.
type OpenAITool struct {
	Type        string          `json:"type"` // always "function"
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// cacheKeyPrefix starts every prompt_cache_key, so a key from this
// engine is recognisable in logs.
const cacheKeyPrefix = "sysprompt-"

// OpenAI builds the Responses request body for a result rendered from a
// request whose runtime facts are rt. The model is the Model option's or
// rt.Model's (which must then be an OpenAI or Codex model);
// max_output_tokens is set only by the MaxTokens option, which must then
// be at least MinOpenAIMaxTokens.
//
// The harness must have one layer, named "system" (the embedded
// harness), which becomes instructions. The codex harness is refused:
// its layers are additions for the Codex runtime, which sends them with
// its own model instructions and AGENTS.md, so a body without those
// would not be the prompt Codex runs with.
func OpenAI(res *engine.Result, rt engine.Runtime, opts ...Option) (*OpenAIRequest, error) {
	a := openaiAPI
	o, err := a.build(res, opts)
	if err != nil {
		return nil, err
	}
	system, err := a.systemLayer(res)
	if err != nil {
		return nil, err
	}
	body := &OpenAIRequest{Instructions: joinTiers(system), Input: []any{}}
	if body.Model, err = a.model(rt, o.model); err != nil {
		return nil, err
	}
	list, err := a.tools(res.Tools)
	if err != nil {
		return nil, err
	}
	for _, t := range list {
		body.Tools = append(body.Tools, OpenAITool{Type: "function", Name: t.name, Description: t.description, Parameters: t.schema})
	}
	for _, m := range o.messages {
		body.Input = append(body.Input, m)
	}
	if o.maxTokensSet {
		body.MaxOutputTokens = o.maxTokens
	}
	if body.PromptCacheKey, err = cacheKey(system, body.Tools); err != nil {
		return nil, a.errorf(ErrTool, "tools cannot be encoded: %v", err)
	}
	return body, nil
}

// cacheKey derives a prompt_cache_key from what the request puts before
// its first per-turn byte: the system layer's stable text (through its
// StableSHA256) and the tool definitions. It is cacheKeyPrefix and 32
// hex digits of a sha256, 42 characters, within the API's 64.
func cacheKey(system engine.Layer, tools []OpenAITool) (string, error) {
	if tools == nil {
		tools = []OpenAITool{}
	}
	h := sha256.New()
	fmt.Fprintf(h, "layer %q %s\n", system.Name, system.StableSHA256())
	encoded, err := encode(tools, "")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "tools %s\n", encoded)
	return cacheKeyPrefix + hex.EncodeToString(h.Sum(nil))[:32], nil
}
