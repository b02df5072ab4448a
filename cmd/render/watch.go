package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/host"
	"github.com/sysprompt/sysprompt/engine/report"
)

// debounce is how long watch waits after the first change of a burst for
// the rest before it renders: editors often write a file in several steps.
const debounce = 150 * time.Millisecond

// cmdWatch renders once, then again after every change to the pack, the
// workspace, the request or the config, printing what changed.
func cmdWatch(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("watch", stdout, stderr)
	var c common
	c.register(fs)
	c.registerRequest(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if c.request == "-" {
		return &usageError{"watch needs -request FILE, not stdin: it re-reads the file on change"}
	}
	if err := c.validate(); err != nil {
		return err
	}
	// The first Ctrl-C (or a SIGTERM) ends watch: it cancels the render
	// under way, and watchLoop returns without waiting for it to notice.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	changes := make(chan string)
	ownOutput := outputFiles(stdout, stderr)
	w, err := host.NewWatch(func(name string) {
		if ownOutput(name) {
			return
		}
		select {
		case changes <- name:
		case <-ctx.Done():
		}
	})
	if err != nil {
		return err
	}
	defer w.Close()
	watchTargets(w, &c)
	c.preview = true
	r := watchRenderer{w: w}
	renderOnce := func() (*engine.Result, error) { return r.render(ctx, &c, stdin) }
	watchLoop(ctx, changes, renderOnce, stdout, stderr)
	host.AwaitHooks(hookExitGrace)
	return nil
}

// outputFiles returns a test for whether a changed file is where watch
// itself writes: stdout or stderr redirected to a file in a watched tree
// (render watch -workspace . > prompt.md), whose every status line would
// otherwise start the next render.
func outputFiles(ws ...io.Writer) func(name string) bool {
	var own []os.FileInfo
	for _, w := range ws {
		if sw, ok := w.(*stdoutWriter); ok {
			w = sw.Writer
		}
		if f, ok := w.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
				own = append(own, fi)
			}
		}
	}
	return func(name string) bool {
		if len(own) == 0 {
			return false
		}
		fi, err := os.Stat(name)
		return err == nil && slices.ContainsFunc(own, func(o os.FileInfo) bool { return os.SameFile(o, fi) })
	}
}

// watchTargets starts w on what watch renders from: the pack and
// workspace trees, and the request and config files. The folders the
// pack reads are trees of their own too (packReadFolders).
func watchTargets(w *host.Watch, c *common) {
	trees := []string{c.pack, c.workspace}
	if c.pack != "" {
		for _, sub := range packReadFolders {
			trees = append(trees, filepath.Join(c.pack, sub))
		}
	}
	for _, tree := range trees {
		if abs, err := filepath.Abs(tree); err == nil && tree != "" {
			w.AddTree(abs)
		}
	}
	for _, file := range []string{c.request, c.config} {
		if abs, err := filepath.Abs(file); err == nil && file != "" {
			w.AddFile(abs)
		}
	}
}

// watchRenderer renders on each change with one engine, built again only
// when the pack or the config changed (checked by file identity, as
// serve does). It tells the engine skills changed before each render, so
// every render shows the skills on disk, and adds the skills folders a
// render read to the watch, so that an edit under any of them (the
// user's own, outside the workspace, too) renders again.
type watchRenderer struct {
	w       *host.Watch
	e       *engine.Engine
	sources *host.Sources
}

func (r *watchRenderer) render(ctx context.Context, c *common, stdin io.Reader) (*engine.Result, error) {
	if r.e == nil || r.sources.Changed() {
		r.e = nil
		r.sources = c.sources()
		// As in serve: a pack folder gone is an error, not the built-in
		// pack, which c.engine would take it for.
		if err := checkPackFolder(c.pack); err != nil {
			return nil, err
		}
		e, err := c.engine()
		if err != nil {
			return nil, err
		}
		r.e = e
	}
	req, err := c.requestFrom(r.e, c.request, stdin)
	if err != nil {
		return nil, err
	}
	r.e.SkillsChanged()
	res, err := r.e.Render(ctx, req)
	if res != nil {
		for _, dir := range res.SkillDirs {
			r.w.AddTree(dir)
		}
	}
	return res, inPack(err, c.pack)
}

