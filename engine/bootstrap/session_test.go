package bootstrap

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrivateFilesStayPrivate: MEMORY.md reaches only sessions that are
// neither shared chats nor sub-agent or cron runs, and nothing a replace
// or the hook does brings it back.
func TestPrivateFilesStayPrivate(t *testing.T) {
	private := "MEMORY.md SKIPPED (" + ReasonPrivate + ")"
	tests := []struct {
		name string
		edit func(*Options)
		want []string
	}{
		{"direct main session", func(o *Options) {},
			[]string{"AGENTS.md OK", "SOUL.md OK", "TOOLS.md OK", "IDENTITY.md OK", "USER.md OK", "MEMORY.md OK"}},
		{"group chat", func(o *Options) { o.Shared = true },
			[]string{"AGENTS.md OK", "SOUL.md OK", "TOOLS.md OK", "IDENTITY.md OK", "USER.md OK", private}},
		{"heartbeat in a direct session", func(o *Options) { o.Session = "heartbeat" },
			[]string{"AGENTS.md OK", "SOUL.md OK", "TOOLS.md OK", "IDENTITY.md OK", "USER.md OK", "MEMORY.md OK"}},
		{"cron keeps four files", func(o *Options) { o.Session, o.Heartbeat, o.Setup = "cron", true, SetupInject },
			[]string{"AGENTS.md OK", "SOUL.md OK", "IDENTITY.md OK", "USER.md OK"}},
		{"cron list naming MEMORY.md still hides it", func(o *Options) {
			o.Session, o.CronFiles = "cron", append(o.CronFiles, "MEMORY.md")
		}, []string{"AGENTS.md OK", "SOUL.md OK", "IDENTITY.md OK", "USER.md OK", private}},
		{"sub-agent", func(o *Options) { o.Session = "subagent" },
			[]string{"AGENTS.md OK", "TOOLS.md OK"}},
		{"replace cannot launder it", func(o *Options) {
			o.Shared, o.Replace = true, map[string]string{"MEMORY.md": "notes/long-term.md"}
		}, []string{"AGENTS.md OK", "SOUL.md OK", "TOOLS.md OK", "IDENTITY.md OK", "USER.md OK", private}},
		{"a hook cannot add it under another name", func(o *Options) {
			o.Shared = true
			o.Hook = func(_ context.Context, ev Event) ([]Entry, error) {
				return append(ev.Files, Entry{Name: "NOTES.md", Path: "memory.MD"}), nil
			}
		}, []string{"AGENTS.md OK", "SOUL.md OK", "TOOLS.md OK", "IDENTITY.md OK", "USER.md OK", private,
			"NOTES.md SKIPPED (" + ReasonPrivate + ")"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := with(allFiles(), "HEARTBEAT.md", "", "BOOTSTRAP.md", "", "notes/long-term.md", "secret notes", "memory.MD", "secret")
			_, ws := memWorkspace(t, files)
			res := mustLoad(t, ws, testOptions(tt.edit))
			assert.Equal(t, tt.want, outline(res))
			for _, f := range res.Files {
				assert.NotContains(t, f.Content, "secret")
				if f.Reason == ReasonPrivate {
					assert.Zero(t, f.InjectedChars)
				}
			}
		})
	}
}

