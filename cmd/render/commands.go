package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sysprompt/sysprompt/internal/echo"
)

// command is one subcommand of render: its synopsis and help, and the
// function that runs it. A command's flags are defined only where it
// parses them; help gets them by running the command with -h.
type command struct {
	name  string
	usage string // the synopsis after "render"
	short string // one line for the overview
	long  string // what `render help NAME` prints above the flags
	run   func(args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

// commands lists render's commands in the order the overview shows them.
// It is a function, not a variable, because the commands' own help
// refers back to it.
func commands() []command {
	return []command{
		{"render", "[flags]", "render a prompt to stdout (or -o FILE, written atomically)", renderHelp, cmdRender},
		{"lint", "lint [-pack DIR] [REQUEST…]", "validate a pack; exit 1 on any error", lintHelp, cmdLint},
		{"eject", "eject DIR [FILE…]", "write the built-in pack, or the files named, to DIR (refuses a non-empty DIR)", ejectHelp, cmdEject},
		{"report", "report [VIEW] [flags]", "the context report; VIEW: list (default), detail, json or html", reportHelp, cmdReport},
		{"explain", "explain [flags]", "every section of the pack: rendered, or why not", explainHelp, cmdExplain},
		{"diff", "diff [flags] A B", "render two requests, or with -pack-b DIR two packs; exit 0 same, 1 differs", diffHelp, cmdDiff},
		{"snapshots", "snapshots gen|check [flags]", "write or verify the golden snapshots", snapshotsHelp, cmdSnapshots},
		{"watch", "watch [flags]", "re-render on every change; print a diff and a status line", watchHelp, cmdWatch},
		{"serve", "serve [flags]", "answer JSON requests on stdin, one a line, from one warm engine", serveHelp, cmdServe},
		{"version", "version", "print render's version", "Print the version of this render binary: the module version and\nVCS revision it was built from, and the Go version.", cmdVersion},
		{"help", "help [COMMAND]", "print this overview, or a command's synopsis and flags", "Print the overview of render's commands, or one command's synopsis, what\nit does and its flags, on stdout. 'render COMMAND -h' prints the same.", cmdHelp},
	}
}

func lookupCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func commandNames() string {
	var names []string
	for _, c := range commands() {
		if c.name != "render" {
			names = append(names, c.name)
		}
	}
	return strings.Join(names, ", ")
}

// printOverview lists every command with its synopsis.
func printOverview(w io.Writer) {
	fmt.Fprintln(w, "Usage:")
	width := 0
	for _, c := range commands() {
		width = max(width, len(c.usage))
	}
	for _, c := range commands() {
		fmt.Fprintf(w, "  render %-*s  %s\n", width, c.usage, c.short)
	}
	fmt.Fprintln(w, "\nRun 'render help COMMAND' (or 'render COMMAND -h') for a command's flags.")
}

// cmdHelp prints the overview, or one command's help on stdout.
func cmdHelp(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("help", stdout, stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() == 0:
		printOverview(stdout)
		return nil
	case fs.NArg() > 1:
		return &usageError{"help takes at most one command name"}
	}
	c, ok := lookupCommand(fs.Arg(0))
	if !ok {
		return &usageError{fmt.Sprintf("help: unknown command %s (want %s)", echo.Quote(fs.Arg(0)), commandNames())}
	}
	// The command prints its own help, flags included, when given -h.
	return c.run([]string{"-h"}, strings.NewReader(""), stdout, stderr)
}

// printCommandHelp is a flag set's usage: the command's synopsis, what it
// does, and its flags.
func printCommandHelp(fs *flag.FlagSet) {
	w := fs.Output()
	c, ok := lookupCommand(fs.Name())
	if !ok {
		fs.PrintDefaults()
		return
	}
	fmt.Fprintf(w, "Usage: render %s\n\n", c.usage)
	if c.long != "" {
		fmt.Fprintf(w, "%s\n\n", c.long)
	}
	var any bool
	fs.VisitAll(func(*flag.Flag) { any = true })
	if any {
		fmt.Fprintln(w, "Flags:")
		fs.PrintDefaults()
	}
	if c.name == "render" {
		fmt.Fprintln(w)
		printOverview(w)
	}
	if any || c.name == "render" {
		fmt.Fprintln(w)
	}
	printExamples(w, c.name)
}

const renderHelp = `Render the system prompt for one request to stdout, or to -o FILE through
a temporary file and a rename (a failed render writes nothing).

-format text prints each layer's text; json prints every layer with its
stable and dynamic text, sections and the stable prefix's sha256;
anthropic and openai print a request body for that provider's API, with
the model, the prompt cached at the boundary, and the tools.

Exit status: 0 ok, 1 render or validation failure, 2 usage error.`

const lintHelp = `Compile the built-in pack, or -pack DIR laid over it, then execute every
section in every mode, harness, chat type and session kind, over
generated requests that set every field and over each REQUEST file
given (CI passes examples/requests/*.toml); report every problem with
its file, line and column, and an execution error with the turn that
meets it. With -pack, also list the built-in files DIR overrides and the
files it adds. Exit 1 on any error.`

const ejectHelp = `Write the built-in pack (sections/ and templates/) to DIR, which must not
exist or be empty; render with -pack DIR to use your edits. With FILEs
(paths as in the pack, such as sections/safety.md.tmpl), write only
those: a pack overrides the built-in one file by file.`

const reportHelp = `Render as a plain render would and print where the context goes: each
workspace file's raw and injected size, each section's size and tokens,
the skills catalog, tool schemas and the stable prefix's sha256. The view
is list (the default), detail, json (also -format json), or html: one
self-contained page (to stdout, or -o FILE). Nothing is recorded in -state.`

const explainHelp = `Render as a plain render would and list every section of the manifest:
rendered (with its size and tokens) or why not; -format json prints the
list as JSON. Nothing is recorded in -state.`

const diffHelp = `Render requests A and B (files; one of them may be - for stdin) with the
same pack, workspace and config, and say per layer whether the stable
prefixes are byte-identical; if not, where they first differ. Then
whether the requests define their tools alike (name, description,
schema): providers cache tool definitions ahead of the system prompt, so
a changed tool misses the cache even when every prefix matches. Also
lists the dynamic sections and workspace files that differ.

With -pack-b DIR (and -pack-a, default builtin), render the same requests
with two packs instead: the files named, or examples/requests/*.toml of
the folder render runs in (a checkout of this repository). Per request it says whether the text changed, which sections
did, whether a stable prefix did, and the size change in chars and tokens.

-format json (or -json) prints the comparison as JSON, with a verdict and
the names of the two sides.

Exit status: 0 every stable prefix is identical and the tools are
defined alike (with two packs: every text is the same), 1 not, 2 a
request could not be rendered or the command line is wrong.`

const snapshotsHelp = `gen rewrites the golden snapshots from the scenarios (and deletes stale
ones); check reports each snapshot that is missing, differs or is stale
and exits 1, or 2 when it cannot check. The golden folder is found from the current folder or any
folder above it, or given with -dir.`

const serveHelp = `Keep one engine warm and answer newline-delimited JSON on stdin: each line
{"id": ANY, "request": {…}} gets one compact line on stdout, in order,
{"schema_version": 3, "id": …, "result": {…}} with the document
-format json prints, or {…, "error": {"message": …, "file": …, "line": …,
"col": …}}. Edits to the workspace, -pack and -config show on the next
request. End of input, SIGINT or SIGTERM exit 0.`

const watchHelp = `Render, then re-render after every change to the pack, workspace, request
or config: print a unified diff against the previous prompt and a status
line. Errors keep watching; Ctrl-C or SIGTERM exits 0.`
