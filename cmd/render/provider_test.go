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
