// Package vfs holds the filesystems the engine reads from: the template pack
// (a user pack directory layered over the built-in one), and [Workspace],
// the one read path into a directory the engine does not own: no path
// leaves its root at any component (an os.Root on the real disk), only
// regular files are read, from the handle that was checked, and reads are
// bounded and streamed.
//
// Every path that enters vfs from a caller is relative, slash-separated and
// unrooted ("sections/safety.md.tmpl", "memory/2026-01-02.md"), in the sense
// of [fs.ValidPath]; [Clean] turns user- or hook-supplied paths into that form
// or refuses them.
package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// Sentinel errors, matched with errors.Is; they arrive wrapped in an
// *fs.PathError naming the file.
var (
	// ErrIsDir reports a directory where a file was expected.
	ErrIsDir = errors.New("is a directory")
	// ErrTooLarge reports a file larger than the caller's byte limit.
	ErrTooLarge = errors.New("file too large")
)

// RefusedError reports a path vfs will not touch: absolute, escaping its
// root, or leading through a symlink out of the workspace or into a loop.
type RefusedError struct {
	Name   string // the path as the caller gave it
	Reason string // short and human, e.g. "symlink points outside the workspace"
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("path %q refused: %s", e.Name, e.Reason)
}

// Reasons given in a RefusedError.
const (
	reasonEmpty      = "empty path"
	reasonNUL        = "path contains a NUL byte"
	reasonAbsolute   = "absolute path"
	reasonEscapes    = "path escapes the workspace"
	reasonLinkOut    = "symlink points outside the workspace"
	reasonLinkLoop   = "symlink loop"
	reasonLinkUnread = "symlink cannot be read"
)

// Clean turns a relative path from a user, a config file or a hook into the
// vfs convention: slash-separated, unrooted, cleaned, valid for
// [fs.ValidPath]. "." (the root itself) is allowed.
//
// Backslashes are converted to slashes before anything else, so a path
// written on Windows means the same everywhere (and "..\x" is refused like
// "../x"); a file whose name holds a backslash is therefore unreachable.
//
// Clean refuses, with a *RefusedError, an empty path, a NUL byte, an
// absolute path (leading slash, Windows drive "C:" or "C:\", UNC "\\host"),
// and any path whose ".." elements climb above its root. A ".." that stays
// inside ("a/../b") is cleaned away.
func Clean(name string) (string, error) {
	cleaned, reason := clean(name)
	if reason != "" {
		return "", &RefusedError{Name: name, Reason: reason}
	}
	return cleaned, nil
}

// clean is Clean returning the refusal reason instead of an error, so that
// callers can word their own refusal.
func clean(name string) (string, string) {
	switch {
	case name == "":
		return "", reasonEmpty
	case strings.IndexByte(name, 0) >= 0:
		return "", reasonNUL
	case fs.ValidPath(name) && name != "." && !strings.Contains(name, `\`) && !hasDrive(name):
		// Already clean and relative (every name a render looks up): no
		// "." or ".." element, no empty one, no leading or trailing slash.
		return name, ""
	}
	p := strings.ReplaceAll(name, `\`, "/")
	if strings.HasPrefix(p, "/") || hasDrive(p) {
		return "", reasonAbsolute
	}
	p = path.Clean(p)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", reasonEscapes
	}
	if !fs.ValidPath(p) {
		// Unreachable after the checks above; kept as the final word.
		return "", "invalid path"
	}
	return p, ""
}

// hasDrive reports a Windows drive prefix such as "C:" (also drive-relative
// "C:foo", which names a different directory per drive and is refused too).
func hasDrive(p string) bool {
	if len(p) < 2 || p[1] != ':' {
		return false
	}
	c := p[0] | 0x20 // ASCII lower case
	return 'a' <= c && c <= 'z'
}
