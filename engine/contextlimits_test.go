package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/config"
)

// contextLimits budget runtime excerpts: they reach the resolved settings
// but never the prompt, and never cap it; promptLimits.maxChars does.
func TestContextLimitsNeverChangeThePrompt(t *testing.T) {
	req := directRequest()
	plain := render(t, packWith(t, nil), req)
	cfg, err := config.Parse("c.toml", []byte("[agents.defaults.contextLimits]\nmemoryGetMaxChars = 10\ntoolResultMaxChars = 20\n"))
	require.NoError(t, err)
	e, err := engine.New(packWith(t, nil), engine.WithConfig(cfg))
	require.NoError(t, err)
	res, err := e.Render(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, plain.Layers, res.Layers, "tiny budgets neither change nor cap the prompt")
	s, err := e.Resolve(req)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"memoryGetMaxChars": 10, "toolResultMaxChars": 20}, s.ContextLimits)

	capped, err := config.Parse("c.toml", []byte("[agents.defaults.promptLimits]\nmaxChars = 10\n"))
	require.NoError(t, err)
	e, err = engine.New(packWith(t, nil), engine.WithConfig(capped))
	require.NoError(t, err)
	_, err = e.Render(context.Background(), req)
	require.ErrorContains(t, err, "over promptLimits.maxChars = 10")
}
