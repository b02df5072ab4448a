package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/afero"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"
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
	// A bug is a failure like any other: one line and exit 1, not a Go
	// stack trace and the exit status 2 that usage errors have.
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(stderr, "render: internal error: %v\n", v)
			code = exitFail
		}
	}()
	cmd := "render"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "render":
		err = cmdRender(args, stdin, stdout, stderr)
	case "lint":
		err = cmdLint(args, stdout, stderr)
	case "eject":
		err = cmdEject(args, stdout, stderr)
	case "report":
		err = cmdReport(args, stdin, stdout, stderr)
	case "explain":
		err = cmdExplain(args, stdin, stdout, stderr)
	case "diff":
		err = cmdDiff(args, stdin, stdout, stderr)
	case "snapshots":
		err = cmdSnapshots(args, stdout, stderr)
	case "watch":
		err = cmdWatch(args, stdin, stdout, stderr)
	case "serve":
		err = cmdServe(args, stdin, stdout, stderr)
	case "help":
		printUsage(stdout)
		return exitOK
	default:
		err = &usageError{fmt.Sprintf("unknown command %q (want lint, eject, report, explain, diff, snapshots, watch, serve, or flags for a render)", cmd)}
	}
	return exitCode(err, stderr)
}

// exitCode prints err as one line and returns the exit code for it.
func exitCode(err error, stderr io.Writer) int {
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errStableDiffers):
		return exitFail
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "render: %s\nRun 'render -h' for usage.\n", ue.msg)
		return exitUsage
	}
	// A pack with several problems lists them all, first one first.
	var list engine.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			fmt.Fprintf(stderr, "render: %s\n", e)
		}
		return exitFail
	}
	fmt.Fprintf(stderr, "render: %s\n", err)
	return exitFail
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `Usage:
  render [flags]                     render a prompt to stdout (or -o FILE)
  render lint  [-pack DIR]           validate a pack; exit 1 on any error
  render eject DIR                   write the built-in pack to DIR
  render report [list|detail|json]   the context report for the same flags as a render
  render explain                     every section of the pack: rendered, or why not
  render diff [flags] A B            render two requests; exit 1 if a stable prefix differs
  render snapshots gen|check         write or verify the golden snapshots
  render help                        print this help
  render watch [flags]               re-render on every change; print a diff and a status line
  render serve [flags]               answer JSON requests on stdin, one a line, on one warm engine

Flags:
`)
}

// common holds the flags every render-like command takes.
type common struct {
	pack, workspace, request, config, agent string
	mode, harness, state, hook              string
	bundledSkills                           string

	preview      bool      // a preview command: never record warnings as shown
	watchSkills  bool      // watch: the engine watches skills folders for changes
	workspaceAbs string    // set by engine(): the absolute -workspace path
	stderr       io.Writer // set by register(): where warnings go
}

