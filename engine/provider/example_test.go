package provider_test

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/afero"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/provider"
	"github.com/sysprompt/sysprompt/vfs"
)

// renderSmallPack renders one turn with a two-section pack laid over the
// built-in one (as -pack DIR does), so the whole body fits on a page.
func renderSmallPack() (*engine.Result, engine.Request, error) {
	mine := afero.NewMemMapFs()
	files := map[string]string{
		"sections/manifest.toml": `identity_section = "identity"
boundary = "<!-- SYSPROMPT_CACHE_BOUNDARY -->"

[[layer]]
name = "system"
sections = ["identity", "today"]
`,
		"sections/identity.md.tmpl": "+++\nmodes = [\"full\", \"minimal\", \"none\"]\ntier = \"stable\"\n+++\nYou are Wren, Ana's assistant.\n",
		"sections/today.md.tmpl":    "+++\nmodes = [\"full\"]\ntier = \"dynamic\"\n+++\nNow: {{ .Date }}\n",
	}
	for name, text := range files {
		if err := afero.WriteFile(mine, name, []byte(text), 0o644); err != nil {
			return nil, engine.Request{}, err
		}
	}
	e, err := engine.New(vfs.Pack(sysprompt.Pack, mine))
	if err != nil {
		return nil, engine.Request{}, err
	}
	req := engine.Request{
		Date:    "2026-11-30T09:15:00Z",
		Runtime: engine.Runtime{Provider: "anthropic", Model: "anthropic/claude-sonnet-4-5"},
		Tools: []engine.Tool{{Name: "read", Description: "Read a file.", Schema: engine.Schema(
			`{"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}`,
		)}},
	}
	res, err := e.Render(context.Background(), req)
	return res, req, err
}

// An Anthropic Messages body: the stable text in a block marked for the
// prompt cache, the per-turn text after it, and the conversation (here
// one message) last.
func ExampleAnthropic() {
	res, req, err := renderSmallPack()
	if err != nil {
		fmt.Println(err)
		return
	}
	body, err := provider.Anthropic(res, req.Runtime, provider.MaxTokens(1024),
		provider.Messages(provider.Message{Role: "user", Content: "What is on today?"}))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := provider.MarshalIndent(body)
	if err != nil {
		fmt.Println(err)
		return
	}
	os.Stdout.Write(out)
	// Output:
	// {
	//   "model": "claude-sonnet-4-5",
	//   "max_tokens": 1024,
	//   "system": [
	//     {
	//       "type": "text",
	//       "text": "You are Wren, Ana's assistant.",
	//       "cache_control": {
	//         "type": "ephemeral"
	//       }
	//     },
	//     {
	//       "type": "text",
	//       "text": "Now: 2026-11-30T09:15:00Z"
	//     }
	//   ],
	//   "tools": [
	//     {
	//       "name": "read",
	//       "description": "Read a file.",
	//       "input_schema": {
	//         "properties": {
	//           "path": {
	//             "type": "string"
	//           }
	//         },
	//         "required": [
	//           "path"
	//         ],
	//         "type": "object"
	//       }
	//     }
	//   ],
	//   "messages": [
	//     {
	//       "role": "user",
	//       "content": "What is on today?"
	//     }
	//   ]
	// }
}

// An OpenAI Responses body for the same turn: the prompt is the
// instructions, and prompt_cache_key stays the same on every turn that
// keeps the stable prefix. The request names an Anthropic model, so the
// Model option picks the OpenAI one (it changes the body, not the
// prompt).
func ExampleOpenAI() {
	res, req, err := renderSmallPack()
	if err != nil {
		fmt.Println(err)
		return
	}
	body, err := provider.OpenAI(res, req.Runtime, provider.Model("gpt-5.1"),
		provider.Messages(provider.Message{Role: "user", Content: "What is on today?"}))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := provider.MarshalIndent(body)
	if err != nil {
		fmt.Println(err)
		return
	}
	os.Stdout.Write(out)
	// Output:
	// {
	//   "model": "gpt-5.1",
	//   "instructions": "You are Wren, Ana's assistant.\n\nNow: 2026-11-30T09:15:00Z",
	//   "input": [
	//     {
	//       "role": "user",
	//       "content": "What is on today?"
	//     }
	//   ],
	//   "tools": [
	//     {
	//       "type": "function",
	//       "name": "read",
	//       "description": "Read a file.",
	//       "parameters": {
	//         "properties": {
	//           "path": {
	//             "type": "string"
	//           }
	//         },
	//         "required": [
	//           "path"
	//         ],
	//         "type": "object"
	//       },
	//       "strict": false
	//     }
	//   ],
	//   "prompt_cache_key": "sysprompt-07324635cbc8a64937681ef5e7878ced"
	// }
}

// Without a model of the right provider the body is refused, with the
// reason; errors.Is tells the kinds apart.
func ExampleOpenAI_refused() {
	res, req, err := renderSmallPack()
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = provider.OpenAI(res, req.Runtime)
	fmt.Println(err)
	// Output:
	// openai request: runtime.provider is "anthropic", not openai or codex
}
