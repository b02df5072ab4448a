package vfs

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClean(t *testing.T) {
	good := []struct{ in, want string }{
		{"AGENTS.md", "AGENTS.md"},
		{"memory/2026-01-02.md", "memory/2026-01-02.md"},
		{"./personas//pirate.md", "personas/pirate.md"},
		{"a/../b", "b"},
		{"a/b/", "a/b"},
		{".", "."},
		{"a/..", "."},
		{`personas\pirate.md`, "personas/pirate.md"},
		{"日本/メモ.md", "日本/メモ.md"},
		{"file:name", "file:name"},
		{"...", "..."},
		{"..foo", "..foo"},
	}
	for _, tc := range good {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Clean(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.True(t, fs.ValidPath(got))
		})
	}

	bad := []struct{ in, reason string }{
		{"", "empty path"},
		{"a\x00b", "path contains a NUL byte"},
		{"/etc/passwd", "absolute path"},
		{"//server/share", "absolute path"},
		{`\\server\share\x`, "absolute path"},
		{`C:\Windows\win.ini`, "absolute path"},
		{"c:/x", "absolute path"},
		{"C:relative", "absolute path"},
		{"..", "path escapes the workspace"},
		{"../x", "path escapes the workspace"},
		{"a/../../x", "path escapes the workspace"},
		{`..\x`, "path escapes the workspace"},
		{"./../x", "path escapes the workspace"},
	}
	for _, tc := range bad {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Clean(tc.in)
			require.Error(t, err)
			assert.Empty(t, got)
			var refused *RefusedError
			require.True(t, errors.As(err, &refused), "%T", err)
			assert.Equal(t, tc.in, refused.Name)
			assert.Equal(t, tc.reason, refused.Reason)
			assert.Contains(t, err.Error(), tc.reason)
		})
	}
}

// FuzzClean checks the rules every workspace and Sub lookup relies on: a
// name is refused, or cleaned to a valid relative path that stays inside,
// the same path the slow way (path.Clean) gives; and joining it to a root
// agrees with path.Join.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"AGENTS.md", "memory/2026-11-30.md", "a//b", "./a", "a/../b", "..", "../x", "/etc/passwd",
		`a\b`, "C:x", ".", "", "a/", "a\x00b", "é/ü.md", "a/./b/../../c"} {
		f.Add(s, "/ws")
	}
	f.Add("x", "")
	f.Add("x", ".")
	f.Add("x", "/")
	f.Fuzz(func(t *testing.T, name, root string) {
		got, reason := clean(name)
		if reason != "" {
			if got != "" {
				t.Fatalf("clean(%q) refused (%s) but returned %q", name, reason, got)
			}
			return
		}
		slow := path.Clean(strings.ReplaceAll(name, `\`, "/"))
		if got != slow {
			t.Fatalf("clean(%q) = %q, path.Clean gives %q", name, got, slow)
		}
		if !fs.ValidPath(got) || got == ".." || strings.HasPrefix(got, "../") || strings.HasPrefix(got, "/") {
			t.Fatalf("clean(%q) = %q escapes or is invalid", name, got)
		}
		if strings.IndexByte(root, 0) >= 0 {
			return
		}
		w := OpenWorkspace(nil, root)
		want := path.Join(root, got)
		if root == "" && got == "." {
			want = "."
		}
		if real := w.real(got); real != want {
			t.Fatalf("root %q, name %q: real %q, path.Join %q", root, got, real, want)
		}
	})
}