func (c *common) register(fs *flag.FlagSet) {
	c.stderr = fs.Output() // newFlagSet points it at the command's stderr
	fs.StringVar(&c.pack, "pack", "", "user pack `DIR` overlaying the built-in pack")
	fs.StringVar(&c.workspace, "workspace", "", "agent workspace `DIR` (read-only)")
	fs.StringVar(&c.request, "request", "", "request `FILE`, TOML or JSON (- for stdin)")
	fs.StringVar(&c.config, "config", "", "agent config `FILE` (TOML)")
	fs.StringVar(&c.agent, "agent", "", "agent `ID` from [[agents.list]]")
	fs.StringVar(&c.mode, "mode", "", "prompt `MODE`: full, minimal or none")
	fs.StringVar(&c.harness, "harness", "", "harness `NAME` from the manifest")
	fs.StringVar(&c.state, "state", "", "`FILE` keeping seen truncation warnings")
	fs.StringVar(&c.hook, "hook", "", "agent:bootstrap hook `CMD`")
	fs.StringVar(&c.bundledSkills, "bundled-skills", "", "bundled skills `DIR` (below managed, above skills.load.extraDirs)")
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		printUsage(fs.Output())
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags, turning flag errors into usage errors. The flag
// package's own messages are silenced so an error prints as one line;
// -h prints the usage to stderr.
func parse(fs *flag.FlagSet, args []string) error {
	out := fs.Output()
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(out)
	if errors.Is(err, flag.ErrHelp) {
		fs.Usage()
		return err
	}
	if err != nil {
		return &usageError{err.Error()}
	}
	return nil
}

// parseFlags is parse for commands that take no arguments besides flags.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return &usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}

// load builds the engine and the request the flags describe.
func (c *common) load(stdin io.Reader) (*engine.Engine, engine.Request, error) {
	e, err := c.engine()
	if err != nil {
		return nil, engine.Request{}, err
	}
	req, err := c.requestFrom(c.request, stdin)
	return e, req, err
}

// requestFrom reads the request in name ("" for none, "-" for stdin) and
// applies the flags that override request fields.
func (c *common) requestFrom(name string, stdin io.Reader) (engine.Request, error) {
	var req engine.Request
	if name != "" {
		src, label, err := readInput(name, stdin)
		if err != nil {
			return req, err
		}
		if req, err = engine.ParseRequest(label, src); err != nil {
			return req, err
		}
	}
	return req, c.override(&req)
}

// override applies the flags that override request fields.
func (c *common) override(req *engine.Request) error {
	if c.mode != "" {
		switch engine.Mode(c.mode) {
		case engine.ModeFull, engine.ModeMinimal, engine.ModeNone:
			req.Mode = engine.Mode(c.mode)
		default:
			return &usageError{fmt.Sprintf("-mode %q: want full, minimal or none", c.mode)}
		}
	}
	if c.harness != "" {
		req.Harness = c.harness
	}
	if c.agent != "" {
		req.Agent = c.agent
	}
	if c.workspaceAbs != "" {
		req.Workspace.Path = c.workspaceAbs
	}
	return nil
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
		opts = append(opts, engine.WithFS(vfs.OS()))
	}
	opts = append(opts, engine.WithSkillHost(hostFacts()))
	if c.bundledSkills != "" {
		dir, err := existingDir("-bundled-skills", c.bundledSkills)
		if err != nil {
			return nil, err
		}
		opts = append(opts, engine.WithBundledSkills(vfs.OS(), dir, filepath.ToSlash(dir)))
	}
	if c.watchSkills {
		opts = append(opts, engine.WithSkillsWatch())
	}
	if c.state != "" {
		// A state file that cannot be used costs at most a repeated notice.
		fileStore := bootstrap.NewFileStore(afero.NewOsFs(), c.state, func(err error) {
			fmt.Fprintf(c.stderr, "render: warning: %s\n", err)
		})
		var store bootstrap.Store = fileStore
		if c.preview {
			store = readOnlyStore{fileStore}
		}
		opts = append(opts, engine.WithWarningStore(store))
	}
	if c.hook != "" {
		opts = append(opts, engine.WithBootstrapHook(bootstrap.CommandHook(c.hook, hookTimeout)))
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

// readOnlyStore lets preview commands (report, explain, diff, watch) see
// which truncation warnings were shown without claiming or using any up.
type readOnlyStore struct{ *bootstrap.FileStore }

func (s readOnlyStore) Claim(ctx context.Context, signature string) (bool, error) {
	seen, err := s.Seen(ctx, signature)
	return !seen, err
}

func (readOnlyStore) Remember(context.Context, string) error { return nil }

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
		if _, statErr := os.Stat(filepath.Join(dir, filepath.FromSlash(e.File))); statErr != nil {
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
	return readBounded(f)
}

// readBounded reads one byte past the largest document the parsers
// accept, so an oversized input is refused by the parser, with its
// position, and never held whole.
func readBounded(r io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, engine.MaxRequestBytes+1))
}

