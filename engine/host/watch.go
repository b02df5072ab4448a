package host

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// Watch is a wake-up: it calls a function when something changes under
// the folders and files it is given, and keeps nothing else. What is
// fresh is decided where the data is used (the engine checks every
// workspace file's identity on each render); a watch only says when to
// render again, or, for skills, when to call Engine.SkillsChanged. It
// follows no symlink below a tree's root, and bounds how many trees,
// folders and levels it watches. A Watch is safe for concurrent use.
type Watch struct {
	w        *fsnotify.Watcher
	onChange func(name string)
	done     chan struct{}

	mu      sync.Mutex
	watched map[string]bool // folders given to fsnotify
	trees   map[string]int  // any change under these counts; the folders each added
	files   map[string]bool // changes to exactly these count
}

// Bounds of one Watch. Each tree has its own share of folders, so that a
// big one (a workspace holding node_modules/) cannot leave a later one
// (a skills folder a render reads) unwatched.
const (
	maxWatchedTrees = 256
	maxTreeDirs     = 4096
	maxWatchedDirs  = 16384
	maxWatchedDepth = 6
)

// NewWatch starts a watch of nothing yet; onChange is called, from the
// watch's own goroutine, with the path of every relevant change, and
// with "" when the OS reports that changes may have been lost.
func NewWatch(onChange func(name string)) (*Watch, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	sw := &Watch{w: w, onChange: onChange, done: make(chan struct{}),
		watched: map[string]bool{}, trees: map[string]int{}, files: map[string]bool{}}
	go sw.loop()
	return sw, nil
}

func (sw *Watch) loop() {
	defer close(sw.done)
	for {
		select {
		case ev, ok := <-sw.w.Events:
			if !ok {
				return
			}
			if sw.event(ev) {
				sw.onChange(ev.Name)
			}
		case _, ok := <-sw.w.Errors:
			if !ok {
				return
			}
			sw.onChange("")
		}
	}
}

// event keeps the watch in step with ev and reports whether it counts.
func (sw *Watch) event(ev fsnotify.Event) bool {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		// The OS dropped its watch; what was below the name, if a link
		// or a folder moved away, is no longer there either.
		for p := range sw.watched {
			if p == ev.Name || strings.HasPrefix(p, ev.Name+string(filepath.Separator)) {
				delete(sw.watched, p)
				if root := sw.treeOf(p); sw.trees[root] > 0 {
					sw.trees[root]-- // its share is free again
				}
			}
		}
	}
	if sw.files[ev.Name] {
		return true
	}
	tree := sw.treeOf(ev.Name)
	if tree != "" && ev.Has(fsnotify.Create) {
		sw.addTree(ev.Name, tree) // a new folder: a new skill, say
	}
	return tree != ""
}

// treeOf returns the watched tree name is in, or "".
func (sw *Watch) treeOf(name string) string {
	for root := range sw.trees {
		if name == root || strings.HasPrefix(name, root+string(filepath.Separator)) {
			return root
		}
	}
	return ""
}

// AddTree watches dir and its folders, down to a bounded depth, and its
// parent, so that dir appearing later is noticed too. A folder it cannot
// watch is left out.
func (sw *Watch) AddTree(dir string) {
	dir = filepath.Clean(dir)
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if _, ok := sw.trees[dir]; !ok {
		if len(sw.trees) >= maxWatchedTrees {
			return
		}
		sw.trees[dir] = 0
	}
	sw.addDir(filepath.Dir(dir))
	sw.addTree(dir, dir)
}

// addTree watches dir, inside the tree root, and the folders below it.
// A root that is a symlink to a folder (a -pack or -workspace linking to
// where its files are) is watched through the link, as it is read.
func (sw *Watch) addTree(dir, root string) {
	base := strings.Count(root, string(filepath.Separator))
	start := dir
	if fi, err := os.Lstat(dir); dir == root && err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		start = dir + string(filepath.Separator) // the walk starts at the target
	}
	filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		p = filepath.Clean(p)
		if strings.Count(p, string(filepath.Separator))-base > maxWatchedDepth || sw.trees[root] >= maxTreeDirs || len(sw.watched) >= maxWatchedDirs {
			return filepath.SkipDir
		}
		if sw.addDir(p) {
			sw.trees[root]++
		}
		return nil
	})
}

// AddFile watches the file at path through its folder: editors save by
// renaming a new file into place, which a watch on the file would miss.
// Other files in that folder do not count. A path that is a symlink is
// watched at its target too, where an edit of the file happens.
func (sw *Watch) AddFile(path string) {
	path = filepath.Clean(path)
	sw.mu.Lock()
	defer sw.mu.Unlock()
	for _, p := range []string{path, resolved(path)} {
		if p != "" {
			sw.files[p] = true
			sw.addDir(filepath.Dir(p))
		}
	}
}

// resolved is path with its symlinks followed, or "" when it has none or
// they lead nowhere.
func resolved(path string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil || real == path {
		return ""
	}
	if abs, err := filepath.Abs(real); err == nil {
		return abs
	}
	return ""
}

// addDir watches the folder p, and reports whether it was not already.
func (sw *Watch) addDir(p string) bool {
	if sw.watched[p] || len(sw.watched) >= maxWatchedDirs {
		return false
	}
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		return false
	}
	if sw.w.Add(p) != nil {
		return false
	}
	sw.watched[p] = true
	return true
}

// Close stops the watch and waits for its goroutine to end; onChange is
// not called after it returns.
func (sw *Watch) Close() error {
	err := sw.w.Close()
	<-sw.done
	return err
}
