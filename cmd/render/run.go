package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/afero"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/host"
	"github.com/sysprompt/sysprompt/engine/report"
	"github.com/sysprompt/sysprompt/internal/echo"
	"github.com/sysprompt/sysprompt/internal/hint"
	"github.com/sysprompt/sysprompt/vfs"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// hookTimeout bounds one run of the -hook command.
const hookTimeout = 10 * time.Second

// usageError is a mistake in the command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	name := "render"
	// A bug is a failure like any other: one line and exit 1 (2 for diff,
	// whose 1 means "differs"), not a Go stack trace.
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(stderr, "render: internal error: %v\n", v)
			code = exitFail
			if name == "diff" {
				code = exitUsage
			}
		}
	}()
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	var err error
	if c, ok := lookupCommand(name); ok {
		out := &stdoutWriter{Writer: stdout}
		err = c.run(args, stdin, out, stderr)
		// Output lost is a failure even where the command printed as it
		// went and did not look; a diff that could not say is trouble.
		if out.err != nil && (err == nil || errors.Is(err, flag.ErrHelp) || errors.Is(err, errDiffers)) {
			err = out.err
			if name == "diff" {
				err = &troubleError{err}
			}
		}
	} else {
		err = &usageError{fmt.Sprintf("unknown command %s (want %s, or flags for a render)", echo.Quote(name), commandNames())}
		name = "render"
	}
	return exitCode(err, name, stderr)
}

// stdoutWriter keeps the first error writing to stdout.
type stdoutWriter struct {
	io.Writer
	err error
}

func (w *stdoutWriter) Write(p []byte) (int, error) {
	n, err := w.Writer.Write(p)
	if err != nil && w.err == nil {
		w.err = err
	}
	return n, err
}

// exitCode prints err as one line and returns the exit code for it; a
// usage error also says where the command's help is.
func exitCode(err error, name string, stderr io.Writer) int {
	var ue *usageError
	var te *troubleError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errDiffers):
		return exitFail
	case errors.As(err, &ue):
		hint := "render -h"
		if name != "render" {
			hint = "render help " + name
		}
		fmt.Fprintf(stderr, "render: %s\nRun '%s' for usage.\n", ue.msg, hint)
		return exitUsage
	case errors.As(err, &te):
		printError(te.err, stderr)
		return exitUsage
	}
	printError(err, stderr)
	return exitFail
}

// troubleError is a failure of a command whose exit status 1 means
// something else (diff: the prefixes differ), so it exits 2, as diff(1)
// does when it cannot compare.
type troubleError struct{ err error }

func (e *troubleError) Error() string { return e.err.Error() }
func (e *troubleError) Unwrap() error { return e.err }

// printError prints one line per error; a pack with several problems
// lists them all, first one first.
func printError(err error, stderr io.Writer) {
	var list engine.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			fmt.Fprintf(stderr, "render: %s\n", e)
		}
		return
	}
	fmt.Fprintf(stderr, "render: %s\n", err)
}

// common holds the flags every render-like command takes.
type common struct {
	pack, workspace, request, config, agent string
	mode, harness, state, hook              string
	bundledSkills                           string
	sets                                    []string // -set key=value, in order

	requestLabel string // set by requestFrom: the request file as named in errors
	requestSrc   []byte // and its text, to place a provider's refusal of a tool

	preview      bool      // a preview command: never record warnings as shown
	workspaceAbs string    // set by engine(): the absolute -workspace path, slash-separated
	stderr       io.Writer // set by register(): where warnings go
}

func (c *common) register(fs *flag.FlagSet) {
	c.stderr = fs.Output() // newFlagSet points it at the command's stderr
	fs.StringVar(&c.pack, "pack", "", "user pack `DIR` overlaying the built-in pack")
	fs.StringVar(&c.workspace, "workspace", "", "read the agent's workspace files from `DIR` (read-only)")
	fs.StringVar(&c.config, "config", "", "agent config `FILE` (TOML)")
	fs.StringVar(&c.agent, "agent", "", "agent `ID` from [[agents.list]]")
	fs.StringVar(&c.mode, "mode", "", "prompt `MODE`: full, minimal or none")
	fs.StringVar(&c.harness, "harness", "", "harness `NAME` from the manifest")
	fs.StringVar(&c.state, "state", "", "`FILE` keeping seen truncation warnings")
	fs.StringVar(&c.hook, "hook", "", "agent:bootstrap hook `CMD`")
	fs.StringVar(&c.bundledSkills, "bundled-skills", "", "bundled skills `DIR` (below managed, above skills.load.extraDirs)")
}

