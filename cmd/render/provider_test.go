package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openAIBody renders an example request as an OpenAI body.
func openAIBody(t *testing.T, request string, extra ...string) (key string, instructions string) {
	t.Helper()
	args := append([]string{"-workspace", "../../examples/workspace", "-config", "../../examples/agents.toml",
		"-request", "../../examples/requests/" + request, "-format", "openai", "-model", "gpt-5.1"}, extra...)
	res := runCLI("", args...)
	require.Equal(t, 0, res.code, res.stderr)
	var doc struct {
		Instructions   string `json:"instructions"`
		PromptCacheKey string `json:"prompt_cache_key"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &doc))
	return doc.PromptCacheKey, doc.Instructions
}

// The prompt_cache_key holds across turns of a session (group-next.toml
// changes only per-turn facts of group.toml) and changes with the
// stable prefix.
func TestPromptCacheKeyFollowsTheStablePrefix(t *testing.T) {
	group, groupText := openAIBody(t, "group.toml")
	next, nextText := openAIBody(t, "group-next.toml")
	require.NotEqual(t, groupText, nextText, "the turns differ")
	assert.Equal(t, group, next, "a later turn of the session keeps the key")

	direct, _ := openAIBody(t, "direct.toml")
	assert.NotEqual(t, group, direct, "a direct session has a prefix of its own")
	minimal, _ := openAIBody(t, "group.toml", "-mode", "minimal")
	assert.NotEqual(t, group, minimal)
}

// Numbers in a JSON request's tool schema reach both bodies as written:
// decoded as float64, 9007199254740993 came out as 9007199254740992,
// 1.5e300 as 1.5e+300 and -0.0 as -0.
func TestToolSchemaNumbersExact(t *testing.T) {
	dir := writeFiles(t, map[string]string{"request.json": `{"tools": [{"name": "pick", "schema":
		{"type": "object", "properties": {"n": {"enum": [9007199254740993, 1.5e300, -0.0, 0.10]}}}}]}`})
	want := []json.Number{"9007199254740993", "1.5e300", "-0.0", "0.10"}
	for format, path := range map[string]string{"anthropic": "input_schema", "openai": "parameters"} {
		res := runCLI("", "-request", dir+"/request.json", "-format", format, "-model", "m")
		require.Equal(t, 0, res.code, res.stderr)
		var body struct{ Tools []map[string]json.RawMessage }
		require.NoError(t, json.Unmarshal([]byte(res.stdout), &body))
		require.Len(t, body.Tools, 1)
		var schema struct { // json.Number keeps the text as it is written
			Properties struct {
				N struct{ Enum []json.Number }
			}
		}
		require.NoError(t, json.Unmarshal(body.Tools[0][path], &schema))
		assert.Equal(t, want, schema.Properties.N.Enum, format)
	}
}

// -message refuses what the API would refuse or what JSON cannot carry:
// Anthropic answers 400 to a whitespace-only text block, and a byte that
// is not UTF-8 would reach the body as U+FFFD, another message.
func TestMessageFlagRefusesUnsendableText(t *testing.T) {
	for text, why := range map[string]string{" \n\t ": "whitespace only", "caf\xe9": "not UTF-8"} {
		for _, format := range []string{"anthropic", "openai"} {
			res := runCLI("", "-format", format, "-model", "m", "-message", text)
			assert.Equal(t, 2, res.code, "%s %q: %s", format, text, res.stdout)
			assert.Contains(t, res.stderr, why, format)
		}
	}
}
