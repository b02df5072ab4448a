package main

import (
	"context"
	"fmt"
	"io"

	"github.com/sysprompt/sysprompt/golden"
)

// cmdSnapshots writes or verifies the golden snapshots (golden/README.md) for the
// pack the flags name: the built-in one, or -pack DIR over it.
func cmdSnapshots(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "gen" && args[0] != "check") {
		return &usageError{"snapshots takes gen or check: render snapshots gen|check [-dir golden] [-pack DIR]"}
	}
	action, args := args[0], args[1:]
	fs := newFlagSet("snapshots", stderr)
	dir := fs.String("dir", "golden", "`DIR` holding scenarios/ and snapshots/")
	pack := fs.String("pack", "", "user pack `DIR` overlaying the built-in pack")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkPackDir(*pack); err != nil {
		return err
	}
	ctx := context.Background()
	if action == "gen" {
		written, deleted, err := golden.Generate(ctx, packFS(*pack), *dir)
		if err != nil {
			return err
		}
		for _, f := range written {
			fmt.Fprintf(stdout, "wrote %s\n", f)
		}
		for _, f := range deleted {
			fmt.Fprintf(stdout, "deleted %s\n", f)
		}
		if len(written)+len(deleted) == 0 {
			fmt.Fprintln(stdout, "snapshots are up to date")
		}
		return nil
	}
	problems, err := golden.Check(ctx, packFS(*pack), *dir)
	if err != nil {
		return err
	}
	if len(problems) == 0 {
		fmt.Fprintln(stdout, "snapshots are up to date")
		return nil
	}
	for _, p := range problems {
		fmt.Fprintln(stdout, p.String())
	}
	regen := "render snapshots gen"
	if *dir != "golden" {
		regen += " -dir " + *dir
	}
	if *pack != "" {
		regen += " -pack " + *pack
	}
	return fmt.Errorf("%d snapshot file(s) out of date; regenerate with `%s` (or `%s`)", len(problems), regen, golden.RegenerateCommand)
}
