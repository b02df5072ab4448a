// Package provider turns a rendered prompt into the request body a model
// provider's API takes: an Anthropic Messages request (Anthropic) or an
// OpenAI Responses request (OpenAI), with the model, the prompt split at
// the cache boundary, and the request's tools with their JSON schemas.
// Like engine/report it is a view over an engine.Result: it reads the
// result, the turn's runtime facts and the caller's options, and nothing
// else.
//
// The bodies are the API's own field names and nothing more, so they can
// be sent as they are, after the caller adds the conversation. A result
// a provider's API cannot carry faithfully is refused with an error that
// says why (errors.Is finds ErrNoModel, ErrOtherProvider, ErrHarness,
// ErrTool or ErrOption), never sent in a lossy shape.
package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/internal/echo"
)

// The kinds of refusal; every error of Anthropic and OpenAI wraps one.
var (
	// ErrNoModel: neither the caller nor runtime.model names a model;
	// the Model option gives one.
	ErrNoModel = errors.New("no model")
	// ErrOtherProvider: runtime.provider or the runtime.model's
	// "provider/" prefix names a provider this API does not serve; the
	// Model option overrides both.
	ErrOtherProvider = errors.New("model of another provider")
	// ErrHarness: the harness has a layer this API has no place for.
	ErrHarness = errors.New("harness not carried by this API")
	// ErrTool: a tool's name or schema is one the API refuses.
	ErrTool = errors.New("tool not accepted by this API")
	// ErrOption: an argument is out of range: a nil result, or a max
	// tokens value the API refuses.
	ErrOption = errors.New("bad option")
)

// DefaultMaxTokens is the Anthropic max_tokens when the caller passes
// none: room for a long answer or a large file written through a tool,
// and within the output limit of every Claude 4 model.
const DefaultMaxTokens = 8192

// MinOpenAIMaxTokens is the least max_output_tokens the Responses API
// accepts; Anthropic's max_tokens takes any positive value.
const MinOpenAIMaxTokens = 16

// Message is one turn of the conversation, {"role", "content"}, a shape
// both APIs accept: Content is a string or the API's own list of content
// blocks, encoded as it is.
type Message struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

// Option changes how a body is built.
type Option func(*options)

type options struct {
	model        string
	maxTokens    int
	maxTokensSet bool
	messages     []Message
}

// Model names the model, overriding runtime.model and its provider
// checks; a leading "provider/" naming the body's own provider
// ("anthropic/", "openai/", "codex/") is dropped, and such a prefix alone
// is refused with ErrNoModel, as in runtime.model, and a name holding a
// line break or control character with ErrOption. An empty name keeps
// runtime.model.
func Model(name string) Option { return func(o *options) { o.model = name } }

// MaxTokens sets Anthropic's max_tokens (default DefaultMaxTokens; at
// least 1) and OpenAI's max_output_tokens (left out by default; at least
// MinOpenAIMaxTokens).
func MaxTokens(n int) Option {
	return func(o *options) { o.maxTokens, o.maxTokensSet = n, true }
}

// Messages appends conversation turns after what the prompt puts there.
// Without it an Anthropic body has "messages": [], which the caller fills.
func Messages(msgs ...Message) Option {
	return func(o *options) { o.messages = append(o.messages, msgs...) }
}

// api is one provider API: its name in errors, the runtime.provider
// values (and model prefixes) that reach it, the least max tokens it
// takes and where it puts the system prompt.
type api struct {
	name         string
	providers    []string
	minMaxTokens int
	promptField  string
}

var (
	anthropicAPI = api{name: "anthropic", providers: []string{"anthropic"}, minMaxTokens: 1,
		promptField: "a Messages request carries one system prompt"}
	// codex is how requests name OpenAI's Codex provider (the gpt5
	// overlay in templates/overlays matches the same two).
	openaiAPI = api{name: "openai", providers: []string{"openai", "codex"}, minMaxTokens: MinOpenAIMaxTokens,
		promptField: "a Responses request carries one system prompt, as instructions"}
)