// registerRequest adds -request, for the commands that render one request.
func (c *common) registerRequest(fs *flag.FlagSet) {
	fs.StringVar(&c.request, "request", "", "request `FILE`, TOML or JSON (- for stdin)")
	c.registerSet(fs)
}

// registerSet adds -set, which overrides one request key (repeatable).
func (c *common) registerSet(fs *flag.FlagSet) {
	fs.Func("set", "override one request `key=value` (dotted keys: channel.id=x; repeatable)", func(v string) error {
		c.sets = append(c.sets, v)
		return nil
	})
}

// applySets applies the -set flags to req in order, checked as a
// request file's keys are; the error names the flag.
func (c *common) applySets(req *engine.Request) error {
	for _, a := range c.sets {
		if err := req.Set(a); err != nil {
			shown := a // quoted only when it needs to be, to read as typed
			if strconv.Quote(a) != `"`+a+`"` || len(a) > echo.MaxQuoted {
				shown = echo.Quote(a)
			}
			return &usageError{fmt.Sprintf("-set %s: %v", shown, err)}
		}
	}
	return nil
}

// newFlagSet makes a command's flag set: errors go to stderr, and the
// help that -h asks for goes to stdout, where a pager can read it.
func newFlagSet(name string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fs.SetOutput(stdout)
		printCommandHelp(fs)
		fs.SetOutput(stderr)
	}
	return fs
}

// parse parses flags, turning flag errors into usage errors. Flags may
// come before and after positional arguments ("diff A B -json"); after
// "--" everything is positional. Afterwards fs.Args() holds the
// positional arguments in order. The flag package's own messages are
// silenced so an error prints as one line; -h prints the command's help.
func parse(fs *flag.FlagSet, args []string) error {
	// The flag package prints usage on every error; only -h should.
	out, help := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	positional, err := parseInterleaved(fs, args)
	fs.SetOutput(out)
	fs.Usage = help
	if errors.Is(err, flag.ErrHelp) {
		help()
		return err
	}
	if err != nil {
		return &usageError{err.Error()}
	}
	// "-o" given empty is a slip (an unset variable), not a wish to print
	// to stdout, which leaving it out says.
	if o := fs.Lookup("o"); o != nil && setFlags(fs)["o"] && o.Value.String() == "" {
		return &usageError{"-o needs a FILE; leave it out to print to stdout"}
	}
	// Parsing "--" alone leaves exactly the positional arguments in Args.
	return fs.Parse(append([]string{"--"}, positional...))
}

// parseInterleaved parses args, collecting the positional arguments that
// stand between flags. Each round consumes at least one argument.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if endedFlags(fs, args[:len(args)-len(rest)]) {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	return positional, nil
}

// endedFlags reports whether parsing the arguments in done stopped at a
// "--" that ends the flags, rather than at one that is a flag's value
// ("-hook --").
func endedFlags(fs *flag.FlagSet, done []string) bool {
	n := len(done)
	if n == 0 || done[n-1] != "--" {
		return false
	}
	if n == 1 {
		return true
	}
	prev := done[n-2]
	f := fs.Lookup(strings.TrimLeft(prev, "-"))
	if f == nil || !strings.HasPrefix(prev, "-") || strings.Contains(prev, "=") {
		return true // prev is not a flag waiting for its value
	}
	b, isBool := f.Value.(interface{ IsBoolFlag() bool })
	return isBool && b.IsBoolFlag()
}

// setFlags reports which flags the command line set.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// parseFlags is parse for commands that take no arguments besides flags.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := parse(fs, args); err != nil {
		return err
	}
	return noArgs(fs.Args())
}

// noArgs refuses positional arguments.
func noArgs(rest []string) error {
	if len(rest) > 0 {
		return &usageError{fmt.Sprintf("unexpected argument %s", echo.Quote(rest[0]))}
	}
	return nil
}

// validate refuses flag values and combinations that would fail every
// render or be silently ignored.
func (c *common) validate() error {
	switch {
	case c.agent != "" && c.config == "":
		return &usageError{"-agent picks an entry of the config's [[agents.list]]; give -config FILE too"}
	case c.hook != "" && c.workspace == "":
		return &usageError{"-hook edits the list of workspace files to inject; give -workspace DIR too"}
	case c.state != "" && c.workspace == "":
		return &usageError{"-state keeps truncation warnings about workspace files; give -workspace DIR too"}
	}
	if err := checkMode(c.mode); err != nil {
		return err
	}
	// Checked on an empty request first, so a bad -set fails before any
	// render (watch would otherwise report it on every change).
	if err := c.applySets(&engine.Request{}); err != nil {
		return err
	}
	return checkPackDir(c.pack)
}

