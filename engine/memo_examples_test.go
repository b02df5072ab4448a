package engine_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/config"
)

// The stable memo against the built-in pack: one long-lived engine renders the
// shipped example requests, each with turns whose volatile fields vary
// and some repeated, and every result must equal a fresh engine's.
func TestMemosMatchFreshRendersOfExamples(t *testing.T) {
	cfg, err := config.Parse("agents.toml", mustReadFile(t, "../examples/agents.toml"))
	require.NoError(t, err)
	pack := os.DirFS("..")
	opts := []engine.Option{engine.WithFS(exampleWorkspace(t)), engine.WithConfig(cfg)}
	long, err := engine.New(pack, opts...)
	require.NoError(t, err)

	files, err := filepath.Glob("../examples/requests/*.toml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	turns := []func(r *engine.Request){
		func(*engine.Request) {},
		func(r *engine.Request) { r.Date = "2026-12-24T23:59:00Z"; r.Runtime.Host = "other" },
		func(r *engine.Request) { r.Owners = append(r.Owners, "signal:+351"); r.TTSHint = "speak slowly" },
		func(r *engine.Request) { r.ChatType = "group"; r.Reactions.Level = "extensive" },
		func(r *engine.Request) { r.Heartbeat.Prompt = "check in"; r.ExtraSystemPrompt = "a group of four" },
		func(r *engine.Request) { r.Session.Reset = true },
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 60 {
		file := files[rng.IntN(len(files))]
		req, err := engine.ParseRequest(file, mustReadFile(t, file))
		require.NoError(t, err)
		req.Workspace.Path = "/ws"
		turns[rng.IntN(len(turns))](&req)

		got, err := long.Render(context.Background(), req)
		require.NoError(t, err, "%d: %s", i, file)
		fresh, err := engine.New(pack, opts...)
		require.NoError(t, err)
		want, err := fresh.Render(context.Background(), req)
		require.NoError(t, err)
		require.Equal(t, want.Layers, got.Layers, "%d: %s", i, file)
		require.Equal(t, want.Omitted, got.Omitted, "%d: %s", i, file)
	}
}

// A layer served from the memo is the caller's own: changing one result's
// section list changes no later result.
func TestMemoisedLayersAreTheCallersCopy(t *testing.T) {
	e, err := engine.New(os.DirFS(".."), engine.WithFS(exampleWorkspace(t)))
	require.NoError(t, err)
	req, err := engine.ParseRequest("direct.toml", mustReadFile(t, "../examples/requests/direct.toml"))
	require.NoError(t, err)
	req.Workspace.Path = "/ws"
	first, err := e.Render(context.Background(), req)
	require.NoError(t, err)
	want := slices.Clone(first.Layers[0].Sections)
	for range 2 {
		res, err := e.Render(context.Background(), req)
		require.NoError(t, err)
		require.Equal(t, want, res.Layers[0].Sections)
		res.Layers[0].Sections[0].ID = "changed"
		first.Layers[0].Sections[1].End = -1
	}
}