// TestSetupDetection: BOOTSTRAP.md with content means setup is pending;
// SetupDetect reads it without injecting it; SetupSkip does not read it.
func TestSetupDetection(t *testing.T) {
	tests := []struct {
		name        string
		content     string
		setup       Setup
		wantPending bool
		wantFile    string
	}{
		{"pending, injected", "# Setup\nAsk the user's name.", SetupInject, true, "BOOTSTRAP.md OK"},
		{"pending, detected only", "# Setup\nAsk the user's name.", SetupDetect, true, "BOOTSTRAP.md SKIPPED (" + ReasonSetupDetect + ")"},
		{"blank file is done", " \n\n", SetupInject, false, "BOOTSTRAP.md SKIPPED (empty)"},
		{"absent file is done", "", SetupInject, false, ""},
		{"skip reads nothing", "# Setup", SetupSkip, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"AGENTS.md": "a"}
			if tt.content != "" {
				files["BOOTSTRAP.md"] = tt.content
			}
			_, ws := memWorkspace(t, files)
			res := mustLoad(t, ws, testOptions(func(o *Options) {
				o.Files, o.Optional, o.Setup = []string{"AGENTS.md", "BOOTSTRAP.md"}, []string{"BOOTSTRAP.md"}, tt.setup
			}))
			assert.Equal(t, tt.wantPending, res.SetupPending)
			var got string
			for _, line := range outline(res) {
				if strings.HasPrefix(line, "BOOTSTRAP.md") {
					got = line
				}
			}
			assert.Equal(t, tt.wantFile, got)
		})
	}
}

// TestBothCauses: a file over the per-file budget that also meets a short
// total names both, in the notice's data and in the signature.
func TestBothCauses(t *testing.T) {
	_, ws := memWorkspace(t, map[string]string{"AGENTS.md": strings.Repeat("a", 150), "SOUL.md": strings.Repeat("s", 300)})
	res := mustLoad(t, ws, testOptions(func(o *Options) {
		o.Files, o.MaxChars, o.TotalMaxChars = []string{"AGENTS.md", "SOUL.md"}, 200, 300
	}))
	require.Len(t, res.Files, 2)
	assert.Equal(t, []Cause{CausePerFile, CauseTotal}, res.Files[1].Causes)
	assert.Contains(t, res.Signature, `"causes":["per-file limit","total limit"]`)
}

// TestPrivateCopiesFoldersAndBinaries: a copy of MEMORY.md under another
// name, a daily note in the private folder brought in by a replace or the
// hook, and a binary MEMORY.md all stay out of a shared session, with no
// marker in their place.
func TestPrivateCopiesFoldersAndBinaries(t *testing.T) {
	files := map[string]string{"AGENTS.md": "a", "MEMORY.md": "SECRET plans", "notes/copy.md": "SECRET plans\n",
		"memory/2026-11-30.md": "SECRET today"}
	hook := func(_ context.Context, ev Event) ([]Entry, error) {
		return append(ev.Files, Entry{Name: "TODAY.md", Path: "memory/2026-11-30.md"}), nil
	}
	for name, edit := range map[string]func(*Options){
		"copy by replace":       func(o *Options) { o.Replace = map[string]string{"SOUL.md": "notes/copy.md"} },
		"daily note by replace": func(o *Options) { o.Replace = map[string]string{"SOUL.md": "memory/2026-11-30.md"} },
		"daily note by hook":    func(o *Options) { o.Hook = hook },
	} {
		t.Run(name, func(t *testing.T) {
			_, ws := memWorkspace(t, files)
			res := mustLoad(t, ws, testOptions(edit, func(o *Options) { o.Shared = true }))
			private := 0
			for _, f := range res.Files {
				assert.NotContains(t, f.Content, "SECRET", f.Name)
				if f.Private {
					private++
				}
			}
			assert.GreaterOrEqual(t, private, 2, "MEMORY.md and the second name: %v", outline(res))
		})
	}
	t.Run("binary MEMORY.md", func(t *testing.T) {
		_, ws := memWorkspace(t, map[string]string{"AGENTS.md": "a", "MEMORY.md": "SECRET\x00bin"})
		res := mustLoad(t, ws, testOptions(func(o *Options) { o.Shared = true }))
		assert.Contains(t, outline(res), "MEMORY.md SKIPPED ("+ReasonPrivate+")")
		for _, f := range res.Files {
			if f.Name == "MEMORY.md" {
				assert.Empty(t, f.Content, "no binary marker for a private file")
			}
		}
	})
}