// checkMode refuses a -mode that is not a prompt mode ("" is none given).
func checkMode(mode string) error {
	switch engine.Mode(mode) {
	case "", engine.ModeFull, engine.ModeMinimal, engine.ModeNone:
		return nil
	}
	return &usageError{fmt.Sprintf("-mode %s: want full, minimal or none", echo.Quote(mode))}
}

// load builds the engine and the request the flags describe. The
// request is read and parsed while the pack loads and compiles: those
// are most of a one-shot render's work, and on two cores a cold render
// is about a tenth faster. An engine error is reported before a request
// error, as if the two had run in turn. Only a regular file is read
// early: stdin, a named pipe or a terminal blocks until written to, and
// would hold back the pack's error until then.
func (c *common) load(stdin io.Reader) (*engine.Engine, engine.Request, error) {
	fi, statErr := os.Stat(c.request)
	early := c.request != "-" && (statErr != nil || fi.Mode().IsRegular())
	var (
		req      engine.Request
		reqErr   error
		panicked any
		done     = make(chan struct{})
	)
	parse := func() {
		defer close(done)
		defer func() { panicked = recover() }()
		req, reqErr = c.parseRequestIn(c.request, stdin)
	}
	if early {
		go parse()
	}
	e, err := c.engine()
	if err == nil && !early {
		parse()
	}
	if early || err == nil {
		<-done
		if panicked != nil {
			panic(panicked)
		}
	}
	if err != nil {
		return nil, engine.Request{}, err
	}
	if reqErr != nil {
		return e, req, reqErr
	}
	c.override(e, &req)
	return e, req, nil
}

// requestFrom reads the request in name ("" for none, "-" for stdin) and
// applies the flags that override request fields; e is the engine that
// will render it.
func (c *common) requestFrom(e *engine.Engine, name string, stdin io.Reader) (engine.Request, error) {
	req, err := c.parseRequestIn(name, stdin)
	if err == nil {
		c.override(e, &req)
	}
	return req, err
}

// parseRequestIn reads the request in name ("" for none, "-" for stdin)
// and applies -set.
func (c *common) parseRequestIn(name string, stdin io.Reader) (engine.Request, error) {
	if name == "" {
		return c.parseRequest("", nil)
	}
	src, label, err := readInput(name, stdin)
	if err != nil {
		return engine.Request{}, err
	}
	c.requestLabel, c.requestSrc = label, src
	return c.parseRequest(label, src)
}

// requestOf parses the request src read from label ("" for none) and
// applies -set and the flags that override request fields; e is the
// engine that will render it.
func (c *common) requestOf(e *engine.Engine, label string, src []byte) (engine.Request, error) {
	req, err := c.parseRequest(label, src)
	if err == nil {
		c.override(e, &req)
	}
	return req, err
}

// parseRequest parses the request src read from label ("" for none) and
// applies -set.
func (c *common) parseRequest(label string, src []byte) (engine.Request, error) {
	var req engine.Request
	if label != "" {
		var err error
		if req, err = engine.ParseRequest(label, src); err != nil {
			return req, err
		}
	}
	return req, c.applySets(&req)
}

// override applies the flags that override request fields; e is the
// engine that will render req. validate has checked -mode.
func (c *common) override(e *engine.Engine, req *engine.Request) {
	if c.mode != "" {
		req.Mode = engine.Mode(c.mode)
	}
	if c.harness != "" {
		req.Harness = c.harness
	}
	if c.agent != "" {
		req.Agent = c.agent
	}
	if c.workspaceAbs != "" && req.Workspace.Path == "" {
		req.Workspace.Path = c.shownWorkspace(e, *req)
	}
}

