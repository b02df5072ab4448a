package provider_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/provider"
	"github.com/sysprompt/sysprompt/internal/packtest"
)

// turn is a hand-built result of the embedded harness: one system layer
// with a stable and a dynamic part, and two tools, the second without a
// schema.
func turn() *engine.Result {
	return &engine.Result{
		Mode:    engine.ModeFull,
		Harness: "embedded",
		Layers: []engine.Layer{{
			Name:    "system",
			Stable:  "You are Wren.\n\nUse <tools> & files.",
			Dynamic: "It is Monday.",
		}},
		Tools: []engine.Tool{
			{Name: "read", Description: "Read a file.", Schema: engine.Schema(`{"type": "object", "required": ["path"],
				"properties": {"path": {"type": "string"}}}`)},
			{Name: "session_status", Description: "Show the status card."},
		},
	}
}

var sonnet = engine.Runtime{Provider: "anthropic", Model: "anthropic/claude-sonnet-4-5"}

func marshal(t *testing.T, body any) string {
	t.Helper()
	b, err := provider.MarshalIndent(body)
	require.NoError(t, err)
	return string(b)
}

// The whole body, field names and order included, as the API documents
// them; "<" and "&" stay as they are, and schema keys are sorted.
func TestAnthropicBody(t *testing.T) {
	body, err := provider.Anthropic(turn(), sonnet)
	require.NoError(t, err)
	assert.Equal(t, `{
  "model": "claude-sonnet-4-5",
  "max_tokens": 8192,
  "system": [
    {
      "type": "text",
      "text": "You are Wren.\n\nUse <tools> & files.",
      "cache_control": {
        "type": "ephemeral"
      }
    },
    {
      "type": "text",
      "text": "It is Monday."
    }
  ],
  "tools": [
    {
      "name": "read",
      "description": "Read a file.",
      "input_schema": {
        "properties": {
          "path": {
            "type": "string"
          }
        },
        "required": [
          "path"
        ],
        "type": "object"
      }
    },
    {
      "name": "session_status",
      "description": "Show the status card.",
      "input_schema": {
        "type": "object",
        "properties": {}
      }
    }
  ],
  "messages": []
}
`, marshal(t, body))
}

// The key is "sysprompt-" and the first 32 hex digits of the sha256 of
// "layer \"system\" aa\ntools " + the tools as compact JSON + "\n",
// worked out separately (with Python's hashlib).
func TestOpenAIBody(t *testing.T) {
	body, err := provider.OpenAI(turn(), engine.Runtime{Provider: "openai", Model: "openai/gpt-5.1"})
	require.NoError(t, err)
	assert.Equal(t, `{
  "model": "gpt-5.1",
  "instructions": "You are Wren.\n\nUse <tools> & files.\n\nIt is Monday.",
  "input": [],
  "tools": [
    {
      "type": "function",
      "name": "read",
      "description": "Read a file.",
      "parameters": {
        "properties": {
          "path": {
            "type": "string"
          }
        },
        "required": [
          "path"
        ],
        "type": "object"
      },
      "strict": false
    },
    {
      "type": "function",
      "name": "session_status",
      "description": "Show the status card.",
      "parameters": {
        "type": "object",
        "properties": {}
      },
      "strict": false
    }
  ],
  "prompt_cache_key": "sysprompt-327aaab02a85a58031f3ee72fd617b49"
}
`, marshal(t, body))
}

func TestOptions(t *testing.T) {
	hello := provider.Message{Role: "user", Content: "Hello"}
	a, err := provider.Anthropic(turn(), sonnet, provider.MaxTokens(1024), provider.Messages(hello), provider.Model("claude-opus-4-1"))
	require.NoError(t, err)
	assert.Equal(t, 1024, a.MaxTokens)
	assert.Equal(t, "claude-opus-4-1", a.Model)
	assert.Equal(t, []provider.Message{hello}, a.Messages)

	o, err := provider.OpenAI(turn(), engine.Runtime{Model: "gpt-5"}, provider.MaxTokens(512), provider.Messages(hello))
	require.NoError(t, err)
	assert.Equal(t, 512, o.MaxOutputTokens)
	assert.Equal(t, []any{hello}, o.Input)

	o, err = provider.OpenAI(turn(), engine.Runtime{Model: "gpt-5"})
	require.NoError(t, err)
	assert.NotContains(t, marshal(t, o), "max_output_tokens", "left out unless given")
}

