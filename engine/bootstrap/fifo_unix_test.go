//go:build unix

package bootstrap

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mkfifoOrSkip makes a named pipe, or skips where the filesystem has none.
func mkfifoOrSkip(t *testing.T, name string) {
	t.Helper()
	if err := syscall.Mkfifo(name, 0o644); err != nil {
		t.Skipf("mkfifo unsupported: %v", err)
	}
}

// TestLoadRefusesNamedPipes: a FIFO where a bootstrap file is expected is
// refused without being opened for a blocking read (nothing ever writes to
// it, so a read would hang the render). Required files are MISSING with
// the marker, optional ones SKIPPED, both with the kind in the reason.
func TestLoadRefusesNamedPipes(t *testing.T) {
	const reason = "not a regular file (named pipe)"
	tests := []struct {
		name  string
		pipe  string
		files []string
		opts  Options
		want  []string
	}{
		{
			name: "required AGENTS.md",
			pipe: "AGENTS.md",
			opts: testOptions(),
			want: []string{"AGENTS.md MISSING (" + reason + ")", "SOUL.md OK", "TOOLS.md OK", "IDENTITY.md OK", "USER.md OK", "MEMORY.md OK"},
		},
		{
			name: "optional MEMORY.md",
			pipe: "MEMORY.md",
			opts: testOptions(),
			want: []string{"AGENTS.md OK", "SOUL.md OK", "TOOLS.md OK", "IDENTITY.md OK", "USER.md OK", "MEMORY.md SKIPPED (" + reason + ")"},
		},
		{
			name: "startup daily memory",
			pipe: "memory/2026-11-29.md",
			opts: testOptions(func(o *Options) { o.Files, o.Startup, o.Today = []string{"AGENTS.md"}, true, "2026-11-29" }),
			want: []string{"AGENTS.md OK", "memory/2026-11-29.md SKIPPED (" + reason + ") dynamic"},
		},
		{
			name: "replace target",
			pipe: "personas/pipe.md",
			opts: testOptions(func(o *Options) {
				o.Files, o.Replace = []string{"AGENTS.md", "SOUL.md"}, map[string]string{"SOUL.md": "personas/pipe.md"}
			}),
			want: []string{"AGENTS.md OK", "SOUL.md MISSING (" + reason + ")"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := allFiles()
			delete(files, tt.pipe)
			files["personas/keep.md"] = "keeps the folder"
			files["memory/keep.md"] = "keeps the folder"
			dir, ws := diskWorkspace(t, files)
			mkfifoOrSkip(t, filepath.Join(dir, filepath.FromSlash(tt.pipe)))

			res, err := loadWithin(t, ws, tt.opts)
			require.NoError(t, err)
			assert.Equal(t, tt.want, outline(res))
			for _, f := range res.Files {
				if f.Path != tt.pipe {
					continue
				}
				if f.Status == StatusMissing {
					assert.Equal(t, "[MISSING] Expected at: "+dir+"/"+tt.pipe, f.Content)
				} else {
					assert.Empty(t, f.Content)
				}
			}
		})
	}
}

// TestLoadRefusesNamedPipeBehindSymlink: an in-workspace symlink to a FIFO
// is followed to the FIFO, which is then refused without blocking.
func TestLoadRefusesNamedPipeBehindSymlink(t *testing.T) {
	dir, ws := diskWorkspace(t, map[string]string{"AGENTS.md": "rules"})
	mkfifoOrSkip(t, filepath.Join(dir, "pipe"))
	symlinkOrSkip(t, "pipe", filepath.Join(dir, "SOUL.md"))
	res, err := loadWithin(t, ws, testOptions(func(o *Options) { o.Files = []string{"AGENTS.md", "SOUL.md"} }))
	require.NoError(t, err)
	assert.Equal(t, []string{"AGENTS.md OK", "SOUL.md MISSING (not a regular file (named pipe))"}, outline(res))
}