// engine compiles the pack with the options the flags describe.
func (c *common) engine() (*engine.Engine, error) {
	var opts []engine.Option
	if c.config != "" {
		src, err := readFile(c.config)
		if err != nil {
			return nil, err
		}
		cfg, err := config.Parse(c.config, src)
		if err != nil {
			return nil, err
		}
		opts = append(opts, engine.WithConfig(cfg))
	}
	if c.workspace != "" {
		abs, err := existingDir("-workspace", c.workspace)
		if err != nil {
			return nil, err
		}
		c.workspaceAbs = filepath.ToSlash(abs)
		opts = append(opts, engine.WithFS(vfs.OSAt(abs)))
	}
	opts = append(opts, engine.WithSkillHost(host.Skills()))
	if c.bundledSkills != "" {
		dir, err := existingDir("-bundled-skills", c.bundledSkills)
		if err != nil {
			return nil, err
		}
		opts = append(opts, engine.WithBundledSkills(vfs.OS(), dir, filepath.ToSlash(dir)))
	}
	if c.state != "" {
		// A state file that cannot be used costs at most a repeated notice.
		fileStore := host.NewFileStore(afero.NewOsFs(), c.state, func(err error) {
			fmt.Fprintf(c.stderr, "render: warning: %s\n", err)
		})
		var store bootstrap.Store = fileStore
		if c.preview {
			store = host.ReadOnly(fileStore)
		}
		opts = append(opts, engine.WithWarningStore(store))
	}
	if c.hook != "" {
		opts = append(opts, engine.WithBootstrapHook(host.CommandHook(c.hook, hookTimeout)))
	}
	e, err := engine.New(packFS(c.pack), opts...)
	if err != nil {
		return nil, inPack(err, c.pack)
	}
	return e, nil
}

// existingDir returns dir made absolute, or an error naming the flag when
// it is not a directory.
func existingDir(flagName, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("%s: %w", flagName, err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%s: %s is not a directory", flagName, dir)
	}
	return abs, nil
}

// errInterrupted is a one-shot render's error when a signal ended it.
var errInterrupted = errors.New("interrupted")

// renderOnce renders req for a command that renders and exits. While it
// runs, the first Ctrl-C or SIGTERM cancels the render, so a bootstrap hook
// under way is ended with its process group instead of outliving render;
// a second signal has its default effect.
func renderOnce(e *engine.Engine, req engine.Request) (*engine.Result, error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)
	res, err := e.Render(ctx, req)
	if err != nil && ctx.Err() != nil {
		return nil, errInterrupted
	}
	return res, err
}

// inPack rewrites the file names in pack errors that point at a file of
// the user's pack directory to DIR/file, so people can tell their own
// files from the built-in ones.
func inPack(err error, dir string) error {
	if dir == "" || err == nil {
		return err
	}
	fix := func(e *engine.Error) *engine.Error {
		if e.File == "" || filepath.IsAbs(e.File) {
			return e
		}
		// Lstat: a symlink that leads nowhere is still the pack's file.
		if _, statErr := os.Lstat(filepath.Join(dir, filepath.FromSlash(e.File))); statErr != nil {
			return e
		}
		c := *e
		c.File = filepath.ToSlash(filepath.Join(dir, filepath.FromSlash(e.File)))
		return &c
	}
	var list engine.ErrorList
	if errors.As(err, &list) {
		out := make(engine.ErrorList, len(list))
		for i, e := range list {
			out[i] = fix(e)
		}
		return out
	}
	var one *engine.Error
	if errors.As(err, &one) {
		return fix(one)
	}
	return err
}

// packFS is the built-in pack, overlaid by dir when given.
func packFS(dir string) iofs.FS {
	if dir == "" {
		return vfs.Pack(sysprompt.Pack, nil)
	}
	return vfs.Pack(sysprompt.Pack, vfs.OSDir(dir))
}

// readInput reads a request file, or stdin for "-".
func readInput(name string, stdin io.Reader) ([]byte, string, error) {
	if name == "-" {
		b, err := readBounded(stdin)
		return b, "<stdin>", err
	}
	b, err := readFile(name)
	return b, name, err
}

// readFile reads a request or config file through readBounded.
func readFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Presized from the file's size: one allocation instead of a doubling
	// series on every cold start.
	var b bytes.Buffer
	if fi, err := f.Stat(); err == nil {
		b.Grow(int(min(max(fi.Size(), 0), engine.MaxRequestBytes)) + bytes.MinRead)
	}
	if _, err := b.ReadFrom(io.LimitReader(f, engine.MaxRequestBytes+1)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// readBounded reads one byte past the largest document the parsers
// accept, so an oversized input is refused by the parser, with its
// position, and never held whole.
func readBounded(r io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, engine.MaxRequestBytes+1))
}

