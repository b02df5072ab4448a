package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rogpeppe/go-internal/diff"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/report"
)

// debounce is how long watch waits after a change for more changes
// before it renders: editors often write a file in several steps.
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
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	targets := newWatchTargets(c)
	for _, p := range targets.dirs {
		if err := w.Add(p); err != nil {
			return fmt.Errorf("watching %s: %w", p, err)
		}
	}
	// The first Ctrl-C (or a SIGTERM) ends watch: it cancels the render
	// under way, and watchLoop returns without waiting for it to notice.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	changes := make(chan string)
	go forwardChanges(ctx, w, targets, changes, stderr)
	c.preview, c.watchSkills = true, true
	var r watchRenderer
	renderOnce := func() (*engine.Result, error) { return r.render(ctx, &c, stdin) }
	if !watchLoop(ctx, changes, renderOnce, stdout, stderr) {
		r.close() // else a render still uses it; the process is about to exit
	}
	return nil
}

// forwardChanges sends the names of relevant changes on changes until ctx
// ends or the watcher closes, then closes changes.
func forwardChanges(ctx context.Context, w *fsnotify.Watcher, targets watchTargets, changes chan<- string, stderr io.Writer) {
	defer close(changes)
	for {
		select {
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if !targets.relevant(ev.Name) {
				continue // another file in the request's folder, say
			}
			if ev.Op&fsnotify.Create != 0 {
				// Watch new directories too (a new skill folder).
				if info, err := os.Stat(ev.Name); err == nil && info.IsDir() {
					w.Add(ev.Name)
				}
			}
			select {
			case changes <- ev.Name:
			case <-ctx.Done():
				return
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			fmt.Fprintf(stderr, "render: watch: %v\n", err)
		case <-ctx.Done():
			return
		}
	}
}

// watchRenderer renders on each change with a new engine, which reloads
// the pack and config and also watches the skills folders it reads; it
// closes each engine once the next one is built, and the last on close.
type watchRenderer struct {
	e *engine.Engine
}

func (r *watchRenderer) render(ctx context.Context, c *common, stdin io.Reader) (*engine.Result, error) {
	next, req, err := c.load(stdin)
	if err != nil {
		if next != nil {
			next.Close() // built before the request failed to load
		}
		return nil, err
	}
	r.close()
	r.e = next
	res, err := r.e.Render(ctx, req)
	return res, inPack(err, c.pack)
}

func (r *watchRenderer) close() {
	if r.e != nil {
		r.e.Close()
		r.e = nil
	}
}

// watchTargets says what watch listens to: the pack and workspace trees,
// and the request and config files. Files are watched through their
// folders, since editors save by renaming a new file into place, which a
// watch on the file itself would miss; other files in those folders are
// ignored (the prompt may well be written next to the request).
type watchTargets struct {
	dirs  []string        // folders to watch
	trees []string        // any change under these counts
	files map[string]bool // changes to exactly these count
}

func newWatchTargets(c common) watchTargets {
	t := watchTargets{files: map[string]bool{}}
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			t.dirs = append(t.dirs, p)
		}
	}
	for _, root := range []string{c.pack, c.workspace} {
		if root == "" {
			continue
		}
		abs, err := filepath.Abs(root)
		if err != nil {
			continue
		}
		t.trees = append(t.trees, abs)
		filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				add(p)
			}
			return nil
		})
	}
	for _, f := range []string{c.request, c.config} {
		if abs, err := filepath.Abs(f); err == nil && f != "" {
			t.files[abs] = true
			add(filepath.Dir(abs))
		}
	}
	return t
}

// relevant reports whether a change to name should trigger a render.
func (t watchTargets) relevant(name string) bool {
	abs, err := filepath.Abs(name)
	if err != nil {
		return false
	}
	if t.files[abs] {
		return true
	}
	for _, root := range t.trees {
		if abs == root || strings.HasPrefix(abs, root+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// watchLoop renders at start and after each burst of changes until ctx
// ends or changes closes. A failed render prints its error and the loop
// goes on with the last good prompt as the base of the next diff.
//
// renderOnce runs in a goroutine of its own, one call at a time, so that
// the loop returns as soon as ctx ends even if a render ignores it (a
// read stuck on a named pipe, say). It returns whether a render is still
// running, in which case what renderOnce uses must not be closed. A panic
// in renderOnce is raised again in the caller's goroutine, where run
// recovers it.
func watchLoop(ctx context.Context, changes <-chan string, renderOnce func() (*engine.Result, error), stdout, stderr io.Writer) (running bool) {
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
	var last *engine.Result
	show := func(res *engine.Result, err error) {
		if err != nil {
			fmt.Fprintf(stderr, "render: %v\n", err)
			fmt.Fprintln(stdout, "render failed; still watching")
			return
		}
		switch {
		case last == nil:
			io.WriteString(stdout, promptText(res))
			fmt.Fprintln(stdout, status(last, res))
		case promptText(last) == promptText(res):
			fmt.Fprintln(stdout, "-- prompt unchanged")
		default:
			stdout.Write(diff.Diff("previous", []byte(promptText(last)), "current", []byte(promptText(res))))
			fmt.Fprintln(stdout, status(last, res))
		}
		last = res
	}

	start()
	var timer <-chan time.Time
	again := false // changes came in during the running render
	for {
		select {
		case <-ctx.Done():
			return running
		case _, ok := <-changes:
			if !ok {
				return running
			}
			timer = time.After(debounce)
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
				return false // cancelled, not failed: nothing to print
			}
			show(o.res, o.err)
			if again {
				again = false
				start()
			}
		}
	}
}

// promptText is the text output of a render, every layer.
func promptText(res *engine.Result) string {
	var b strings.Builder
	writeText(&b, res, true)
	return b.String()
}

// status is the one line watch prints after each render.
func status(prev, cur *engine.Result) string {
	rep := report.Build(cur, nil)
	if prev == nil {
		return fmt.Sprintf("-- rendered: %s chars, %s tokens", num(rep.Total.Chars), num(rep.Total.Tokens))
	}
	old := report.Build(prev, nil)
	delta := fmt.Sprintf("%s chars, %s tokens", signed(rep.Total.Chars-old.Total.Chars), signed(rep.Total.Tokens-old.Total.Tokens))
	d, err := report.Compare(prev, cur)
	if err != nil {
		return "-- harness changed; " + delta
	}
	var changed []string
	for _, l := range d.Layers {
		if !l.StableIdentical {
			changed = append(changed, fmt.Sprintf("%s layer, section %s", l.Name, l.First.SectionB))
		}
	}
	if len(changed) == 0 {
		return "-- stable prefix unchanged; " + delta
	}
	return "-- stable prefix changed in " + strings.Join(changed, "; ") + "; " + delta
}

func signed(n int) string {
	if n > 0 {
		return "+" + num(n)
	}
	return num(n)
}
