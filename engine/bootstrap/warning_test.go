package bootstrap

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseWarningMode(t *testing.T) {
	for _, s := range []string{"off", "once", "always"} {
		m, err := ParseWarningMode(s)
		require.NoError(t, err)
		assert.Equal(t, WarningMode(s), m)
	}
	for _, s := range []string{"", "Always", "on", "never"} {
		_, err := ParseWarningMode(s)
		assert.EqualError(t, err, fmt.Sprintf("bootstrap: invalid truncation warning mode %q (allowed: off, once, always)", s))
	}
}

func TestShouldWarn(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name       string
		mode       WarningMode
		sig        string
		seen       bool
		want       bool
		wantSaved  bool
		skipRecord bool // the render failed: nothing reached a prompt
	}{
		{name: "off", mode: WarningOff, sig: "s", want: false, wantSaved: false},
		{name: "always", mode: WarningAlways, sig: "s", want: true, wantSaved: true},
		{name: "always, seen before", mode: WarningAlways, sig: "s", seen: true, want: true, wantSaved: true},
		{name: "always, nothing cut", mode: WarningAlways, sig: "", want: false},
		{name: "once, new", mode: WarningOnce, sig: "s", want: true, wantSaved: true},
		{name: "once, new, not shown after all", mode: WarningOnce, sig: "s", want: true, wantSaved: false, skipRecord: true},
		{name: "once, seen", mode: WarningOnce, sig: "s", seen: true, want: false, wantSaved: true},
		{name: "once, nothing cut", mode: WarningOnce, sig: "", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := NewMemoryStore()
			if tt.seen {
				require.NoError(t, store.Remember(ctx, tt.sig))
			}
			got, err := ShouldWarn(ctx, tt.mode, tt.sig, store)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			if got && !tt.skipRecord {
				require.NoError(t, Record(ctx, tt.mode, tt.sig, store))
			}
			saved, err := store.Seen(ctx, tt.sig)
			require.NoError(t, err)
			assert.Equal(t, tt.wantSaved, saved)
		})
	}
	_, err := ShouldWarn(ctx, WarningOnce, "s", nil)
	assert.ErrorContains(t, err, "needs a state store")
	got, err := ShouldWarn(ctx, WarningAlways, "s", nil)
	require.NoError(t, err)
	assert.True(t, got)
	_, err = ShouldWarn(ctx, "sometimes", "s", nil)
	assert.ErrorContains(t, err, "allowed: off, once, always")
}

func TestWarnOnceAcrossLoads(t *testing.T) {
	ctx := context.Background()
	fsys, ws := memWorkspace(t, map[string]string{"MEMORY.md": strings.Repeat("m", 300)})
	opts := testOptions(func(o *Options) { o.Files, o.MaxChars = []string{"MEMORY.md"}, 200 })
	store := NewFileStore(fsys, "state/seen.json", nil)
	warn := func() bool {
		res := mustLoad(t, ws, opts)
		require.NotEmpty(t, res.Signature)
		show, err := ShouldWarn(ctx, WarningOnce, res.Signature, store)
		require.NoError(t, err)
		if show {
			require.NoError(t, Record(ctx, WarningOnce, res.Signature, store))
		}
		return show
	}
	assert.True(t, warn(), "first time")
	assert.False(t, warn(), "same truncation again")
	store = NewFileStore(fsys, "state/seen.json", nil) // a restart
	assert.False(t, warn(), "remembered across restarts")
	require.NoError(t, afero.WriteFile(fsys, "ws/MEMORY.md", []byte(strings.Repeat("m", 301)), 0o644))
	assert.True(t, warn(), "the file changed size")
	assert.False(t, warn())
}

func TestFileStore(t *testing.T) {
	ctx := context.Background()
	t.Run("keeps the newest 32, atomically", func(t *testing.T) {
		fsys := afero.NewMemMapFs()
		store := NewFileStore(fsys, "seen.json", nil)
		for i := range 40 {
			require.NoError(t, store.Remember(ctx, fmt.Sprintf("sig-%02d", i)))
		}
		require.NoError(t, store.Remember(ctx, "sig-10")) // seen again: now the newest
		for sig, want := range map[string]bool{"sig-00": false, "sig-07": false, "sig-08": true, "sig-10": true, "sig-39": true} {
			got, err := store.Seen(ctx, sig)
			require.NoError(t, err)
			assert.Equal(t, want, got, sig)
		}
		data, err := afero.ReadFile(fsys, "seen.json")
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(data), "{\n  \"seen\": [\n    \"sig-08\",\n    \"sig-09\",\n    \"sig-11\","), string(data))
		assert.True(t, strings.HasSuffix(string(data), "\"sig-39\",\n    \"sig-10\"\n  ]\n}\n"), string(data))
		entries, err := afero.ReadDir(fsys, ".")
		require.NoError(t, err)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		assert.Equal(t, []string{"seen.json", "seen.json.lock"}, names, "no temporary files left behind")
	})
	t.Run("missing file is empty", func(t *testing.T) {
		seen, err := NewFileStore(afero.NewMemMapFs(), "none.json", nil).Seen(ctx, "x")
		require.NoError(t, err)
		assert.False(t, seen)
	})
}
