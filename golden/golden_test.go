package golden

import (
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	sysprompt "github.com/sysprompt/sysprompt"
)

// update is defined here, in a test file, so importing the package never
// registers a flag.
var update = flag.Bool("update", false, "rewrite golden snapshots")

// TestSnapshots checks golden/snapshots against golden/scenarios rendered
// with the built-in pack, or rewrites them with -update.
func TestSnapshots(t *testing.T) {
	if *update {
		written, deleted, err := Generate(t.Context(), sysprompt.Pack, ".")
		require.NoError(t, err)
		for _, f := range written {
			t.Logf("wrote %s", f)
		}
		for _, f := range deleted {
			t.Logf("deleted %s", f)
		}
		return
	}
	problems, err := Check(t.Context(), sysprompt.Pack, ".")
	require.NoError(t, err)
	if len(problems) == 0 {
		return
	}
	var b strings.Builder
	for _, p := range problems {
		b.WriteString(p.String())
		b.WriteString("\n\n")
	}
	b.WriteString("snapshots are out of date; if the change is intended, regenerate them with:\n\t" + RegenerateCommand +
		"\nor, to rewrite the README samples a pack change makes stale too:\n\tgo test -short ./golden ./cmd/render -update")
	t.Error(b.String())
}

func BenchmarkRenderScenario(b *testing.B) {
	sc, err := Load("scenarios/direct-chat.txtar")
	require.NoError(b, err)
	ctx := b.Context()
	for b.Loop() {
		if _, err := Render(ctx, sysprompt.Pack, sc); err != nil {
			b.Fatal(err)
		}
	}
}
