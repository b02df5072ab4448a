package bootstrap

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/vfs"
)

// keptTexts is a TextReader that prepares each file once, as a snapshot
// does for files whose identity does not change.
type keptTexts struct {
	*vfs.Workspace
	texts map[keptKey]Text
	reads int
}

// keptKey is a file and how much of it was read, which follows the budget.
type keptKey struct {
	name string
	keep vfs.Keep
}

func (k *keptTexts) ReadPrepared(name string, keep vfs.Keep) (Text, error) {
	if t, ok := k.texts[keptKey{name, keep}]; ok {
		return t, nil
	}
	raw, err := k.ReadText(name, keep)
	if err != nil {
		return Text{}, err
	}
	k.reads++
	t := Prepare(raw, k.Display(name))
	k.texts[keptKey{name, keep}] = t
	return t, nil
}

// countingMarkers counts the markers rendered.
type countingMarkers struct {
	testMarkers
	n *atomic.Int64
}

func (m countingMarkers) Truncated(display string, kept, raw int) string {
	m.n.Add(1)
	return m.testMarkers.Truncated(display, kept, raw)
}

func (m countingMarkers) Binary(display string) string {
	m.n.Add(1)
	return m.testMarkers.Binary(display)
}

// A kept Text gives what a fresh read gives, and is cut (its markers
// rendered) once per budget: a later Load with the same budget renders no
// marker, another budget cuts again.
func TestPreparedTextsKeepTheirCut(t *testing.T) {
	_, ws := memWorkspace(t, map[string]string{
		"AGENTS.md": strings.Repeat("line of the agents file\r\n", 400),
		"SOUL.md":   "soul\x00binary",
		"TOOLS.md":  "tools  \n\n",
	})
	var n atomic.Int64
	opts := testOptions(func(o *Options) {
		o.MaxChars = 1000
		o.Markers = countingMarkers{n: &n}
	})
	kept := &keptTexts{Workspace: ws, texts: map[keptKey]Text{}}
	want := mustLoad(t, ws, opts)
	first, err := Load(context.Background(), kept, opts)
	require.NoError(t, err)
	assert.Equal(t, want, first, "a prepared text loads as a fresh read")
	require.Equal(t, StatusTruncated, first.Files[0].Status)
	require.Equal(t, StatusSkipped, first.Files[1].Status)

	n.Store(0)
	again, err := Load(context.Background(), kept, opts)
	require.NoError(t, err)
	assert.Equal(t, want, again)
	assert.Zero(t, n.Load(), "the same budget reuses the cut and the binary marker")
	assert.Equal(t, 3, kept.reads, "each file was read once")

	// A smaller total leaves the read window as it was but cuts the
	// same text to another budget.
	opts.TotalMaxChars = 700
	other, err := Load(context.Background(), kept, opts)
	require.NoError(t, err)
	assert.Equal(t, mustLoad(t, ws, opts), other, "another budget cuts again")
	assert.NotZero(t, n.Load())
	assert.Equal(t, 3, kept.reads, "the same texts")
}