// watchLoop renders at start and after each burst of changes until ctx
// ends or changes closes. A failed render prints its error and the loop
// goes on with the last good prompt as the base of the next diff.
//
// renderOnce runs in a goroutine of its own, one call at a time, so that
// the loop returns as soon as ctx ends even if a render ignores it (a
// read stuck on a named pipe, say); the process is about to exit then.
// A panic in renderOnce is raised again in the caller's goroutine, where
// run recovers it.
func watchLoop(ctx context.Context, changes <-chan string, renderOnce func() (*engine.Result, error), stdout, stderr io.Writer) {
	running := false
	type outcome struct {
		res      *engine.Result
		err      error
		panicked any
	}
	// Buffered, so that a render finishing after the loop has returned
	// does not block forever.
	done := make(chan outcome, 1)
	start := func() {
		running = true
		go func() {
			var o outcome
			defer func() {
				o.panicked = recover()
				done <- o
			}()
			o.res, o.err = renderOnce()
		}()
	}
	out := &watchOutput{stdout: stdout, stderr: stderr, note: statusWriter(stdout, isTerminal(stdout))}

	start()
	var timer <-chan time.Time
	again := false // changes came in during the running render
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-changes:
			if !ok {
				return
			}
			// Set by the first change of a burst, not pushed back by the
			// next: a steady stream (a log written into the workspace)
			// would otherwise put off every render for as long as it lasts.
			if timer == nil {
				timer = time.After(debounce)
			}
		case <-timer:
			timer = nil
			if running {
				again = true
			} else {
				start()
			}
		case o := <-done:
			running = false
			if o.panicked != nil {
				panic(o.panicked)
			}
			if ctx.Err() != nil {
				return // cancelled, not failed: nothing to print
			}
			out.show(o.res, o.err)
			if again {
				again = false
				start()
			}
		}
	}
}

// watchOutput prints each render of a watch: the first prompt whole,
// then a diff against the last good one, and a status line after each.
type watchOutput struct {
	stdout, stderr io.Writer
	note           func(string)
	last           *engine.Result
}

func (w *watchOutput) show(res *engine.Result, err error) {
	if err != nil {
		fmt.Fprintf(w.stderr, "render: %v\n", err)
		w.note("render failed; still watching")
		return
	}
	switch {
	case w.last == nil:
		io.WriteString(w.stdout, promptText(res))
		w.note(status(w.last, res))
	case promptText(w.last) == promptText(res):
		// The prompt prints no schemas; providers cache tools anyway.
		if d, err := report.Compare(w.last, res); err == nil && !d.Tools.Identical {
			w.note("prompt unchanged; tool definitions changed")
		} else {
			w.note("prompt unchanged")
		}
	default:
		w.stdout.Write(diff.Diff("previous", []byte(promptText(w.last)), "current", []byte(promptText(res))))
		w.note(status(w.last, res))
	}
	w.last = res
}

// promptText is the text output of a render, every layer.
func promptText(res *engine.Result) string {
	var b strings.Builder
	writeText(&b, res, true)
	return b.String()
}

// statusPrefix starts each line watch prints of its own. No line of a
// unified diff starts with it ("---", "+++", "@@", " ", "-", "+"), and a
// prompt line is unlikely to ("# " would be any Markdown heading).
const statusPrefix = "[watch] "

// statusWriter returns what prints watch's own lines to w: after
// statusPrefix, and in bold cyan when colour is set, so they stand apart
// from the prompt and the diff.
func statusWriter(w io.Writer, colour bool) func(text string) {
	return func(text string) {
		if colour {
			fmt.Fprintf(w, "\x1b[1;36m%s%s\x1b[0m\n", statusPrefix, text)
			return
		}
		fmt.Fprintf(w, "%s%s\n", statusPrefix, text)
	}
}

// isTerminal reports whether w is a terminal that takes colour: a
// character device, with NO_COLOR unset.
func isTerminal(w io.Writer) bool {
	if sw, ok := w.(*stdoutWriter); ok {
		w = sw.Writer
	}
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// status is the one line watch prints after each render.
func status(prev, cur *engine.Result) string {
	rep := report.Build(cur, nil)
	if prev == nil {
		return fmt.Sprintf("rendered: %s chars, %s tokens", num(rep.Total.Chars), num(rep.Total.Tokens))
	}
	old := report.Build(prev, nil)
	delta := fmt.Sprintf("%s chars, %s tokens", signed(rep.Total.Chars-old.Total.Chars), signed(rep.Total.Tokens-old.Total.Tokens))
	d, err := report.Compare(prev, cur)
	if err != nil {
		return "harness changed; " + delta
	}
	var changed []string
	for _, l := range d.Layers {
		if !l.StableIdentical {
			changed = append(changed, fmt.Sprintf("%s layer, section %s", l.Name, l.First.SectionB))
		}
	}
	line := "stable prefix unchanged; "
	if len(changed) > 0 {
		line = "stable prefix changed in " + strings.Join(changed, "; ") + "; "
	}
	if !d.Tools.Identical {
		// Cached ahead of the prompt: a miss, whatever the prefix did.
		line += "tool definitions changed; "
	}
	return line + delta
}

func signed(n int) string {
	if n > 0 {
		return "+" + num(n)
	}
	return num(n)
}