func (a api) serves(provider string) bool {
	for _, p := range a.providers {
		if strings.EqualFold(p, provider) {
			return true
		}
	}
	return false
}

// refusal is an error of this package: its message is written for
// people, its kind is for errors.Is.
type refusal struct {
	kind error
	msg  string
	tool int // 1 + the index of the tool refused, 0 for none
}

// RefusedTool returns the index, in the result's tools, of the tool an
// ErrTool refusal is about, so a caller can point at where the request
// defines it.
func RefusedTool(err error) (int, bool) {
	var r *refusal
	if errors.As(err, &r) && r.tool > 0 {
		return r.tool - 1, true
	}
	return 0, false
}

func (r *refusal) Error() string { return r.msg }
func (r *refusal) Unwrap() error { return r.kind }

// errorf is a refusal of this API's request, of the given kind.
func (a api) errorf(kind error, format string, args ...any) error {
	return &refusal{kind: kind, msg: a.name + " request: " + fmt.Sprintf(format, args...)}
}

// build applies opts and checks what every body needs: a result, and a
// max-tokens value the API takes and a one-line model, when given.
func (a api) build(res *engine.Result, opts []Option) (options, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if res == nil {
		return o, a.errorf(ErrOption, "no result to build it from")
	}
	if o.maxTokensSet && o.maxTokens < a.minMaxTokens {
		return o, a.errorf(ErrOption, "max tokens %d: want at least %d", o.maxTokens, a.minMaxTokens)
	}
	// runtime.model is held to one line by the request's checks; a model
	// given here is held to the same.
	if i := strings.IndexFunc(o.model, echo.BreaksLine); i >= 0 {
		return o, a.errorf(ErrOption, "model %s holds %U; a model id is one line of text", echo.Quote(o.model), []rune(o.model[i:])[0])
	}
	return o, nil
}

// systemLayer is the result's one layer, which must be named "system":
// both bodies have one place for the prompt, and a layer moved to
// another place would change what it means to the model.
func (a api) systemLayer(res *engine.Result) (engine.Layer, error) {
	if len(res.Layers) == 1 && res.Layers[0].Name == "system" {
		return res.Layers[0], nil
	}
	why := ""
	if res.Harness == "codex" {
		why = "; the codex harness's developer and collaboration layers are for the Codex runtime, which sends its own instructions and AGENTS.md with them"
	}
	return engine.Layer{}, a.errorf(ErrHarness, "harness %q has layers %s; %s, so it takes a harness whose only layer is \"system\" (such as embedded)%s",
		res.Harness, layerNames(res.Layers), a.promptField, why)
}

// model picks the model: the caller's, or runtime.model when it names
// this API's provider (or none), without its "provider/" prefix.
func (a api) model(rt engine.Runtime, given string) (string, error) {
	if given != "" {
		prefix, rest, ok := strings.Cut(given, "/")
		switch {
		case !ok || !a.serves(prefix):
			return given, nil
		case rest == "":
			return "", a.errorf(ErrNoModel, "no model: %s names a provider only", echo.Quote(given))
		}
		return rest, nil
	}
	if rt.Model == "" {
		return "", a.errorf(ErrNoModel, "no model: the request's runtime.model is empty")
	}
	if rt.Provider != "" && !a.serves(rt.Provider) {
		return "", a.errorf(ErrOtherProvider, "runtime.provider is %s, not %s", echo.Quote(rt.Provider), strings.Join(a.providers, " or "))
	}
	prefix, rest, ok := strings.Cut(rt.Model, "/")
	if !ok {
		return rt.Model, nil
	}
	if !a.serves(prefix) {
		return "", a.errorf(ErrOtherProvider, "runtime.model %s names provider %s, not %s", echo.Quote(rt.Model), echo.Quote(prefix), strings.Join(a.providers, " or "))
	}
	if rest == "" {
		return "", a.errorf(ErrNoModel, "no model: runtime.model %s names a provider only", echo.Quote(rt.Model))
	}
	return rest, nil
}

