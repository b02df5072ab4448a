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
	// Instructions is the system layer's text, stable part first; a
	// harness without a system layer (codex) leaves it out, since its
	// runtime sends its own model instructions there.
	Instructions string `json:"instructions,omitempty"`
	// Input holds the developer messages of a harness's other layers,
	// then the conversation. Its items are Message values; the caller
	// may append the API's other input items (function calls and their
	// outputs) in its own types.
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

// openAIRoles says where each layer a pack names goes in a Responses
// request: "" for instructions, else the role of an input message. Codex
// sends both of its layers as developer messages; they go first in
// input, in layer order, so their stable text leads the cached prefix.
var openAIRoles = map[string]string{
	"system":        "",
	"developer":     "developer",
	"collaboration": "developer",
}

// cacheKeyPrefix starts every prompt_cache_key, so a key from this
// engine is recognisable in logs.
const cacheKeyPrefix = "sysprompt-"

// OpenAI builds the Responses request body for a result rendered from a
// request whose runtime facts are rt. The model is the Model option's or
// rt.Model's (which must then be an OpenAI or Codex model);
// max_output_tokens is set only by the MaxTokens option.
//
// Every layer is carried: a "system" layer becomes instructions, the
// codex harness's "developer" and "collaboration" layers become
// developer messages at the front of input, in layer order. A layer of
// any other name is refused, since the API has no place that would keep
// its meaning.
func OpenAI(res *engine.Result, rt engine.Runtime, opts ...Option) (*OpenAIRequest, error) {
	a := openaiAPI
	o, err := a.build(res, opts)
	if err != nil {
		return nil, err
	}
	body := &OpenAIRequest{Input: []any{}}
	if body.Model, err = a.model(rt, o.model); err != nil {
		return nil, err
	}
	if err := placeLayers(a, res, body); err != nil {
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
	body.PromptCacheKey, err = cacheKey(res.Layers, body.Tools)
	return body, err
}

// placeLayers puts each layer where openAIRoles says. An empty layer
// adds nothing.
func placeLayers(a api, res *engine.Result, body *OpenAIRequest) error {
	system := false
	for _, l := range res.Layers {
		role, ok := openAIRoles[l.Name]
		switch {
		case !ok:
			return a.errorf(ErrHarness, "layer %q of harness %q has no place in a Responses request (a system layer becomes instructions, developer and collaboration layers developer messages)", l.Name, res.Harness)
		case role == "" && system:
			return a.errorf(ErrHarness, "harness %q has two system layers; a Responses request has one instructions field", res.Harness)
		case role == "":
			system = true
			body.Instructions = joinTiers(l)
		case joinTiers(l) != "":
			body.Input = append(body.Input, Message{Role: role, Content: joinTiers(l)})
		}
	}
	return nil
}

// cacheKey derives a prompt_cache_key from what the request puts before
// its first per-turn byte: each layer's name and stable text (through
// its StableSHA256) and the tool definitions. It is cacheKeyPrefix and
// 32 hex digits of a sha256, 42 characters, within the API's 64.
func cacheKey(layers []engine.Layer, tools []OpenAITool) (string, error) {
	if tools == nil {
		tools = []OpenAITool{}
	}
	h := sha256.New()
	for _, l := range layers {
		fmt.Fprintf(h, "layer %q %s\n", l.Name, l.StableSHA256)
	}
	encoded, err := encode(tools, "")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "tools %s\n", encoded)
	return cacheKeyPrefix + hex.EncodeToString(h.Sum(nil))[:32], nil
}
