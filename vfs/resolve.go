package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/afero"
)

// maxLinkHops bounds symlink resolution, as the kernel's MAXSYMLINKS does.
const maxLinkHops = 40

// lookup resolves name as resolve does and returns the info of what it
// leads to, as Stat would; the walk's last lstat usually serves as the
// stat, so it costs one filesystem call per component.
func (w *Workspace) lookup(name string) (real string, info fs.FileInfo, err error) {
	real, info, err = w.resolve(name)
	if err != nil {
		return "", nil, err
	}
	if info == nil {
		if info, err = w.fsys.Stat(real); err != nil {
			return "", nil, err
		}
	}
	return real, info, nil
}

// resolve is Resolve that also returns the last component's info when the
// walk saw it and it is not a symlink (nil otherwise).
func (w *Workspace) resolve(name string) (string, fs.FileInfo, error) {
	rel, reason := clean(name)
	if reason != "" {
		return "", nil, &RefusedError{Name: name, Reason: reason}
	}
	lstater, ok := w.fsys.(afero.Lstater)
	if !ok || rel == "." {
		return w.real(rel), nil, nil
	}
	if !strings.Contains(rel, "/") {
		// A name at the top of the root (every bootstrap file): one lstat
		// settles it unless it is a link, missing or failing, which the
		// walk handles.
		real := w.real(rel)
		if fi, lstatOK, err := lstater.LstatIfPossible(real); err == nil && (!lstatOK || fi.Mode()&fs.ModeSymlink == 0) {
			return real, fi, nil
		}
	}
	return w.follow(name, rel, lstater)
}

// real maps a cleaned workspace-relative path to its path inside fsys.
func (w *Workspace) real(rel string) string {
	if rel == "" || rel == "." {
		if w.root == "" {
			return "."
		}
		return path.Clean(w.root)
	}
	// rel is clean and relative, so this equals path.Join(root, rel).
	return w.prefix + rel
}

// follow walks rel one component at a time, replacing each symlink by its
// target, while keeping the walked prefix inside the root.
func (w *Workspace) follow(name, rel string, lstater afero.Lstater) (string, fs.FileInfo, error) {
	refuse := func(reason string) error { return &RefusedError{Name: name, Reason: reason} }
	var done []string               // resolved components, inside root
	todo := strings.Split(rel, "/") // components still to walk
	hops := 0
	var last fs.FileInfo // the info of done's last component, when not a link
	for len(todo) > 0 {
		elem := todo[0]
		todo = todo[1:]
		switch elem {
		case "", ".":
			continue
		case "..": // only symlink targets bring these in
			if len(done) == 0 {
				return "", nil, refuse(reasonLinkOut)
			}
			done = done[:len(done)-1]
			last = nil
			continue
		}
		next := append(slices.Clip(done), elem)
		real := w.real(strings.Join(next, "/"))
		fi, lstatOK, err := lstater.LstatIfPossible(real)
		if errors.Is(err, fs.ErrNotExist) {
			return w.missing(rel, next, todo)
		}
		if err != nil {
			return "", nil, err
		}
		if !lstatOK || fi.Mode()&fs.ModeSymlink == 0 {
			// !lstatOK: no symlinks in this filesystem (MemMapFs, say).
			if len(todo) > 0 && !fi.IsDir() {
				return "", nil, &fs.PathError{Op: "resolve", Path: w.Display(rel),
					Err: fmt.Errorf("%s is not a directory: %w", strings.Join(next, "/"), fs.ErrNotExist)}
			}
			done, last = next, fi
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", nil, refuse(reasonLinkLoop)
		}
		elems, fromRoot, err := w.readLink(name, rel, real)
		if err != nil {
			return "", nil, err
		}
		if fromRoot {
			done = nil
		}
		last = nil
		todo = append(strings.Split(elems, "/"), todo...)
	}
	if len(done) == 0 {
		last = nil // the root itself: not walked
	}
	return w.real(strings.Join(done, "/")), last, nil
}

// missing resolves a name whose component next does not exist: nothing
// below it can be followed. A ".." left in todo would make the OS fail on
// the missing directory; cleaning it away lexically could reach an
// existing file, so it is an error.
func (w *Workspace) missing(rel string, next, todo []string) (string, fs.FileInfo, error) {
	if slices.Contains(todo, "..") {
		return "", nil, &fs.PathError{Op: "resolve", Path: w.Display(rel), Err: fs.ErrNotExist}
	}
	return w.real(path.Join(append(next, todo...)...)), nil, nil
}

// readLink reads the symlink at real and returns its target's components
// relative to the root, and whether they start from the root; a target
// out of the root, or a filesystem that cannot read links, is refused.
func (w *Workspace) readLink(name, rel, real string) (elems string, fromRoot bool, err error) {
	reader, ok := w.fsys.(afero.LinkReader)
	if !ok {
		return "", false, &RefusedError{Name: name, Reason: reasonLinkUnread}
	}
	target, err := reader.ReadlinkIfPossible(real)
	if err != nil {
		return "", false, fmt.Errorf("resolving %s: %w", w.Display(rel), err)
	}
	elems, fromRoot, ok = w.linkTarget(target)
	if !ok {
		return "", false, &RefusedError{Name: name, Reason: reasonLinkOut}
	}
	return elems, fromRoot, nil
}

// linkTarget splits a symlink target into slash-separated components to
// walk, from the root for an absolute target (ok only when it lies under
// the root) or from the link's directory for a relative one.
func (w *Workspace) linkTarget(target string) (elems string, fromRoot, ok bool) {
	if target == "" || strings.IndexByte(target, 0) >= 0 {
		return "", false, false
	}
	if !filepath.IsAbs(target) && !strings.HasPrefix(target, "/") {
		return filepath.ToSlash(target), false, true
	}
	if w.root == "" {
		return "", true, false
	}
	root, t := filepath.Clean(w.root), filepath.Clean(target)
	if t == root {
		return "", true, true
	}
	if rest, ok := strings.CutPrefix(t, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator)); ok {
		return filepath.ToSlash(rest), true, true
	}
	return "", true, false
}
