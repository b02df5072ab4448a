package golden

import (
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sysprompt "github.com/sysprompt/sysprompt"
)

func TestFenced(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"plain text", "hello\n", "```text\nhello\n```"},
		{"adds the final newline", "hello", "```text\nhello\n```"},
		{"empty", "", "```text\n```"},
		{"short runs keep three", "use `x` or ``y``\n", "```text\nuse `x` or ``y``\n```"},
		{"a fence inside", "```sh\nls\n```\n", "````text\n```sh\nls\n```\n````"},
		{"the longest run wins", "````\n`````` and ```\n", "```````text\n````\n`````` and ```\n```````"},
		{"run at the very end", "tail ````", "`````text\ntail ````\n`````"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, fenced("text", tt.text))
		})
	}
}

func TestSortedJSON(t *testing.T) {
	type inner struct {
		Zeta  int    `json:"zeta"`
		Alpha string `json:"alpha"`
	}
	v := struct {
		Z      map[string]inner
		A      []inner
		HTML   string
		BigInt int64
	}{
		Z:      map[string]inner{"b": {1, "<b>"}, "a": {2, "&"}},
		A:      []inner{{3, "x"}},
		HTML:   "<!-- boundary --> & more",
		BigInt: 9007199254740993, // not exact as a float64
	}
	got, err := sortedJSON(v)
	require.NoError(t, err)
	want := `{
  "A": [
    {
      "alpha": "x",
      "zeta": 3
    }
  ],
  "BigInt": 9007199254740993,
  "HTML": "<!-- boundary --> & more",
  "Z": {
    "a": {
      "alpha": "&",
      "zeta": 2
    },
    "b": {
      "alpha": "<b>",
      "zeta": 1
    }
  }
}
`
	assert.Equal(t, want, got)
}

func TestEstimateChars(t *testing.T) {
	for chars, tokens := range map[int]int{0: 0, 1: 1, 4: 1, 5: 2, 8: 2, 4543: 1136} {
		assert.Equal(t, estimate{Chars: chars, Tokens: tokens}, estimateChars(chars), "chars=%d", chars)
	}
}

// layoutScenario has a workspace file with template syntax, a code fence
// and multi-byte characters.
const layoutScenario = `Layout check.

-- request.toml --
date = "2026-11-30T09:15:00Z"
timezone = "Asia/Tokyo"
-- workspace/AGENTS.md --
Keep {{ .Name }} as written. Café ☕.

` + "```go\nfmt.Println(1)\n```" + `
`

func TestRenderLayout(t *testing.T) {
	sc, err := Parse("layout", []byte(layoutScenario))
	require.NoError(t, err)
	out, err := Render(t.Context(), sysprompt.Pack, sc)
	require.NoError(t, err)
	s := string(out)

	assert.True(t, strings.HasPrefix(s, "# layout\n\n<!-- Generated"), "title and header first:\n%s", s)
	assert.Contains(t, s, "`"+RegenerateCommand+"`")
	assert.Contains(t, s, "\n\nLayout check.\n\n## Scenario\n\n```json\n{\n")
	assert.Contains(t, s, "\n## Effective Config\n\n```json\n{\n")
	assert.Contains(t, s, `"userTimezone": "Asia/Tokyo"`)
	assert.Contains(t, s, `"workspace": "/workspace"`)
	assert.Contains(t, s, "\n## Layer: system\n\n````text\n")
	assert.Contains(t, s, "<!-- SYSPROMPT_CACHE_BOUNDARY -->")
	assert.Contains(t, s, "Keep {{ .Name }} as written. Café ☕.")
	assert.Contains(t, s, "\n## Token Estimates\n\n```json\n")
	assert.Regexp(t, regexp.MustCompile("\n## Stable Prefix\n\n- system: sha256 [0-9a-f]{64}\n$"), s)
	assert.True(t, strings.HasSuffix(s, "\n") && !strings.HasSuffix(s, "\n\n"), "exactly one final newline")
	assert.Equal(t, strings.Index(s, "````text"), strings.LastIndex(s, "````text"), "one layer, one fence")
}

