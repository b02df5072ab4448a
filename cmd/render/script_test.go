package main

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"strconv"
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
		Cmds:               map[string]func(*testscript.TestScript, bool, []string){"exits": cmdExits},
		RequireUniqueNames: true,
		UpdateScripts:      *update,
	})
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