func cmdRender(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("render", stdout, stderr)
	var c common
	c.register(fs)
	c.registerRequest(fs)
	format := fs.String("format", "text", "output `FORMAT`: text, json, anthropic or openai")
	boundary := fs.Bool("boundary", true, "keep the cache boundary marker in text output")
	out := fs.String("o", "", "write the prompt to `FILE` (atomically)")
	version := fs.Bool("version", false, "print render's version and exit")
	var pf providerFlags
	pf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *version {
		if n := len(setFlags(fs)); n > 1 {
			return &usageError{"-version prints the version only; give it alone"}
		}
		return cmdVersion(nil, stdin, stdout, stderr)
	}
	switch *format {
	case "text", "json", "anthropic", "openai":
	default:
		return &usageError{fmt.Sprintf("-format %s: want text, json, anthropic or openai", echo.Quote(*format))}
	}
	if err := pf.check(fs, *format); err != nil {
		return err
	}
	if setFlags(fs)["boundary"] && *format != "text" {
		return &usageError{fmt.Sprintf("-boundary applies to text output only; -format %s always keeps the stable and dynamic parts apart", *format)}
	}
	if err := c.validate(); err != nil {
		return err
	}
	e, req, err := c.load(stdin)
	if err != nil {
		return err
	}
	res, err := renderOnce(e, req)
	if err != nil {
		return inPack(err, c.pack)
	}
	var buf bytes.Buffer
	switch *format {
	case "text":
		writeText(&buf, res, *boundary)
	case "json":
		err = writeJSON(&buf, res)
	case "anthropic", "openai":
		err = c.placeTool(pf.write(&buf, *format, res, req.Runtime))
	}
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = stdout.Write(buf.Bytes())
		return err
	}
	return writeAtomic(*out, buf.Bytes())
}

// checkPackDir refuses a -pack that is not a pack directory before
// anything runs; an empty dir means no user pack. A folder with neither
// sections/ nor templates/ would overlay nothing, which is almost always
// a wrong path rather than a wish for the built-in pack.
func checkPackDir(dir string) error {
	if err := checkPackFolder(dir); err != nil || dir == "" {
		return err
	}
	for _, sub := range packFolders {
		if info, err := os.Stat(filepath.Join(dir, sub)); err == nil && info.IsDir() {
			return nil
		}
	}
	return fmt.Errorf("-pack: %s has neither sections/ nor templates/, so it would change nothing; 'render eject DIR' writes a pack to start from", dir)
}

// packFolders are the folders of a -pack that the pack is read from.
var packFolders = []string{"sections", "templates"}

// packReadFolders are every folder the pack reads files from: each is
// stamped (serve) or watched (watch) as a tree of its own, since any may
// be a symlink to a folder kept elsewhere, which a tree's walk does not
// follow.
var packReadFolders = []string{"sections", "templates", filepath.Join("templates", "overlays")}

// checkPackFolder refuses a -pack that is missing or not a directory.
func checkPackFolder(dir string) error {
	if dir == "" {
		return nil
	}
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("-pack: %w", err)
	}
	if !info.IsDir() {
		return fmt.Errorf("-pack: %s is not a directory", dir)
	}
	return nil
}

// writeText prints each layer; a harness with several layers gets a
// header line per layer.
func writeText(w io.Writer, res *engine.Result, boundary bool) {
	for i, l := range res.Layers {
		if len(res.Layers) > 1 {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "<!-- layer: %s -->\n", l.Name)
		}
		if boundary {
			io.WriteString(w, l.Text)
		} else {
			io.WriteString(w, l.TextWithoutBoundary())
		}
	}
}

type jsonSection struct {
	ID         string `json:"id"`
	Tier       string `json:"tier"`
	Start      int    `json:"start"`
	End        int    `json:"end"`
	Chars      int    `json:"chars"`
	Overridden bool   `json:"overridden,omitempty"`
}

type jsonLayer struct {
	Name         string        `json:"name"`
	Stable       string        `json:"stable"`
	Dynamic      string        `json:"dynamic"`
	Text         string        `json:"text"`
	StableSHA256 string        `json:"stable_sha256"`
	Sections     []jsonSection `json:"sections"`
}

// renderDoc is the -format json document: every layer with its stable
// and dynamic text and where each section landed.
type renderDoc struct {
	SchemaVersion int         `json:"schema_version"`
	Mode          string      `json:"mode"`
	Harness       string      `json:"harness"`
	Boundary      string      `json:"boundary"`
	Layers        []jsonLayer `json:"layers"`
}