func TestRenderErrors(t *testing.T) {
	_, err := Render(t.Context(), sysprompt.Pack, nil)
	require.Error(t, err)

	sc, err := Parse("bad-harness", []byte("d\n-- request.toml --\nharness = \"nope\"\n"))
	require.NoError(t, err)
	_, err = Render(t.Context(), sysprompt.Pack, sc)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "scenario bad-harness")
	assert.Contains(t, err.Error(), "nope")
}

// TestNextTurnKeepsThePrefix: a next turn that only changes per-turn
// facts is noted in the snapshot; one that changes a stable fact (here
// the session's chat type, which takes MEMORY.md out) fails the render.
func TestNextTurnKeepsThePrefix(t *testing.T) {
	const ws = "-- workspace/AGENTS.md --\nBe careful.\n-- workspace/MEMORY.md --\nPrivate.\n"
	sc, err := Parse("turns", []byte("d\n-- request.toml --\nchat_type = \"direct\"\ndate = \"2026-11-30T09:00:00Z\"\n"+
		"-- next-turn.toml --\nchat_type = \"direct\"\ndate = \"2026-11-30T10:00:00Z\"\nowners = [\"x\"]\n"+ws))
	require.NoError(t, err)
	out, err := Render(t.Context(), sysprompt.Pack, sc)
	require.NoError(t, err)
	assert.Contains(t, string(out), "\n- next-turn.toml: the same stable prefix in every layer\n")

	sc, err = Parse("turns", []byte("d\n-- request.toml --\nchat_type = \"direct\"\n-- next-turn.toml --\nchat_type = \"group\"\n"+ws))
	require.NoError(t, err)
	_, err = Render(t.Context(), sysprompt.Pack, sc)
	assert.ErrorContains(t, err, "next-turn.toml: the system layer's stable prefix differs from request.toml's")

	_, err = Parse("turns", []byte("d\n-- request.toml --\n-- next-turn.toml --\nchat_type = \"dm\"\n"))
	assert.ErrorContains(t, err, "turns.txtar/next-turn.toml")
}

func TestRenderIsRepeatable(t *testing.T) {
	sc, err := Load("scenarios/direct-chat.txtar")
	require.NoError(t, err)
	first, err := Render(t.Context(), sysprompt.Pack, sc)
	require.NoError(t, err)

	// Concurrent renders of one scenario must agree byte for byte (and
	// share nothing mutable, which -race checks).
	const n = 8
	outs := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { outs[i], errs[i] = Render(t.Context(), sysprompt.Pack, sc) })
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i])
		assert.Equal(t, string(first), string(outs[i]), "render %d", i)
	}
}

// TestRenderIgnoresTimeZone renders under different TZ values and local
// zones. time.Local is read from TZ once per process, so setting TZ alone
// proves little; swapping time.Local covers what the engine could observe
// through time.Now or Local conversions. Not parallel: time.Local is
// process-global.
func TestRenderIgnoresTimeZone(t *testing.T) {
	sc, err := Load("scenarios/direct-chat.txtar")
	require.NoError(t, err)
	want, err := Render(t.Context(), sysprompt.Pack, sc)
	require.NoError(t, err)

	for _, tz := range []string{"UTC", "Pacific/Kiritimati", "America/St_Johns"} {
		t.Run("TZ="+tz, func(t *testing.T) {
			t.Setenv("TZ", tz)
			got, err := Render(t.Context(), sysprompt.Pack, sc)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
		})
	}
	for _, offset := range []int{-12, 14} {
		t.Run("time.Local", func(t *testing.T) {
			saved := time.Local
			t.Cleanup(func() { time.Local = saved })
			time.Local = time.FixedZone("test", offset*3600)
			got, err := Render(t.Context(), sysprompt.Pack, sc)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
		})
	}
}
