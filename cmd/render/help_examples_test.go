package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every command's help ends with an Examples block of that command's own
// command lines, and every flag an example uses is one the command takes.
func TestHelpEndsWithExamples(t *testing.T) {
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			res := runCLI("", "help", c.name)
			require.Equal(t, 0, res.code, res.stderr)
			_, block, ok := strings.Cut(res.stdout, "\n\nExamples:\n")
			require.True(t, ok, "render help %s has no Examples block:\n%s", c.name, res.stdout)
			lines := strings.Split(strings.TrimSuffix(block, "\n"), "\n")
			require.NotEmpty(t, lines)
			for _, line := range lines {
				ex, ok := strings.CutPrefix(line, "  ")
				require.True(t, ok, "an indented example line, up to the end of the help: %q", line)
				words := strings.Fields(ex)
				switch {
				case c.name == "render":
					assert.True(t, strings.HasPrefix(words[1], "-"), "a plain render starts with its flags: %s", ex)
				default:
					assert.Equal(t, []string{"render", c.name}, words[:2], "an example of render %s", c.name)
				}
				for _, w := range words[1:] {
					flag, _, _ := strings.Cut(w, "=")
					if strings.HasPrefix(flag, "-") {
						assert.Regexp(t, `(?m)^  `+regexp.QuoteMeta(flag)+`\b`, res.stdout, "%s: render %s takes no %s", ex, c.name, flag)
					}
				}
			}
		})
	}
}
