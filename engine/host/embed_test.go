package host_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/host"
)

// An embedder's long-lived engine, with a Watch on the skills folders a
// render read, sees a skill added to the user's own skills folder (outside
// any workspace) in the same session's next turn.
func TestWatchTellsTheEngineSkillsChanged(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	userSkills := filepath.Join(home, ".agents", "skills")
	require.NoError(t, os.MkdirAll(userSkills, 0o755))
	e, err := engine.New(sysprompt.Pack, engine.WithSkillHost(host.Skills()))
	require.NoError(t, err)
	w, err := host.NewWatch(func(string) { e.SkillsChanged() })
	require.NoError(t, err)
	defer w.Close()

	req := engine.Request{Mode: engine.ModeFull, Session: engine.Session{Key: "main", ID: "one"}}
	first, err := e.Render(context.Background(), req)
	require.NoError(t, err)
	require.Contains(t, first.SkillDirs, userSkills)
	for _, d := range first.SkillDirs {
		w.AddTree(d)
	}

	skill := filepath.Join(userSkills, "late", "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(skill), 0o755))
	require.NoError(t, os.WriteFile(skill, []byte("---\nname: late\ndescription: added mid-session\n---\nbody\n"), 0o644))
	assert.Eventually(t, func() bool {
		res, err := e.Render(context.Background(), req)
		require.NoError(t, err)
		return res.Skills.Found == first.Skills.Found+1
	}, 10*time.Second, 20*time.Millisecond, "the new skill never showed")
}