func TestModel(t *testing.T) {
	tests := []struct {
		name      string
		anthropic bool // else openai
		rt        engine.Runtime
		given     string
		want      string
		wantErr   error
	}{
		{name: "prefix dropped", anthropic: true, rt: sonnet, want: "claude-sonnet-4-5"},
		{name: "bare model", anthropic: true, rt: engine.Runtime{Model: "claude-haiku-4-5"}, want: "claude-haiku-4-5"},
		{name: "provider in any case", anthropic: true, rt: engine.Runtime{Provider: "Anthropic", Model: "ANTHROPIC/claude-x"}, want: "claude-x"},
		{name: "codex is openai", rt: engine.Runtime{Provider: "codex", Model: "gpt-5.5"}, want: "gpt-5.5"},
		{name: "codex prefix", rt: engine.Runtime{Model: "codex/gpt-5.5"}, want: "gpt-5.5"},
		{name: "no model", anthropic: true, rt: engine.Runtime{Provider: "anthropic"}, wantErr: provider.ErrNoModel},
		{name: "provider only", rt: engine.Runtime{Model: "openai/"}, wantErr: provider.ErrNoModel},
		{name: "other provider", anthropic: true, rt: engine.Runtime{Provider: "openai", Model: "gpt-5"}, wantErr: provider.ErrOtherProvider},
		{name: "other prefix", anthropic: true, rt: engine.Runtime{Model: "openai/gpt-5"}, wantErr: provider.ErrOtherProvider},
		{name: "routed through a gateway", anthropic: true, rt: engine.Runtime{Model: "openrouter/anthropic/claude-x"}, wantErr: provider.ErrOtherProvider},
		{name: "anthropic for openai", rt: sonnet, wantErr: provider.ErrOtherProvider},
		{name: "given wins", rt: sonnet, given: "gpt-5.1", want: "gpt-5.1"},
		{name: "given without a model", rt: engine.Runtime{}, given: "gpt-5.1", want: "gpt-5.1"},
		{name: "given loses its own prefix", anthropic: true, given: "anthropic/claude-x", want: "claude-x"},
		{name: "given keeps another prefix", anthropic: true, given: "vendor/claude-x", want: "vendor/claude-x"},
		{name: "given provider only", anthropic: true, rt: sonnet, given: "anthropic/", wantErr: provider.ErrNoModel},
		{name: "given provider only, openai", given: "codex/", wantErr: provider.ErrNoModel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var model string
			var err error
			if tt.anthropic {
				var b *provider.AnthropicRequest
				if b, err = provider.Anthropic(turn(), tt.rt, provider.Model(tt.given)); err == nil {
					model = b.Model
				}
			} else {
				var b *provider.OpenAIRequest
				if b, err = provider.OpenAI(turn(), tt.rt, provider.Model(tt.given)); err == nil {
					model = b.Model
				}
			}
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.NotContains(t, err.Error(), "\n")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, model)
		})
	}
}

