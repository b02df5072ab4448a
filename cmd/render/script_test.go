package main

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the cmp targets of failing testdata/script files")

// TestMain lets the test binary double as the render command, so scripts
// run the real CLI as a subprocess with its real exit status.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"render": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                "testdata/script",
		Cmds:               map[string]func(*testscript.TestScript, bool, []string){"exits": cmdExits, "replace": cmdReplace},
		RequireUniqueNames: true,
		UpdateScripts:      *update,
		Setup:              func(env *testscript.Env) error { return errors.Join(raceExitQuickly(env), setExamples(env)) },
	})
}

// setExamples points $EXAMPLES at the repository's examples folder, so
// scripts run the shipped requests and workspace as they are.
func setExamples(env *testscript.Env) error {
	dir, err := filepath.Abs("../../examples")
	if err != nil {
		return err
	}
	env.Setenv("EXAMPLES", dir)
	return nil
}

// raceExitQuickly cuts the sleep a -race binary takes when it exits (1 s
// by default, so that goroutines still running can report a race) to
// 10 ms, as testscript suggests. The scripts run the -race test binary as
// the render command about 70 times, so the default sleep alone made up
// most of this package's 26 s under -race. Anything in GORACE already,
// atexit_sleep_ms included, comes after and wins; a build without -race
// ignores GORACE.
func raceExitQuickly(env *testscript.Env) error {
	env.Setenv("GORACE", strings.TrimSpace("atexit_sleep_ms=10 "+env.Getenv("GORACE")))
	return nil
}

// cmdExits runs a program and checks its exact exit status, which "!"
// alone cannot do: "exits 2 render -bogus". Its stdout and stderr stay
// available to the stdout and stderr commands that follow.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exits")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad exit code %q", args[0])
	}
	got := 0
	var exitErr *exec.ExitError
	switch err := ts.Exec(args[1], args[2:]...); {
	case errors.As(err, &exitErr):
		got = exitErr.ExitCode()
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// cmdReplace edits a file in place, "replace FILE OLD NEW", where OLD
// must occur exactly once: an edit to an ejected pack, without sed.
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	text := ts.ReadFile(args[0])
	if n := strings.Count(text, args[1]); n != 1 {
		ts.Fatalf("replace: %q occurs %d times in %s, want once", args[1], n, args[0])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(strings.Replace(text, args[1], args[2], 1)), 0o644))
}
