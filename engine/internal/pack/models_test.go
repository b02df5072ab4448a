package pack_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sysprompt "github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine/internal/pack"
	"github.com/sysprompt/sysprompt/internal/packtest"
)

// The built-in model table gives each model id, as runtimes spell it
// (with a provider prefix, a snapshot date, a Bedrock form), the vendor's
// window and maximum output, the more specific entries winning.
func TestBuiltinModelWindows(t *testing.T) {
	p, errs := pack.Load(sysprompt.Pack)
	require.Empty(t, errs)
	for model, want := range map[string][2]int{
		"anthropic/claude-opus-5-5":                 {1_000_000, 128_000},
		"claude-fable-5-1":                          {1_000_000, 128_000},
		"anthropic/claude-opus-4-6":                 {1_000_000, 128_000},
		"claude-sonnet-4-6":                         {1_000_000, 128_000},
		"claude-opus-4-5-20251101":                  {200_000, 64_000},
		"claude-opus-4-1-20250805":                  {200_000, 32_000},
		"anthropic.claude-sonnet-4-5-20250929-v1:0": {200_000, 64_000},
		"anthropic/claude-haiku-4-5":                {200_000, 64_000},
		"claude-3-7-sonnet-20250219":                {200_000, 8_192},
		"openai/gpt-5.5":                            {1_050_000, 128_000},
		"gpt-5.4-mini":                              {1_050_000, 128_000},
		"openai/gpt-5":                              {400_000, 128_000},
		"gpt-5.1-codex":                             {400_000, 128_000},
		"gpt-4.1":                                   {1_047_576, 32_768},
		"openai/gpt-4o-mini":                        {128_000, 16_384},
		"o4-mini":                                   {200_000, 100_000},
	} {
		m, ok := p.Window(model)
		if assert.True(t, ok, model) {
			assert.Equal(t, want, [2]int{m.ContextWindow, m.OutputReserve}, model)
		}
	}
	for _, model := range []string{"", "gemini-2.5-pro", "my-claude-clone", "gpt-50"} {
		_, ok := p.Window(model)
		assert.False(t, ok, "%q has no entry", model)
	}
}

// The table's patterns are checked when the pack loads, though compiled
// only when a window is asked for.
func TestModelPatternCheckedAtLoad(t *testing.T) {
	fsys := packtest.PackWith(t, sysprompt.Pack, map[string]string{"templates/models.toml": "[[model]]\nmatch = 'x'\n" +
		"context_window = 10\noutput_reserve = 1\n\n[[model]]\nmatch = 'claude-(opus'\ncontext_window = 10\noutput_reserve = 1\n"})
	_, errs := pack.Load(fsys)
	require.Len(t, errs, 1)
	assert.Equal(t, "templates/models.toml:6:1: [[model]] entry 2: bad match pattern \"claude-(opus\": error parsing regexp: missing closing ): `claude-(opus`", errs[0].Error())
}
