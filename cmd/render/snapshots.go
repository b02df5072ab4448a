package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sysprompt/sysprompt/golden"
)

// cmdSnapshots writes or verifies the golden snapshots (golden/README.md) for the
// pack the flags name: the built-in one, or -pack DIR over it.
func cmdSnapshots(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("snapshots", stdout, stderr)
	dirFlag := fs.String("dir", "", "`DIR` holding scenarios/ and snapshots/ (default: the golden folder of the project the current folder is in)")
	pack := fs.String("pack", "", "user pack `DIR` overlaying the built-in pack")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || (fs.Arg(0) != "gen" && fs.Arg(0) != "check") {
		return &usageError{"snapshots takes gen or check: render snapshots gen|check [-dir DIR] [-pack DIR]"}
	}
	err := checkPackDir(*pack)
	var dir string
	if err == nil {
		dir, err = goldenDir(*dirFlag)
	}
	switch {
	case err != nil:
	case fs.Arg(0) == "gen":
		return inPack(genSnapshots(stdout, *pack, dir), *pack)
	default:
		err = checkSnapshots(stdout, *pack, dir, *dirFlag)
	}
	if err != nil && fs.Arg(0) == "check" && !errors.Is(err, errSnapshotsStale) {
		// Exit 1 means "out of date", so trouble exits 2, as for diff.
		return &troubleError{inPack(err, *pack)}
	}
	return err
}

// errSnapshotsStale is check's finding: some snapshot is out of date.
var errSnapshotsStale = errors.New("snapshots out of date")

// goldenDir is -dir when given, else the golden folder of the project
// the current folder is in: the nearest folder, here or above, with
// golden/scenarios in it.
func goldenDir(flagDir string) (string, error) {
	if flagDir != "" {
		if info, err := os.Stat(filepath.Join(flagDir, "scenarios")); err != nil || !info.IsDir() {
			return "", fmt.Errorf("-dir %s: no scenarios/ folder in it", flagDir)
		}
		return flagDir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if dir, ok := findGolden(wd); ok {
		return relativeTo(wd, dir), nil
	}
	// Inside the project through a symlink, the way up is the real one.
	if real, err := filepath.EvalSymlinks(wd); err == nil && real != wd {
		if dir, ok := findGolden(real); ok {
			return dir, nil
		}
	}
	return "", fmt.Errorf("no golden/scenarios folder in %s or any folder above it; run inside the project or give -dir DIR", wd)
}

// findGolden walks up from dir to the first folder holding
// golden/scenarios. Each step goes one folder up, so it ends at the root.
func findGolden(dir string) (string, bool) {
	for ; ; dir = filepath.Dir(dir) {
		candidate := filepath.Join(dir, "golden")
		if info, err := os.Stat(filepath.Join(candidate, "scenarios")); err == nil && info.IsDir() {
			return candidate, true
		}
		if filepath.Dir(dir) == dir {
			return "", false
		}
	}
}

// relativeTo shortens path for messages when it lies under wd.
func relativeTo(wd, path string) string {
	if rel, err := filepath.Rel(wd, path); err == nil {
		return rel
	}
	return path
}

func genSnapshots(stdout io.Writer, pack, dir string) error {
	written, deleted, err := golden.Generate(context.Background(), packFS(pack), dir)
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

func checkSnapshots(stdout io.Writer, pack, dir, dirFlag string) error {
	problems, err := golden.Check(context.Background(), packFS(pack), dir)
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
	regen := "`render snapshots gen"
	if dirFlag != "" {
		regen += " -dir " + dirFlag
	}
	if pack != "" {
		regen += " -pack " + pack
	}
	regen += "`"
	if dirFlag == "" && pack == "" {
		// The test only knows the project's own folder and pack.
		regen += " (or `" + golden.RegenerateCommand + "` from the project root)"
	}
	return fmt.Errorf("%w: %d file(s); regenerate with %s", errSnapshotsStale, len(problems), regen)
}
