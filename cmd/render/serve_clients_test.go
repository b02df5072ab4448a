package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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

// Each client takes the binary from --render, else $SYSPROMPT_RENDER,
// else PATH (a bare name in either is looked up there too), and without
// one names every place it looked.
func TestClientsFindRender(t *testing.T) {
	// PATH without any render on it (the test binary puts itself there
	// for the scripts), so that only the ones this test places are found.
	var dirs []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "render")); err != nil {
			dirs = append(dirs, dir)
		}
	}
	noRender := strings.Join(dirs, string(os.PathListSeparator))
	bin := buildRender(t)
	onPath := t.TempDir()
	require.NoError(t, os.Symlink(bin, filepath.Join(onPath, "render")))
	devDir := t.TempDir() // holds render-dev, not render
	require.NoError(t, os.Symlink(bin, filepath.Join(devDir, "render-dev")))
	for name, c := range map[string]struct{ interpreter, script string }{
		"python": {"python3", "../../examples/clients/python/sysprompt_client.py"},
		"node":   {"node", "../../examples/clients/node/sysprompt_client.js"},
	} {
		t.Run(name, func(t *testing.T) {
			interpreter := needInterpreter(t, c.interpreter)
			run := func(env ...string) (string, string, error) {
				cmd := exec.Command(interpreter, c.script, "-workspace", "../../examples/workspace")
				cmd.Env = append(append(os.Environ(), "PATH="+noRender), env...)
				var stdout, stderr strings.Builder
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				return stdout.String(), stderr.String(), err
			}
			out, errOut, err := run("SYSPROMPT_RENDER=" + bin)
			require.NoError(t, err, errOut)
			assert.Contains(t, out, "stable prefix unchanged: yes")

			out, errOut, err = run("SYSPROMPT_RENDER=", "PATH="+onPath+string(os.PathListSeparator)+noRender)
			require.NoError(t, err, errOut)
			assert.Contains(t, out, "stable prefix unchanged: yes")

			// A bare name is looked up on PATH, as a shell would.
			out, errOut, err = run("SYSPROMPT_RENDER=render-dev", "PATH="+devDir+string(os.PathListSeparator)+noRender)
			require.NoError(t, err, errOut)
			assert.Contains(t, out, "stable prefix unchanged: yes")

			_, errOut, err = run("SYSPROMPT_RENDER=/nowhere/render")
			require.Error(t, err)
			assert.Contains(t, errOut, "no render binary; tried --render (not set), $SYSPROMPT_RENDER=/nowhere/render (not an executable file), render on PATH (not found)")
			assert.Contains(t, errOut, "go install github.com/sysprompt/sysprompt/cmd/render@latest")
		})
	}
}
