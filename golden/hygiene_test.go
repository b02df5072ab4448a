package golden

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sysprompt "github.com/sysprompt/sysprompt"
)

// headingLine matches a Markdown heading; file blocks ("## /path") are
// not section headings and are skipped by the caller.
var headingLine = regexp.MustCompile(`^(#{1,6}) (.*)$`)

// TestScenariosRenderCleanly guards the scenarios themselves: a typo in a
// SKILL.md or a template slip would otherwise be frozen into a snapshot
// without anyone noticing.
func TestScenariosRenderCleanly(t *testing.T) {
	paths, err := filepath.Glob("scenarios/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		sc, err := Load(p)
		require.NoError(t, err)
		t.Run(sc.Name, func(t *testing.T) {
			res, err := render(t.Context(), sysprompt.Pack, sc)
			require.NoError(t, err)
			assert.Empty(t, res.Skills.Problems, "a SKILL.md in the scenario is broken")
			var workspaceText strings.Builder
			for _, data := range sc.workspace {
				workspaceText.Write(data)
			}
			for _, l := range res.Layers {
				assert.NotContains(t, l.Text, "<no value>", "layer %s", l.Name)
				assert.NotContains(t, l.Text, "\n\n\n", "layer %s: doubled blank line", l.Name)
				// Template syntax may reach the prompt only as file content.
				assert.LessOrEqual(t, strings.Count(l.Text, "{{"), strings.Count(workspaceText.String(), "{{"), "layer %s: template syntax leaked", l.Name)
				assertNoEmptyHeadings(t, l.Name, l.Text)
			}
		})
	}
}

// assertNoEmptyHeadings fails on a section heading followed, after blank
// lines only, by a heading of the same or a higher level: a section that
// printed its title and nothing else.
func assertNoEmptyHeadings(t *testing.T, layer, text string) {
	t.Helper()
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		m := headingLine.FindStringSubmatch(line)
		if m == nil || strings.HasPrefix(m[2], "/") {
			continue
		}
		j := i + 1
		for j < len(lines) && lines[j] == "" {
			j++
		}
		if j == len(lines) {
			t.Errorf("layer %s line %d: heading %q ends the layer", layer, i+1, line)
			continue
		}
		if next := headingLine.FindStringSubmatch(lines[j]); next != nil && len(next[1]) <= len(m[1]) {
			t.Errorf("layer %s line %d: heading %q has no body", layer, i+1, line)
		}
	}
}
