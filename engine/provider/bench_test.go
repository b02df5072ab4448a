package provider_test

import (
	"testing"

	"github.com/sysprompt/sysprompt/engine/provider"
)

// What a body adds to a turn of the README example (14 tools): building
// it and encoding it for the wire.
func BenchmarkBodies(b *testing.B) {
	res, req := exampleTurn(b, "direct.toml")
	b.Run("anthropic", func(b *testing.B) {
		for b.Loop() {
			body, err := provider.Anthropic(res, req.Runtime)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := provider.Marshal(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("openai", func(b *testing.B) {
		for b.Loop() {
			body, err := provider.OpenAI(res, req.Runtime, provider.Model("gpt-5.1"))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := provider.Marshal(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}