// Every refusal names its kind for errors.Is and says why in one line.
func TestRefusals(t *testing.T) {
	withTool := func(tool engine.Tool) *engine.Result {
		res := turn()
		res.Tools = append(res.Tools, tool)
		return res
	}
	withLayers := func(harness string, names ...string) *engine.Result {
		res := turn()
		res.Harness, res.Layers = harness, nil
		for _, n := range names {
			res.Layers = append(res.Layers, engine.Layer{Name: n, Stable: "text of " + n})
		}
		return res
	}
	both := []string{"anthropic", "openai"}
	tests := []struct {
		name    string
		apis    []string
		res     *engine.Result
		opts    []provider.Option
		wantErr error
		wantMsg string
	}{
		{name: "no result", apis: both, wantErr: provider.ErrOption, wantMsg: "request: no result to build it from"},
		{name: "zero max tokens", apis: []string{"anthropic"}, res: turn(), opts: []provider.Option{provider.MaxTokens(0)}, wantErr: provider.ErrOption, wantMsg: "max tokens 0: want at least 1"},
		{name: "negative max tokens", apis: both, res: turn(), opts: []provider.Option{provider.MaxTokens(-5)}, wantErr: provider.ErrOption, wantMsg: "max tokens -5"},
		{name: "model with a line break", apis: both, res: turn(), opts: []provider.Option{provider.Model("claude\nx")}, wantErr: provider.ErrOption, wantMsg: `model "claude\nx" holds U+000A`},
		{name: "model with a control character", apis: both, res: turn(), opts: []provider.Option{provider.Model("gpt\x1b[2J")}, wantErr: provider.ErrOption, wantMsg: "holds U+001B"},
		{name: "max output tokens under 16", apis: []string{"openai"}, res: turn(), opts: []provider.Option{provider.MaxTokens(15)}, wantErr: provider.ErrOption, wantMsg: "max tokens 15: want at least 16"},
		{name: "nameless tool", apis: both, res: withTool(engine.Tool{Description: "x"}), wantErr: provider.ErrTool, wantMsg: `tools[2] "": a tool needs a name`},
		{name: "space in a name", apis: both, res: withTool(engine.Tool{Name: " exec"}), wantErr: provider.ErrTool, wantMsg: `tools[2] " exec": name holds ' '`},
		{name: "long name", apis: both, res: withTool(engine.Tool{Name: strings.Repeat("x", 65)}), wantErr: provider.ErrTool, wantMsg: "name is 65 bytes long, over 64"},
		{name: "string schema", apis: both, res: withTool(engine.Tool{Name: "t", Schema: engine.Schema(`{"type": "string"}`)}), wantErr: provider.ErrTool, wantMsg: `tools[2] "t": schema type is "string"; a tool's parameters must be a schema of "type": "object"`},
		{name: "schema without a type", apis: both, res: withTool(engine.Tool{Name: "t", Schema: engine.Schema(`{"properties": {}}`)}), wantErr: provider.ErrTool, wantMsg: "schema type is missing"},
		{name: "schema that is not JSON", apis: both, res: withTool(engine.Tool{Name: "t", Schema: engine.Schema(`{"type":`)}), wantErr: provider.ErrTool, wantMsg: `tools[2] "t": schema is not JSON: 1:9: unexpected end of JSON input`},
		{name: "schema that is not an object", apis: both, res: withTool(engine.Tool{Name: "t", Schema: engine.Schema(`[1]`)}), wantErr: provider.ErrTool, wantMsg: `tools[2] "t": schema is [1], not a JSON object`},
		{name: "codex", apis: []string{"anthropic"}, res: withLayers("codex", "developer", "collaboration"), wantErr: provider.ErrHarness,
			wantMsg: `anthropic request: harness "codex" has layers developer, collaboration; a Messages request carries one system prompt, so it takes a harness whose only layer is "system" (such as embedded); the codex harness's developer and collaboration layers are for the Codex runtime, which sends its own instructions and AGENTS.md with them`},
		{name: "codex", apis: []string{"openai"}, res: withLayers("codex", "developer", "collaboration"), wantErr: provider.ErrHarness,
			wantMsg: `openai request: harness "codex" has layers developer, collaboration; a Responses request carries one system prompt, as instructions, so it takes a harness whose only layer is "system" (such as embedded); the codex harness's developer and collaboration layers are for the Codex runtime, which sends its own instructions and AGENTS.md with them`},
		{name: "extra layer", apis: both, res: withLayers("mine", "system", "notes"), wantErr: provider.ErrHarness, wantMsg: `harness "mine" has layers system, notes; a `},
		{name: "two system layers", apis: both, res: withLayers("mine", "system", "system"), wantErr: provider.ErrHarness, wantMsg: `harness "mine" has layers system, system;`},
		{name: "developer layer only", apis: both, res: withLayers("mine", "developer"), wantErr: provider.ErrHarness, wantMsg: `harness "mine" has layers developer; a `},
		{name: "no layers", apis: both, res: withLayers("empty"), wantErr: provider.ErrHarness, wantMsg: `harness "empty" has layers (none)`},
	}
	for _, tt := range tests {
		for _, api := range tt.apis {
			t.Run(api+"/"+tt.name, func(t *testing.T) {
				var err error
				if api == "anthropic" {
					_, err = provider.Anthropic(tt.res, sonnet, tt.opts...)
				} else {
					_, err = provider.OpenAI(tt.res, engine.Runtime{Model: "gpt-5"}, tt.opts...)
				}
				require.Error(t, err)
				if tt.wantErr != nil {
					assert.ErrorIs(t, err, tt.wantErr)
				}
				assert.Contains(t, err.Error(), tt.wantMsg)
				assert.True(t, strings.HasPrefix(err.Error(), api+" request: "), err.Error())
				assert.NotContains(t, err.Error(), "\n")
				i, ok := provider.RefusedTool(err)
				assert.Equal(t, tt.wantErr == provider.ErrTool, ok, "RefusedTool")
				if ok {
					assert.Equal(t, 2, i, "withTool appends the tool as tools[2]")
				}
			})
		}
	}
}

