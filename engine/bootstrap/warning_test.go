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
	store := NewMemoryStore()
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
	require.NoError(t, afero.WriteFile(fsys, "ws/MEMORY.md", []byte(strings.Repeat("m", 301)), 0o644))
	assert.True(t, warn(), "the file changed size")
	assert.False(t, warn())
}
