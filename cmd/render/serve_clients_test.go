package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// needInterpreter returns the interpreter's path, or skips the test when
// it is missing, except in CI, where a missing one is a failure.
func needInterpreter(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not on PATH, and CI is set: the %s client must be tested", name, name)
		}
		t.Skipf("%s is not on PATH", name)
	}
	return path
}

func TestPythonClient(t *testing.T) {
	t.Parallel()
	testClient(t, needInterpreter(t, "python3"), "../../examples/clients/python/sysprompt_client.py")
}

func TestNodeClient(t *testing.T) {
	t.Parallel()
	testClient(t, needInterpreter(t, "node"), "../../examples/clients/node/sysprompt_client.js")
}

// testClient runs a client's demo against a fresh binary: the example
// request twice, the second sent before the first is answered, then a
// bad one. Each turn's stable sha256 must be the one an in-process render
// gives, and the bad request's error must come back with its position.
func testClient(t *testing.T, interpreter, script string) {
	bin := buildRender(t)
	ws := "../../examples/workspace"
	want := runCLI("", "-request", "../../examples/requests/direct.toml", "-format", "json", "-workspace", ws)
	require.Equal(t, 0, want.code, want.stderr)
	var doc jsonDoc
	require.NoError(t, json.Unmarshal([]byte(want.stdout), &doc))
	sha := doc.Layers[0].StableSHA256
	require.Len(t, sha, 64)

	cmd := exec.Command(interpreter, script, "--render", bin, "-workspace", ws)
	out, err := cmd.Output()
	var stderr string
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = string(ee.Stderr)
	}
	require.NoError(t, err, "%s%s", out, stderr)
	assert.Equal(t, strings.Join([]string{
		"first turn:  stable sha256 " + sha,
		"second turn: stable sha256 " + sha,
		"stable prefix unchanged: yes",
		`a bad request: <stdin>:3:20: mode = "bogus" is not allowed (want full, minimal, none) (line 3, col 20)`,
		"",
	}, "\n"), string(out))
}
