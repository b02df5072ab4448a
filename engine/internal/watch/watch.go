// Package watch tells a long-lived engine that something changed under
// the skills folders it read: fsnotify events under a watched root bump a
// change counter, and the engine rebuilds every session's catalog when
// the counter moves. It keeps no data of its own, follows no symlink,
// and bounds how many roots, folders and levels it watches.
package watch

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fsnotify/fsnotify"
)

// Dirs turns changes under watched roots into a bump of a counter. Only
// folders on the real disk can be watched.
type Dirs struct {
	w       *fsnotify.Watcher
	mu      sync.Mutex
	watched map[string]bool
	roots   map[string]bool // skills roots, to tell their events apart in a parent
	done    chan struct{}
}

// Bounds of what one Engine watches.
const (
	maxWatchedRoots = 256
	maxWatchedDirs  = 4096
	maxWatchedDepth = 6
)

// New starts watching nothing yet; every relevant event adds 1 to changed.
func New(changed *atomic.Uint64) (*Dirs, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	sw := &Dirs{w: w, watched: map[string]bool{}, roots: map[string]bool{}, done: make(chan struct{})}
	go sw.loop(changed)
	return sw, nil
}

func (sw *Dirs) loop(changed *atomic.Uint64) {
	defer close(sw.done)
	for {
		select {
		case ev, ok := <-sw.w.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				sw.mu.Lock()
				delete(sw.watched, ev.Name) // the OS dropped its watch
				sw.mu.Unlock()
			}
			if sw.relevant(ev.Name) {
				changed.Add(1)
			}
		case _, ok := <-sw.w.Errors:
			if !ok {
				return
			}
			changed.Add(1) // events may have been lost: assume a change
		}
	}
}

// relevant reports whether an event concerns skills: anything inside a
// skills root, or a root itself appearing or going in its parent.
func (sw *Dirs) relevant(name string) bool {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.roots[name] {
		return true
	}
	for root := range sw.roots {
		if strings.HasPrefix(name, root+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// Add watches the skills root dir, its folders down to a bounded depth,
// and its parent (so that a root created later is noticed). It follows no
// symlink and never fails a render: a folder it cannot watch is left out.
func (sw *Dirs) Add(dir string) {
	dir = filepath.Clean(dir)
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if !sw.roots[dir] && len(sw.roots) >= maxWatchedRoots {
		return // past the bound, a session's catalog is rebuilt only per session
	}
	sw.roots[dir] = true
	sw.addDir(filepath.Dir(dir))
	base := strings.Count(dir, string(filepath.Separator))
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if strings.Count(p, string(filepath.Separator))-base > maxWatchedDepth || len(sw.watched) >= maxWatchedDirs {
			return filepath.SkipDir
		}
		sw.addDir(p)
		return nil
	})
}

func (sw *Dirs) addDir(p string) {
	if sw.watched[p] || len(sw.watched) >= maxWatchedDirs {
		return
	}
	if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
		return
	}
	if sw.w.Add(p) == nil {
		sw.watched[p] = true
	}
}

// Close stops watching and waits for the event loop to end.
func (sw *Dirs) Close() error {
	err := sw.w.Close()
	<-sw.done
	return err
}
