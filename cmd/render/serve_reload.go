package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/sysprompt/sysprompt/engine"
)

// server holds serve's one engine. The engine re-reads workspace files
// itself, by file identity, on every render; what it compiled once, the
// -pack tree and the -config file, is watched here, and the engine is
// built again on the first request after either changed.
type server struct {
	c       *common
	sources *sourceWatch // nil without -pack and -config
	e       *engine.Engine
	err     error // why the changed sources do not build, until they do
	stderr  io.Writer

	mu      sync.Mutex // held while a reply is written, and for the two below
	stopped bool       // by a signal: answer no more lines
	busy    bool       // a line is being answered: its render uses e and sources
}

// newServer builds the engine the flags describe, after starting to
// watch its sources, so that an edit made during the build is not lost.
func newServer(c *common) (*server, error) {
	if err := checkPackDir(c.pack); err != nil {
		return nil, err
	}
	sources, err := newSourceWatch(c.pack, c.config)
	if err != nil {
		return nil, err
	}
	e, err := c.engine()
	if err != nil {
		if sources != nil {
			sources.close()
		}
		return nil, inPack(err, c.pack)
	}
	return &server{c: c, sources: sources, e: e, stderr: c.stderr}, nil
}

// begin marks a request's arrival, for the check engine makes.
func (s *server) begin() {
	if s.sources != nil {
		s.sources.begin()
	}
}

// engine returns the engine for the request begun last, rebuilt when a
// source changed before it arrived, or the error the sources give while
// they do not build.
func (s *server) engine() (*engine.Engine, error) {
	if s.sources != nil && s.sources.changed() {
		s.rebuild()
	}
	return s.e, s.err
}

// rebuild replaces the engine; a pack or config that fails leaves none,
// since rendering with the old one would hide the edit. Its errors go to
// stderr in full, once, and to each request as one line.
func (s *server) rebuild() {
	if s.e != nil {
		s.e.Close()
		s.e = nil
	}
	// A pack emptied while serve runs stands for the built-in pack again;
	// only a folder that is gone is an error. cmdServe checked the start.
	s.err = checkPackFolder(s.c.pack)
	if s.err == nil {
		s.e, s.err = s.c.engine()
		s.err = inPack(s.err, s.c.pack)
	}
	if s.err != nil {
		printError(s.err, s.stderr) // every error of a list, one a line
	}
}

// close releases the engine and the sources' watch, unless a render a
// signal left behind still uses them: the process is about to exit, and
// only the marks' folder would outlive it.
func (s *server) close() {
	s.mu.Lock()
	busy := s.busy
	s.mu.Unlock()
	if busy {
		if s.sources != nil {
			os.RemoveAll(s.sources.dir) // set once, before any render
		}
		return
	}
	if s.e != nil {
		s.e.Close()
	}
	if s.sources != nil {
		s.sources.close()
	}
}

// sourceWatch says, on each request, whether the -pack tree or the
// -config file changed since the last one. It reuses watch's targets,
// and adds a barrier, so that an edit finished before a request was sent
// is never reported late: when a request arrives, a byte is written to a
// marker file in a private folder, and the events are read up to the
// marker's own. inotify queues all of a watcher's events in the order
// they happen, so the edit's come first. (Other systems' watchers give
// no such order; there an edit shows once its event is read, usually by
// the next request.)
type sourceWatch struct {
	w       *fsnotify.Watcher
	targets watchTargets
	pack    string
	dir     string      // the private folder
	marks   [2]*os.File // written in turn: two writes in a row to one file may give one event
	sent    uint64      // marks written
	seen    uint64      // mark events read
	lost    bool        // a mark was not written, or events were lost: start again
	timer   *time.Timer
}

// markWait bounds the wait for a mark's event. Past it, the sources
// count as changed, which costs a rebuild and never a stale prompt.
const markWait = time.Second

// markByte is what a mark writes.
var markByte = []byte{0}

func newSourceWatch(pack, config string) (*sourceWatch, error) {
	if pack == "" && config == "" {
		return nil, nil
	}
	s := &sourceWatch{targets: newWatchTargets(common{pack: pack, config: config}), pack: pack, timer: time.NewTimer(markWait)}
	s.timer.Stop()
	if err := s.start(); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *sourceWatch) start() error {
	dir, err := os.MkdirTemp("", "render-serve-")
	if err != nil {
		return fmt.Errorf("a folder for serve's change marks: %w", err)
	}
	s.dir = dir
	for i := range s.marks {
		if s.marks[i], err = os.Create(filepath.Join(dir, strconv.Itoa(i))); err != nil {
			return fmt.Errorf("serve's change marks: %w", err)
		}
	}
	return s.watch()
}

// watch starts a watcher on the sources and the marks' folder.
func (s *sourceWatch) watch() error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	s.w, s.sent, s.seen, s.lost = w, 0, 0, false
	dirs := append([]string{s.dir}, s.targets.dirs...)
	for _, d := range dirs {
		if err := w.Add(d); err != nil {
			return fmt.Errorf("watching %s: %w", d, err)
		}
	}
	if s.pack != "" {
		// The pack folder's parent too, so that a pack deleted and made
		// again is seen; relevant ignores the parent's other entries.
		if abs, err := filepath.Abs(s.pack); err == nil {
			w.Add(filepath.Dir(abs))
		}
	}
	return nil
}

// begin marks a request's arrival, as soon as its line is read, so that
// the mark's event is on its way while the request is parsed.
func (s *sourceWatch) begin() {
	if _, err := s.marks[s.sent%2].WriteAt(markByte, 0); err != nil {
		s.lost = true
		return
	}
	s.sent++
}

// changed reports whether a source changed before the last begin.
func (s *sourceWatch) changed() bool {
	if s.lost {
		s.restart()
		return true
	}
	s.timer.Reset(markWait)
	defer s.timer.Stop()
	changed := false
	for s.seen < s.sent {
		select {
		case ev, ok := <-s.w.Events:
			switch {
			case !ok:
				s.restart()
				return true
			case filepath.Dir(ev.Name) == s.dir:
				s.seen++
			case s.targets.relevant(ev.Name):
				changed = true
			}
		case <-s.w.Errors: // events may have been lost
			s.restart()
			return true
		case <-s.timer.C:
			s.restart()
			return true
		}
	}
	if changed {
		s.watchNewDirs()
	}
	return changed
}

// restart replaces the watcher after events may have been lost, so that
// no stale mark is counted for a later request. Until a watcher starts,
// every request counts as a change.
func (s *sourceWatch) restart() {
	s.w.Close()
	if s.watch() != nil {
		s.lost = true
	}
}

// watchNewDirs adds the folders made in the pack since it was last
// walked (a new sections/ subfolder, a pack made again).
func (s *sourceWatch) watchNewDirs() {
	for _, d := range newWatchTargets(common{pack: s.pack}).dirs {
		s.w.Add(d)
	}
}

func (s *sourceWatch) close() {
	if s.w != nil {
		s.w.Close()
	}
	for _, f := range s.marks {
		if f != nil {
			f.Close()
		}
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}