var cacheKeyPattern = regexp.MustCompile(`^sysprompt-[0-9a-f]{32}$`)

func openAIKey(t *testing.T, res *engine.Result) string {
	t.Helper()
	body, err := provider.OpenAI(res, engine.Runtime{Model: "gpt-5"})
	require.NoError(t, err)
	assert.Regexp(t, cacheKeyPattern, body.PromptCacheKey)
	assert.LessOrEqual(t, len(body.PromptCacheKey), 64, "OpenAI's limit")
	return body.PromptCacheKey
}

// The key follows the stable prefix (layers and tools) and nothing else.
func TestCacheKey(t *testing.T) {
	base := openAIKey(t, turn())
	same := []func(*engine.Result){
		func(r *engine.Result) { r.Layers[0].Dynamic = "It is Tuesday." },
		func(r *engine.Result) { r.Layers[0].Dynamic = "" },
		func(r *engine.Result) { r.Mode = engine.ModeMinimal },
	}
	for i, edit := range same {
		res := turn()
		edit(res)
		assert.Equal(t, base, openAIKey(t, res), "edit %d keeps the stable prefix", i)
	}
	differ := map[string]func(*engine.Result){
		"stable text": func(r *engine.Result) { r.Layers[0].Stable = "You are Wren.\n\nUse <tools>." },
		"tool schema": func(r *engine.Result) { r.Tools[1].Schema = engine.Schema(`{"type": "object", "required": []}`) },
		"tool order":  func(r *engine.Result) { r.Tools[0], r.Tools[1] = r.Tools[1], r.Tools[0] },
		"no tools":    func(r *engine.Result) { r.Tools = nil },
		"description": func(r *engine.Result) { r.Tools[0].Description = "Read." },
	}
	seen := map[string]string{base: "base"}
	for name, edit := range differ {
		res := turn()
		edit(res)
		key := openAIKey(t, res)
		assert.NotContains(t, seen, key, "%s changes the key", name)
		seen[key] = name
	}
}

// exampleTurn renders a shipped example request with the built-in pack
// over the example workspace, in memory at /ws.
func exampleTurn(t testing.TB, request string) (*engine.Result, engine.Request) {
	t.Helper()
	src, err := os.ReadFile("../../examples/requests/" + request)
	require.NoError(t, err)
	req, err := engine.ParseRequest(request, src)
	require.NoError(t, err)
	req.Workspace.Path = "/ws"
	ws := packtest.Workspace(t, nil)
	packtest.CopyDir(t, os.DirFS("../../examples/workspace"), ws, "/ws")
	return packtest.Render(t, sysprompt.Pack, req, engine.WithFS(ws)), req
}

// On the built-in pack the bodies carry the rendered layer exactly, and
// every request tool in order.
func TestBodiesOfTheExampleTurn(t *testing.T) {
	res, req := exampleTurn(t, "direct.toml")
	require.Len(t, res.Layers, 1)
	layer := res.Layers[0]

	a, err := provider.Anthropic(res, req.Runtime)
	require.NoError(t, err)
	require.Len(t, a.System, 2)
	assert.Equal(t, layer.Stable, a.System[0].Text)
	assert.Equal(t, &provider.CacheControl{Type: "ephemeral"}, a.System[0].CacheControl)
	assert.Equal(t, layer.Dynamic, a.System[1].Text)
	assert.Nil(t, a.System[1].CacheControl)
	require.Len(t, a.Tools, len(req.Tools))
	for i, tool := range req.Tools {
		assert.Equal(t, tool.Name, a.Tools[i].Name)
		want, err := json.Marshal(tool.Schema)
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(a.Tools[i].InputSchema), tool.Name)
	}

	o, err := provider.OpenAI(res, req.Runtime, provider.Model("gpt-5.1"))
	require.NoError(t, err)
	assert.Equal(t, strings.TrimSuffix(layer.TextWithoutBoundary(), "\n"), o.Instructions)
	assert.NotContains(t, o.Instructions, res.Boundary)
	assert.Empty(t, o.Input)
	require.Len(t, o.Tools, len(req.Tools))
	for i, tool := range req.Tools {
		assert.Equal(t, tool.Name, o.Tools[i].Name)
		assert.JSONEq(t, string(a.Tools[i].InputSchema), string(o.Tools[i].Parameters))
	}
}

