package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/internal/dot"
)

func TestMergeContributions(t *testing.T) {
	m := dot.Merge([]Contribution{
		{StablePrefix: "A  \r\nB\n\n", DynamicSuffix: "", SectionOverrides: map[string]string{"tool_call_style": "one", "execution_bias": "x"}},
		{StablePrefix: "A\nB", DynamicSuffix: "  s1 ", SectionOverrides: map[string]string{"tool_call_style": "two", "execution_bias": "  "}},
		{StablePrefix: "C\n\n\n\nD", DynamicSuffix: "s2"},
	})
	assert.Equal(t, "A\nB\n\nC\n\nD", m.StablePrefix, "blank-line runs fold like template output")
	assert.Equal(t, "s1\n\ns2", m.DynamicSuffix)
	assert.Equal(t, map[string]string{"tool_call_style": "two", "execution_bias": "x"}, m.Overrides, "later wins; an empty override is absent, not a deletion")
}

func TestAssembleOffsets(t *testing.T) {
	infos := []RenderedSection{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	l := assemble("system", "<!-- B -->", []string{"one", "two"}, []string{"three"}, infos, nil)
	assert.Equal(t, "one\n\ntwo\n\n<!-- B -->\n\nthree\n", l.Text)
	for _, s := range l.Sections {
		assert.Equal(t, map[string]string{"a": "one", "b": "two", "c": "three"}[s.ID], l.Text[s.Start:s.End])
	}
	assert.Equal(t, "one\n\ntwo\n\nthree\n", l.TextWithoutBoundary())
	empty := assemble("x", "<!-- B -->", nil, nil, nil, nil)
	assert.Equal(t, "<!-- B -->\n", empty.Text)
}

// The stable prefix is hashed only when a caller asks, once for every
// turn with the same stable sections, and a layer whose Stable its
// caller changed is hashed anew.
func TestStableDigestIsLazyAndShared(t *testing.T) {
	fsys := afero.NewMemMapFs()
	require.NoError(t, afero.WriteFile(fsys, "/ws/SOUL.md", []byte("Be brief."), 0o644))
	e, err := New(os.DirFS(".."), WithFS(fsys))
	require.NoError(t, err)
	req := Request{Mode: ModeFull, Date: "2026-11-30T09:00:00Z", Workspace: Workspace{Path: "/ws"}}
	first, err := e.Render(context.Background(), req)
	require.NoError(t, err)
	l := first.Layers[0]
	require.NotNil(t, l.digest)
	assert.Empty(t, l.digest.hex, "rendering does not hash the prefix")
	sum := sha256.Sum256([]byte(l.Stable))
	assert.Equal(t, hex.EncodeToString(sum[:]), l.StableSHA256())

	req.Date = "2026-11-30T09:01:00Z" // a dynamic fact: same stable sections
	next, err := e.Render(context.Background(), req)
	require.NoError(t, err)
	assert.Same(t, l.digest, next.Layers[0].digest)

	changed := l
	changed.Stable += "!"
	sum = sha256.Sum256([]byte(changed.Stable))
	assert.Equal(t, hex.EncodeToString(sum[:]), changed.StableSHA256())
	assert.NotEqual(t, changed.StableSHA256(), l.StableSHA256())
}
