package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/report"
)

// errDiffers makes diff exit 1 without printing an error line: the
// report on stdout already says what differs.
var errDiffers = errors.New("the prompts differ")

// cmdDiff renders two requests with the same pack, workspace and config
// and says whether a provider's prompt cache sees them alike: each
// layer's stable prefix byte-identical, and the tools defined alike.
func cmdDiff(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	err := compareRequests(args, stdin, stdout, stderr)
	var ue *usageError
	if err == nil || errors.Is(err, errDiffers) || errors.Is(err, flag.ErrHelp) || errors.As(err, &ue) {
		return err
	}
	// Exit 1 means "the prompts differ", so trouble exits 2.
	return &troubleError{err}
}

func compareRequests(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("diff", stdout, stderr)
	var c common
	c.register(fs)
	c.registerSet(fs)
	packA := fs.String("pack-a", "", "compare packs: pack `A`, builtin or a directory (default builtin)")
	packB := fs.String("pack-b", "", "compare packs: pack `B`, a directory or builtin; the requests default to the examples")
	tokName := fs.String("tokenizer", "estimate", "with -pack-b: count tokens with `NAME`: estimate (ceil(chars/4)), o200k or cl100k")
	format := formatFlag(fs)
	asJSON := fs.Bool("json", false, "print the comparison as JSON (same as -format json)")
	if err := parse(fs, args); err != nil {
		return err
	}
	set := setFlags(fs)
	if err := checkFormat(*format); err != nil {
		return err
	}
	if *asJSON {
		if set["format"] && *format != "json" {
			return &usageError{"-json is -format json; give one of them"}
		}
		*format = "json"
	}
	if set["pack-a"] || set["pack-b"] {
		return comparePacks(&c, *packA, *packB, *tokName, *format, fs.Args(), stdin, stdout)
	}
	if set["tokenizer"] {
		return &usageError{"-tokenizer applies to a diff of packs (-pack-b DIR); a diff of requests counts no tokens"}
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
		if results[i], err = renderOnce(e, req); err != nil {
			return inPack(err, c.pack)
		}
	}
	d, err := report.Compare(results[0], results[1])
	if err != nil {
		return err
	}
	d.A, d.B = fs.Arg(0), fs.Arg(1)
	if *format == "json" {
		if err := encodeJSON(stdout, d); err != nil {
			return err
		}
	} else {
		writeDiff(stdout, fs.Arg(0), fs.Arg(1), d)
	}
	if !d.Same() {
		return errDiffers
	}
	return nil
}

// builtinPack names the built-in pack in -pack-a and -pack-b.
const builtinPack = "builtin"

// comparePacks renders each request with pack a and with pack b and
// says what changed; exit 1 (errDiffers) when any text did.
func comparePacks(c *common, a, b, tokName, format string, names []string, stdin io.Reader, stdout io.Writer) error {
	switch {
	case c.pack != "":
		return &usageError{"-pack gives the one pack of a render; a diff of packs takes -pack-a A and -pack-b B"}
	case b == "":
		return &usageError{"-pack-b DIR: the pack to compare with -pack-a (default builtin)"}
	case len(names)-len(slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == "-" })) > 1:
		return &usageError{"diff can read only one of its requests from stdin"}
	}
	a = cmp.Or(a, builtinPack)
	tok, err := newTokenizer(tokName)
	if err != nil {
		return err
	}
	sides := [2]common{*c, *c}
	var engines [2]*engine.Engine
	for i, dir := range []string{a, b} {
		side := &sides[i]
		side.pack, side.preview = "", true
		if err := side.validate(); err != nil {
			return err
		}
		if dir != builtinPack {
			if err := checkPackDir(dir); err != nil {
				// checkPackDir names -pack; this pack came from -pack-a or -pack-b.
				return errors.New(strings.Replace(err.Error(), "-pack:", fmt.Sprintf("-pack-%c:", 'a'+i), 1))
			}
			side.pack = dir
		}
		if engines[i], err = side.engine(); err != nil {
			return err
		}
	}
	inputs, err := diffInputs(names, stdin)
	if err != nil {
		return err
	}
	d := report.PackDiff{SchemaVersion: report.SchemaVersion, Verdict: report.VerdictSame, A: a, B: b, Tokenizer: tok.Name(),
		Requests: make([]report.RequestDiff, 0, len(inputs))}
	for _, in := range inputs {
		var results [2]*engine.Result
		for i := range sides {
			req, err := sides[i].requestOf(engines[i], in.label, in.src)
			if err != nil {
				return err
			}
			if results[i], err = renderOnce(engines[i], req); err != nil {
				return inPack(err, sides[i].pack)
			}
		}
		rd := report.CompareRequest(in.label, results[0], results[1], tok)
		if rd.Verdict != report.VerdictSame {
			d.Verdict = report.VerdictDiffers
		}
		d.Requests = append(d.Requests, rd)
	}
	if format == "json" {
		err = encodeJSON(stdout, d)
	} else {
		writePackDiff(stdout, d)
	}
	if err == nil && d.Verdict != report.VerdictSame {
		return errDiffers
	}
	return err
}