// emptyObjectSchema is the schema of a tool that takes no arguments. Both
// APIs require an object schema for every tool (Anthropic's input_schema
// is a required field; OpenAI refuses parameters whose type is not
// "object"), so a request tool without one gets this. Each body gets a
// copy of its own, which it may change.
const emptyObjectSchema = `{"type":"object","properties":{}}`

// maxToolName is the longest tool name both APIs accept.
const maxToolName = 64

// tool is a request tool checked for both APIs, its schema encoded.
type tool struct {
	name, description string
	schema            json.RawMessage
}

// tools checks and encodes the request's tools, in the request's order.
func (a api) tools(list []engine.Tool) ([]tool, error) {
	out := make([]tool, 0, len(list))
	for i, t := range list {
		err := checkToolName(t.Name)
		var schema json.RawMessage
		if err == nil {
			schema, err = encodeSchema(t.Schema)
		}
		if err != nil {
			return nil, &refusal{kind: ErrTool, tool: i + 1, msg: fmt.Sprintf("%s request: tools[%d] %s: %v", a.name, i, echo.Quote(t.Name), err)}
		}
		out = append(out, tool{name: t.Name, description: t.Description, schema: schema})
	}
	return out, nil
}

// checkToolName enforces the name rule both APIs document: 1 to 64 of
// a-z, A-Z, 0-9, "_" and "-". The model calls the tool by this name, so
// it is checked as written, not trimmed.
func checkToolName(name string) error {
	if name == "" {
		return errors.New("a tool needs a name")
	}
	if len(name) > maxToolName {
		return fmt.Errorf("name is %d bytes long, over %d", len(name), maxToolName)
	}
	for _, c := range []byte(name) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
		if !ok {
			return fmt.Errorf("name holds %q; only letters, digits, _ and - are allowed", c)
		}
	}
	return nil
}

// encodeSchema encodes a tool's JSON schema, keys sorted and without
// HTML escaping, after checking it is an object schema.
func encodeSchema(s engine.Schema) (json.RawMessage, error) {
	v, err := s.Value()
	if err != nil {
		return nil, err
	}
	schema, ok := v.(map[string]any)
	switch {
	case v == nil || ok && len(schema) == 0:
		return json.RawMessage(emptyObjectSchema), nil
	case !ok:
		return nil, fmt.Errorf("schema is %s, not a JSON object", describeType(v))
	}
	if typ, _ := schema["type"].(string); typ != "object" {
		return nil, fmt.Errorf(`schema type is %s; a tool's parameters must be a schema of "type": "object"`, describeType(schema["type"]))
	}
	b, err := encode(schema, "")
	if err != nil {
		return nil, fmt.Errorf("schema cannot be encoded as JSON: %v", err)
	}
	return b, nil
}

func describeType(v any) string {
	if v == nil {
		return "missing"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%T", v)
	}
	return string(b)
}

// Marshal encodes a body for the wire: compact, map keys sorted, "<",
// ">" and "&" as they are (json.Marshal would escape them, six bytes
// each, in every prompt that shows a placeholder).
func Marshal(body any) ([]byte, error) { return encode(body, "") }

// MarshalIndent encodes a body as the CLI prints it: Marshal's text
// indented by two spaces, with one newline at the end. The indentation
// costs about three times the encoding itself.
func MarshalIndent(body any) ([]byte, error) { return encode(body, "  ") }

func encode(v any, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if indent == "" {
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
	}
	return buf.Bytes(), nil
}

// joinTiers is a layer's text without the boundary marker and without the
// final newline: its stable and dynamic parts, a blank line between.
func joinTiers(l engine.Layer) string {
	switch {
	case l.Stable == "":
		return l.Dynamic
	case l.Dynamic == "":
		return l.Stable
	}
	return l.Stable + "\n\n" + l.Dynamic
}

func layerNames(layers []engine.Layer) string {
	if len(layers) == 0 {
		return "(none)"
	}
	names := make([]string, len(layers))
	for i, l := range layers {
		names[i] = l.Name
	}
	return strings.Join(names, ", ")
}
