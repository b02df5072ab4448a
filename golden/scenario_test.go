package golden

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const minimalRequest = "mode = \"full\"\n"

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name    string
		scName  string
		archive string
		want    []string // substrings of the error
	}{
		{
			name:    "unknown file",
			scName:  "s",
			archive: "desc\n-- request.toml --\n" + minimalRequest + "-- notes.txt --\nhi\n",
			want:    []string{"s.txtar/notes.txt", "unknown file"},
		},
		{
			name:    "no request",
			scName:  "s",
			archive: "desc\n-- workspace/AGENTS.md --\nhi\n",
			want:    []string{"s.txtar", "no request.toml"},
		},
		{
			name:    "file twice",
			scName:  "s",
			archive: "desc\n-- request.toml --\n" + minimalRequest + "-- request.toml --\n" + minimalRequest,
			want:    []string{"s.txtar/request.toml", "twice"},
		},
		{
			name:    "escaping workspace path",
			scName:  "s",
			archive: "desc\n-- request.toml --\n" + minimalRequest + "-- workspace/../etc/passwd --\nx\n",
			want:    []string{"s.txtar/workspace/../etc/passwd", "not a valid workspace-relative path"},
		},
		{
			name:    "workspace folder itself",
			scName:  "s",
			archive: "desc\n-- request.toml --\n" + minimalRequest + "-- workspace/ --\nx\n",
			want:    []string{"s.txtar/workspace/", "not a valid"},
		},
		{
			name:    "no description",
			scName:  "s",
			archive: "\n\n-- request.toml --\n" + minimalRequest,
			want:    []string{"s.txtar", "description"},
		},
		{
			name:    "unknown request key",
			scName:  "s",
			archive: "desc\n-- request.toml --\nmode = \"full\"\nmood = \"sunny\"\n",
			want:    []string{"s.txtar/request.toml", "mood"},
		},
		{
			name:    "bad request value",
			scName:  "s",
			archive: "desc\n-- request.toml --\nmode = \"loud\"\n",
			want:    []string{"s.txtar/request.toml", "loud"},
		},
		{
			name:    "unknown config key",
			scName:  "s",
			archive: "desc\n-- request.toml --\n" + minimalRequest + "-- config.toml --\n[agents.defaults]\nbootstrapMaxChar = 5\n",
			want:    []string{"s.txtar/config.toml", "bootstrapMaxChar"},
		},
		{
			name:    "name with a separator",
			scName:  "a/b",
			archive: "desc\n-- request.toml --\n" + minimalRequest,
			want:    []string{"path separator"},
		},
		{
			name:    "empty name",
			scName:  "",
			archive: "desc\n-- request.toml --\n" + minimalRequest,
			want:    []string{"not a file name"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.scName, []byte(tt.archive))
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestParseWorkspacePath(t *testing.T) {
	tests := []struct {
		name    string
		archive string
		want    string
	}{
		{"files and no path use the default", "d\n-- request.toml --\n" + minimalRequest + "-- workspace/AGENTS.md --\nx\n", DefaultWorkspace},
		{"a given path is kept", "d\n-- request.toml --\n[workspace]\npath = \"/ws\"\n-- workspace/AGENTS.md --\nx\n", "/ws"},
		{"no files, no path", "d\n-- request.toml --\n" + minimalRequest, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse("s", []byte(tt.archive))
			require.NoError(t, err)
			assert.Equal(t, tt.want, sc.request.Workspace.Path)
		})
	}
}

func TestParseNormalizesCRLF(t *testing.T) {
	lf := "A scenario\nin two lines.\n\n-- request.toml --\nmode = \"full\"\n-- workspace/skills/x/SKILL.md --\nline one\nline two\n"
	crlf := strings.ReplaceAll(lf, "\n", "\r\n")

	want, err := Parse("s", []byte(lf))
	require.NoError(t, err)
	got, err := Parse("s", []byte(crlf))
	require.NoError(t, err)

	assert.Equal(t, "A scenario\nin two lines.", got.Description)
	assert.Equal(t, want.workspace, got.workspace)
	assert.Equal(t, "line one\nline two\n", string(got.workspace["skills/x/SKILL.md"]))
	assert.Equal(t, want.request, got.request)
}

func TestLoad(t *testing.T) {
	sc, err := Load(filepath.Join("scenarios", "direct-chat.txtar"))
	require.NoError(t, err)
	assert.Equal(t, "direct-chat", sc.Name)
	assert.NotEmpty(t, sc.Description)
	assert.Contains(t, sc.workspaceFiles(), "TOOLS.md")

	_, err = Load(filepath.Join("scenarios", "no-such.txtar"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no-such.txtar")
}