// diffInput is one request a diff of packs renders.
type diffInput struct {
	label string
	src   []byte
}

// checkoutExamples is where a diff of packs finds its requests when none
// is named: the example requests of a checkout of this repository.
const checkoutExamples = "examples/requests/*.toml"

// diffInputs reads the named request files, or the example requests of
// the checkout render runs in when none is named.
func diffInputs(names []string, stdin io.Reader) ([]diffInput, error) {
	if len(names) == 0 {
		names, _ = filepath.Glob(checkoutExamples) // the pattern is well formed
		if len(names) == 0 {
			return nil, &usageError{"no request named, and no " + checkoutExamples + " here: name the request files to render"}
		}
	}
	var out []diffInput
	for _, name := range names {
		src, label, err := readInput(name, stdin)
		if err != nil {
			return nil, err
		}
		out = append(out, diffInput{label, src})
	}
	return out, nil
}

// writePackDiff prints a diff of packs: per request, same, or what
// changed and by how much, then the verdict.
func writePackDiff(w io.Writer, d report.PackDiff) {
	fmt.Fprintf(w, "pack A: %s\npack B: %s\n", d.A, d.B)
	differ := 0
	for _, r := range d.Requests {
		if r.Verdict == report.VerdictSame {
			fmt.Fprintf(w, "%s: same\n", r.Request)
			continue
		}
		differ++
		prefix := "stable prefix unchanged"
		if r.StableChange {
			prefix = "stable prefix changed"
		}
		fmt.Fprintf(w, "%s: differs; %s; %s\n", r.Request, prefix, sizeDelta(r.Chars, r.Tokens))
		for _, s := range r.Sections {
			fmt.Fprintf(w, "  %s/%s (%s): %s\n", s.Layer, s.ID, s.Tier, sizeDelta(s.Chars, s.Tokens))
		}
	}
	if differ == 0 {
		fmt.Fprintf(w, "same: %s render the same with both packs\n", plural(len(d.Requests), "request"))
		return
	}
	fmt.Fprintf(w, "differs: %d of %s (tokens: %s)\n", differ, plural(len(d.Requests), "request"), d.Tokenizer)
}

// sizeDelta says how a size moved: "+12 chars, +3 tokens (1,200 → 1,212 chars)".
func sizeDelta(chars, tokens report.SizeChange) string {
	return fmt.Sprintf("%s chars, %s tokens (%s → %s chars)", signed(chars.Delta), signed(tokens.Delta), num(chars.A), num(chars.B))
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
	if !d.Tools.Identical {
		fmt.Fprintln(w, "tools: defined differently; providers cache tool definitions ahead of the system prompt, so the cache misses")
		for _, change := range []struct{ kind, words string }{
			{report.ToolRemoved, "only in " + a},
			{report.ToolAdded, "only in " + b},
			{report.ToolDescription, "description differs"},
			{report.ToolSchema, "schema differs"},
			{report.ToolDescriptionAndSchema, "description and schema differ"},
		} {
			var names []string
			for _, t := range d.Tools.Changed {
				if t.Change == change.kind {
					names = append(names, t.Name)
				}
			}
			if len(names) > 0 {
				fmt.Fprintf(w, "  %s: %s\n", change.words, joinIDs(names))
			}
		}
		if d.Tools.OrderChanged {
			fmt.Fprintln(w, "  the tools both define come in another order")
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
