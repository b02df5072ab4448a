package engine_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/afero"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine"
)

// The per-turn loop of an agent runtime: compile the pack once, then
// render every turn with the same engine. Turns that change only
// per-turn facts keep the stable prefix byte for byte, so the provider's
// prompt cache keeps it; editing a workspace file changes it on the next
// turn. The workspace here is in memory; on disk it would be
// engine.WithFS(vfs.OS()).
func Example() {
	ws := afero.NewMemMapFs()
	_ = afero.WriteFile(ws, "/home/ana/agent/SOUL.md", []byte("Calm and exact.\n"), 0o644)
	_ = afero.WriteFile(ws, "/home/ana/agent/USER.md", []byte("Ana, in Lisbon.\n"), 0o644)

	e, err := engine.New(sysprompt.Pack, engine.WithFS(ws)) // once
	if err != nil {
		fmt.Println(err)
		return
	}
	turn := func(thinking string) (engine.Layer, error) {
		res, err := e.Render(context.Background(), engine.Request{
			ChatType:  "direct",
			Workspace: engine.Workspace{Path: "/home/ana/agent"},
			Tools:     []engine.Tool{{Name: "read", Description: "Read a file."}},
			Runtime:   engine.Runtime{Provider: "anthropic", Model: "anthropic/claude-sonnet-4-5", Thinking: thinking},
		})
		if err != nil {
			return engine.Layer{}, err
		}
		return res.Layers[0], nil // the embedded harness has one layer
	}

	first, err := turn("low")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("SOUL.md above the boundary:", strings.Contains(first.Stable, "Calm and exact."))

	second, err := turn("high") // a per-turn fact changes
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("turn 2, same stable prefix:", second.StableSHA256() == first.StableSHA256())
	fmt.Println("turn 2, new dynamic part:", second.Dynamic != first.Dynamic)

	_ = afero.WriteFile(ws, "/home/ana/agent/SOUL.md", []byte("Warm, brief and kind.\n"), 0o644)
	third, err := turn("high")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("turn 3 after editing SOUL.md, same stable prefix:", third.StableSHA256() == first.StableSHA256())
	// Output:
	// SOUL.md above the boundary: true
	// turn 2, same stable prefix: true
	// turn 2, new dynamic part: true
	// turn 3 after editing SOUL.md, same stable prefix: false
}
