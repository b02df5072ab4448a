package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/report"
)

// errStableDiffers makes diff exit 1 without printing an error line: the
// report on stdout already says what differs.
var errStableDiffers = errors.New("stable prefixes differ")

// cmdDiff renders two requests with the same pack, workspace and config
// and says whether each layer's stable prefix is byte-identical.
func cmdDiff(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	err := compareRequests(args, stdin, stdout, stderr)
	var ue *usageError
	if err == nil || errors.Is(err, errStableDiffers) || errors.Is(err, flag.ErrHelp) || errors.As(err, &ue) {
		return err
	}
	// Exit 1 means "the prefixes differ", so trouble exits 2.
	return &troubleError{err}
}

func compareRequests(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("diff", stdout, stderr)
	var c common
	c.register(fs)
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return &usageError{fmt.Sprintf("diff takes two request files, got %d: render diff [flags] A B", fs.NArg())}
	}
	if err := c.validate(); err != nil {
		return err
	}
	if fs.Arg(0) == "-" && fs.Arg(1) == "-" {
		return &usageError{"diff can read only one of its requests from stdin"}
	}
	c.preview = true
	e, err := c.engine()
	if err != nil {
		return err
	}
	// One engine renders both sides, so they share pack, config and state.
	var results [2]*engine.Result
	for i, name := range fs.Args()[:2] {
		req, err := c.requestFrom(e, name, stdin)
		if err != nil {
			return err
		}
		if results[i], err = e.Render(context.Background(), req); err != nil {
			return inPack(err, c.pack)
		}
	}
	d, err := report.Compare(results[0], results[1])
	if err != nil {
		return err
	}
	if *asJSON {
		if err := encodeJSON(stdout, d); err != nil {
			return err
		}
	} else {
		writeDiff(stdout, fs.Arg(0), fs.Arg(1), d)
	}
	if !d.StableIdentical() {
		return errStableDiffers
	}
	return nil
}

func writeDiff(w io.Writer, a, b string, d report.Diff) {
	for _, l := range d.Layers {
		if l.StableIdentical {
			fmt.Fprintf(w, "%s: stable prefix identical\n", l.Name)
		} else {
			f := l.First
			fmt.Fprintf(w, "%s: stable prefix differs at line %d, column %d (byte %d)\n", l.Name, f.Line, f.Col, f.Offset)
			fmt.Fprintf(w, "  %s: in %s: %s\n", a, f.SectionA, oneLine(f.ExcerptA))
			fmt.Fprintf(w, "  %s: in %s: %s\n", b, f.SectionB, oneLine(f.ExcerptB))
		}
		if len(l.DynamicChanged) > 0 {
			fmt.Fprintf(w, "  dynamic sections that differ: %s\n", joinIDs(l.DynamicChanged))
		}
	}
	if len(d.Files) > 0 {
		fmt.Fprintln(w, "workspace files that differ:")
		for _, f := range d.Files {
			fmt.Fprintf(w, "  %s: %s: %s; %s: %s\n", f.Name, a, f.A, b, f.B)
		}
	}
}

func joinIDs(ids []string) string { return strings.Join(ids, ", ") }

// oneLine shows a diff excerpt on one line of text output: newlines as
// \n, and an empty excerpt (the text ends there) said in words.
func oneLine(excerpt string) string {
	if excerpt == "" {
		return "(end of text)"
	}
	// Backslashes first, so a "\n" in the prompt does not read as a newline.
	return strings.ReplaceAll(strings.ReplaceAll(excerpt, `\`, `\\`), "\n", `\n`)
}