// The codex harness's layers go with Codex's own instructions and
// AGENTS.md, which only the Codex runtime sends: both bodies refuse the
// shipped codex example, whatever the model, and the "Codex" harness
// hint appears only for that harness.
func TestCodexRefused(t *testing.T) {
	res, req := exampleTurn(t, "codex.toml")
	require.Len(t, res.Layers, 2)
	_, err := provider.OpenAI(res, req.Runtime)
	require.ErrorIs(t, err, provider.ErrHarness)
	assert.Contains(t, err.Error(), "AGENTS.md")
	_, err = provider.Anthropic(res, req.Runtime, provider.Model("claude-sonnet-4-5"))
	require.ErrorIs(t, err, provider.ErrHarness, "no model makes a codex result fit a Messages request")

	res.Harness = "mine"
	_, err = provider.OpenAI(res, req.Runtime)
	require.ErrorIs(t, err, provider.ErrHarness)
	assert.NotContains(t, err.Error(), "Codex")
}

// An empty tier gets no block (the API refuses empty text); an empty
// system layer gets no instructions.
func TestEmptyParts(t *testing.T) {
	res := turn()
	res.Layers[0].Dynamic = ""
	a, err := provider.Anthropic(res, sonnet)
	require.NoError(t, err)
	require.Len(t, a.System, 1)
	assert.NotNil(t, a.System[0].CacheControl)

	res.Layers[0].Stable = ""
	a, err = provider.Anthropic(res, sonnet)
	require.NoError(t, err)
	assert.Empty(t, a.System)
	assert.NotContains(t, marshal(t, a), `"system"`)

	o, err := provider.OpenAI(res, engine.Runtime{Model: "gpt-5"})
	require.NoError(t, err)
	assert.NotContains(t, marshal(t, o), `"instructions"`)
	assert.Equal(t, []any{}, o.Input)
}

// The body does not share the caller's schema bytes: it holds their
// encoding, so editing the request's tools later cannot change it.
func TestBodyHoldsEncodedSchemas(t *testing.T) {
	res := turn()
	a, err := provider.Anthropic(res, sonnet)
	require.NoError(t, err)
	before := marshal(t, a)
	s := res.Tools[0].Schema
	copy(s[bytes.Index(s, []byte(`"object"`)):], `"string"`)
	assert.Equal(t, before, marshal(t, a))
}

func TestMarshalRefusesWhatJSONCannotHold(t *testing.T) {
	a, err := provider.Anthropic(turn(), sonnet, provider.Messages(provider.Message{Role: "user", Content: math.NaN()}))
	require.NoError(t, err, "content is the caller's")
	_, err = provider.MarshalIndent(a)
	var unsupported *json.UnsupportedValueError
	assert.True(t, errors.As(err, &unsupported), "%v", err)
}

// Marshal is MarshalIndent's text without the indentation: the same
// fields and bytes, "<" and "&" unescaped, nothing after the brace.
func TestMarshalIsCompact(t *testing.T) {
	body, err := provider.Anthropic(turn(), sonnet)
	require.NoError(t, err)
	compact, err := provider.Marshal(body)
	require.NoError(t, err)
	indented, err := provider.MarshalIndent(body)
	require.NoError(t, err)
	var want bytes.Buffer
	require.NoError(t, json.Compact(&want, indented))
	assert.Equal(t, want.String(), string(compact))
	assert.Contains(t, string(compact), "Use <tools> & files.")
	assert.True(t, strings.HasSuffix(string(compact), "}"))
}
