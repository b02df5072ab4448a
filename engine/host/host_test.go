package host

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A relative $HOME would have the engine read ~/.agents/skills from
// wherever the process runs, and refuse it as a home: it counts as none.
func TestSkillsHomeIsAbsoluteOrNone(t *testing.T) {
	abs := t.TempDir()
	for env, want := range map[string]string{"home/ana": "", abs: filepath.ToSlash(abs)} {
		t.Setenv("HOME", env)
		t.Setenv("USERPROFILE", env)
		t.Setenv("home", env) // plan9
		assert.Equal(t, want, Skills().Home, "HOME=%s", env)
	}
}
