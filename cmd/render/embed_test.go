package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/host"
	"github.com/sysprompt/sysprompt/vfs"
)

// A Go program built from the README's Go API, with engine/host's real
// skill host, renders every example request to the CLI's exact bytes:
// the CLI is built from the same pieces.
func TestLibraryRendersTheCLIBytes(t *testing.T) {
	ws, err := filepath.Abs("../../examples/workspace")
	require.NoError(t, err)
	src, err := os.ReadFile("../../examples/agents.toml")
	require.NoError(t, err)
	cfg, err := config.Parse("agents.toml", src)
	require.NoError(t, err)
	e, err := engine.New(sysprompt.Pack, engine.WithFS(vfs.OSAt(ws)), engine.WithSkillHost(host.Skills()), engine.WithConfig(cfg))
	require.NoError(t, err)

	requests, err := filepath.Glob("../../examples/requests/*.toml")
	require.NoError(t, err)
	require.NotEmpty(t, requests)
	for _, name := range requests {
		code, want, stderr := cli("-workspace", ws, "-config", "../../examples/agents.toml", "-request", name)
		require.Equal(t, 0, code, stderr)
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		req, err := engine.ParseRequest(filepath.Base(name), src)
		require.NoError(t, err)
		res, err := e.Render(context.Background(), req)
		require.NoError(t, err)
		var got strings.Builder
		writeText(&got, res, true)
		assert.Equal(t, want, got.String(), name)
	}
}