// renderDocument builds the -format json document for a result.
func renderDocument(res *engine.Result) renderDoc {
	doc := renderDoc{SchemaVersion: report.SchemaVersion, Mode: string(res.Mode), Harness: res.Harness, Boundary: res.Boundary,
		Layers: make([]jsonLayer, 0, len(res.Layers))}
	for _, l := range res.Layers {
		jl := jsonLayer{Name: l.Name, Stable: l.Stable, Dynamic: l.Dynamic, Text: l.Text, StableSHA256: l.StableSHA256(), Sections: []jsonSection{}}
		for _, s := range l.Sections {
			jl.Sections = append(jl.Sections, jsonSection{s.ID, string(s.Tier), s.Start, s.End, s.Chars, s.Overridden})
		}
		doc.Layers = append(doc.Layers, jl)
	}
	return doc
}

func writeJSON(w io.Writer, res *engine.Result) error {
	return encodeJSON(w, renderDocument(res))
}

func cmdLint(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("lint", stdout, stderr)
	pack := fs.String("pack", "", "user pack `DIR` to validate (over the built-in pack)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkPackDir(*pack); err != nil {
		return err
	}
	requests, err := lintRequests(fs.Args())
	if err != nil {
		return err
	}
	res := engine.Lint(packFS(*pack), requests...)
	for _, w := range res.Warnings {
		fmt.Fprintf(stdout, "warning: %s\n", inPack(w, *pack))
	}
	if len(res.Errors) == 0 {
		fmt.Fprintf(stdout, "ok: %s, %s; no stable section reads a volatile field\n", plural(res.Sections, "section"), plural(res.Harnesses, "harness"))
	}
	if *pack != "" {
		replaced, added, err := vfs.Overrides(sysprompt.Pack, vfs.OSDir(*pack))
		if err != nil {
			return err
		}
		for _, f := range replaced {
			fmt.Fprintf(stdout, "overrides %s\n", f)
		}
		for _, f := range added {
			fmt.Fprintf(stdout, "adds %s\n", f)
		}
	}
	if len(res.Errors) > 0 {
		return inPack(res.Errors, *pack)
	}
	return nil
}

// lintRequests reads the request files lint executes besides the ones
// it generates.
func lintRequests(files []string) ([]engine.LintRequest, error) {
	out := make([]engine.LintRequest, 0, len(files))
	for _, name := range files {
		src, err := readFile(name)
		if err != nil {
			return nil, err
		}
		req, err := engine.ParseRequest(name, src)
		if err != nil {
			return nil, err
		}
		out = append(out, engine.LintRequest{Name: name, Request: req})
	}
	return out, nil
}

func cmdEject(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("eject", stdout, stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 {
		return &usageError{"eject takes the directory to write the pack to, then the files to write if not all"}
	}
	dir, files := fs.Arg(0), fs.Args()[1:]
	for i, name := range files {
		files[i] = filepath.ToSlash(name)
		if err := packFileExists(files[i]); err != nil {
			return err
		}
	}
	if err := vfs.Eject(sysprompt.Pack, afero.NewOsFs(), dir, files...); err != nil {
		return err
	}
	what := "the built-in pack"
	if len(files) > 0 {
		what = strings.Join(files, ", ") + " of the built-in pack"
	}
	fmt.Fprintf(stdout, "wrote %s to %s; render with -pack %s\n", what, dir, dir)
	return nil
}

// packFileExists refuses a name that is not a file of the built-in pack,
// with the nearest one that is.
func packFileExists(name string) error {
	if fi, err := iofs.Stat(sysprompt.Pack, name); err == nil && fi.Mode().IsRegular() && iofs.ValidPath(name) {
		return nil
	}
	var all, bases []string
	byBase := map[string]string{}
	iofs.WalkDir(sysprompt.Pack, ".", func(p string, d iofs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			all, bases = append(all, p), append(bases, path.Base(p))
			byBase[path.Base(p)] = cmp.Or(byBase[path.Base(p)], p)
		}
		return nil
	})
	near := hint.Nearest(name, all)
	if near == "" {
		// "safety.md.tmpl" for "sections/safety.md.tmpl".
		near = cmp.Or(byBase[path.Base(name)], byBase[hint.Nearest(path.Base(name), bases)])
	}
	help := "; files are named as in the pack, such as sections/safety.md.tmpl"
	if near != "" {
		help = " (did you mean " + near + "?)"
	}
	return fmt.Errorf("eject: %s is not a file of the built-in pack%s", echo.Quote(name), help)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "s") {
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
