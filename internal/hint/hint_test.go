package hint

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDidYouMean(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"HasAnyy", "did you mean HasAny?"},
		{"clii", "did you mean cli?"},
		{"TIER", "did you mean tier?"}, // any case
		{"teir", "did you mean tier?"}, // a swap is one edit
		{"colour", ""},                 // more than two edits from all
		{"b", ""},                      // one edit, but the whole name
		{"base", ""},                   // two edits from modes: half the name
		{"tier", ""},                   // the name itself is no suggestion
		{strings.Repeat("x", 10000), ""},
	} {
		assert.Equal(t, c.want, DidYouMean(c.name, []string{"HasAny", "Has", "cli", "tier", "modes", "a"}), c.name)
	}
}