func cmdRender(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("render", stderr)
	var c common
	c.register(fs)
	format := fs.String("format", "text", "output `FORMAT`: text, json or anthropic")
	boundary := fs.Bool("boundary", true, "keep the cache boundary marker in text output")
	out := fs.String("o", "", "write the prompt to `FILE` (atomically)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch *format {
	case "text", "json", "anthropic":
	default:
		return &usageError{fmt.Sprintf("-format %q: want text, json or anthropic", *format)}
	}
	if err := checkPackDir(c.pack); err != nil {
		return err
	}
	e, req, err := c.load(stdin)
	if err != nil {
		return err
	}
	res, err := e.Render(context.Background(), req)
	if err != nil {
		return inPack(err, c.pack)
	}
	var buf bytes.Buffer
	switch *format {
	case "text":
		writeText(&buf, res, *boundary)
	case "json":
		err = writeJSON(&buf, res)
	case "anthropic":
		err = writeAnthropic(&buf, res)
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

// checkPackDir refuses a -pack that is not a directory before anything
// runs; an empty dir means no user pack.
func checkPackDir(dir string) error {
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

// renderDoc is the document -format json prints for a render.
type renderDoc struct {
	Mode     string      `json:"mode"`
	Harness  string      `json:"harness"`
	Boundary string      `json:"boundary"`
	Layers   []jsonLayer `json:"layers"`
}

func renderDocument(res *engine.Result) renderDoc {
	doc := renderDoc{Mode: string(res.Mode), Harness: res.Harness, Boundary: res.Boundary}
	for _, l := range res.Layers {
		jl := jsonLayer{Name: l.Name, Stable: l.Stable, Dynamic: l.Dynamic, Text: l.Text, StableSHA256: l.StableSHA256, Sections: []jsonSection{}}
		for _, s := range l.Sections {
			jl.Sections = append(jl.Sections, jsonSection{s.ID, string(s.Tier), s.Start, s.End, s.Chars, s.Overridden})
		}
		doc.Layers = append(doc.Layers, jl)
	}
	return doc
}

func writeJSON(w io.Writer, res *engine.Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(renderDocument(res))
}

// writeAnthropic prints the system blocks of an Anthropic Messages
// request: the stable block marked for caching, the dynamic one not.
func writeAnthropic(w io.Writer, res *engine.Result) error {
	if len(res.Layers) != 1 {
		return fmt.Errorf("-format anthropic needs a harness with one layer; %q has %d", res.Harness, len(res.Layers))
	}
	type cacheControl struct {
		Type string `json:"type"`
	}
	type block struct {
		Type         string        `json:"type"`
		Text         string        `json:"text"`
		CacheControl *cacheControl `json:"cache_control,omitempty"`
	}
	l := res.Layers[0]
	blocks := []block{}
	if l.Stable != "" {
		blocks = append(blocks, block{Type: "text", Text: l.Stable, CacheControl: &cacheControl{Type: "ephemeral"}})
	}
	if l.Dynamic != "" {
		blocks = append(blocks, block{Type: "text", Text: l.Dynamic})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		System []block `json:"system"`
	}{blocks})
}

// writeAtomic writes data to a temporary file beside name and renames it
// into place, so a reader never sees a half-written prompt. A new file
// gets the usual 0666 less the umask; a replaced one keeps its mode; a
// symlink is followed, so the file it points to is the one replaced. A
// file without any write permission is refused.
func writeAtomic(name string, data []byte) error {
	target := name
	if resolved, err := filepath.EvalSymlinks(name); err == nil {
		target = resolved
	}
	// The rename needs only the directory to be writable, so it would
	// replace a file its owner made read-only, which a plain write would
	// not; root is refused too, since the mode says the file is to be kept.
	if info, err := os.Stat(target); err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o222 == 0 {
		what := "" // "-o out.md: is read-only", like "-o dir: is a directory"
		if target != name {
			what = "its target " + target + " "
		}
		return fmt.Errorf("-o %s: %sis read-only (mode %04o); not replacing it", name, what, info.Mode().Perm())
	}
	if err := vfs.WriteFileAtomic(afero.NewOsFs(), target, data, 0o666); err != nil {
		var pe *iofs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // it names target; the user gave name
		}
		return fmt.Errorf("-o %s: %w", name, err)
	}
	return nil
}

func cmdLint(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("lint", stderr)
	pack := fs.String("pack", "", "user pack `DIR` to validate (over the built-in pack)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkPackDir(*pack); err != nil {
		return err
	}
	res := engine.Lint(packFS(*pack))
	for _, w := range res.Warnings {
		fmt.Fprintf(stdout, "warning: %s\n", inPack(w, *pack))
	}
	if len(res.Errors) > 0 {
		return inPack(res.Errors, *pack)
	}
	fmt.Fprintf(stdout, "ok: %s, %s; no stable section reads a volatile field\n", plural(res.Sections, "section"), plural(res.Harnesses, "harness"))
	return nil
}

func cmdEject(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eject", stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return &usageError{"eject takes one argument: the directory to write the pack to"}
	}
	dir := fs.Arg(0)
	if err := vfs.Eject(sysprompt.Pack, afero.NewOsFs(), dir); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote the built-in pack to %s; render with -pack %s\n", dir, dir)
	return nil
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

// hostFacts are the real host's facts for skills: the CLI is a runtime
// adapter, so it may look at the machine; the engine never does. The
// user's skills folders (~/.agents/skills, skills.managedDir,
// skills.load.extraDirs) are read from the real disk, with or without a
// -workspace.
func hostFacts() engine.SkillHost {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	home, _ := os.UserHomeDir()
	return engine.SkillHost{
		OS:       runtime.GOOS,
		LookPath: func(bin string) bool { _, err := exec.LookPath(bin); return err == nil },
		Env:      env,
		Home:     filepath.ToSlash(home),
		FS:       vfs.OS(),
	}
}
