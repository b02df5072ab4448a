package host

import (
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
)

func TestCommandHook(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	ev := bootstrap.Event{Type: "agent", Action: "bootstrap", Workspace: "/ws", Session: "main",
		Files: []bootstrap.Entry{{Name: "AGENTS.md", Path: "AGENTS.md"}, {Name: "SOUL.md", Path: "SOUL.md"}}}
	tests := []struct {
		name    string
		command string
		timeout time.Duration
		want    []bootstrap.Entry
		wantErr string
	}{
		{
			name: "rewrites the list from stdin",
			// The event ends with its "files" array; keep it, redirect SOUL.md.
			command: `sed -e 's/^.*"files"/{"files"/' -e 's#"path":"SOUL.md"#"path":"personas/pirate.md"#'`,
			want:    []bootstrap.Entry{{Name: "AGENTS.md", Path: "AGENTS.md"}, {Name: "SOUL.md", Path: "personas/pirate.md"}},
		},
		{
			name:    "path may be left out",
			command: `echo '{"files": [{"name": "USER.md"}]}'`,
			want:    []bootstrap.Entry{{Name: "USER.md"}},
		},
		{
			name:    "empty list removes everything",
			command: `echo '{"files": []}'`,
			want:    []bootstrap.Entry{},
		},
		{name: "non-zero exit quotes stderr", command: `echo "  first problem" >&2; echo second >&2; exit 3`,
			wantErr: `bootstrap hook "echo \"  first problem\" >&2; echo second >&2; exit 3": exit status 3: first problem`},
		{name: "timeout", command: "sleep 5", timeout: 100 * time.Millisecond, wantErr: `bootstrap hook "sleep 5": timed out after 100ms`},
		{name: "junk", command: "echo hello there", wantErr: "bad output"},
		{name: "nothing printed", command: "true", wantErr: "printed nothing"},
		{name: "unknown field", command: `echo '{"files": [], "extra": 1}'`, wantErr: `unknown field "extra"`},
		{name: "unknown entry field", command: `echo '{"files": [{"name": "A", "file": "B"}]}'`, wantErr: `unknown field "file"`},
		{name: "missing files", command: `echo '{}'`, wantErr: `missing "files"`},
		{name: "trailing data", command: `echo '{"files": []} {}'`, wantErr: "data after the JSON object"},
		{name: "too much output", command: `head -c 2000000 /dev/zero | tr '\0' ' '`, wantErr: "output exceeds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CommandHook(tt.command, tt.timeout)(context.Background(), ev)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// The event a command reads names the folder on disk as "dir", and
// leaves the key out when there is none.
func TestCommandHookEventDir(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	// Prints {"files": [{"name": D}]}, D being the event's dir or "none".
	command := `ev=$(cat); d=$(printf '%s' "$ev" | sed -n 's/.*"dir":"\([^"]*\)".*/\1/p'); echo "{\"files\": [{\"name\": \"${d:-none}\"}]}"`
	for dir, want := range map[string]string{"/srv/checkout/ws": "/srv/checkout/ws", "": "none"} {
		got, err := CommandHook(command, 0)(context.Background(), bootstrap.Event{Workspace: "/Users/ana/ws", Dir: dir})
		require.NoError(t, err)
		assert.Equal(t, []bootstrap.Entry{{Name: want}}, got)
	}
}

func TestCommandHookTimeoutIsDeadlineExceeded(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	// The child keeps stdout open; the process group kill must still end it.
	_, err := CommandHook("sleep 5 & sleep 5", 50*time.Millisecond)(context.Background(), bootstrap.Event{})
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded))
}

func TestCommandHookCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := CommandHook("true", time.Second)(ctx, bootstrap.Event{})
	assert.ErrorIs(t, err, context.Canceled)
}
