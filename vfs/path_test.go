package vfs

import (
	"errors"
	"io/fs"
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
