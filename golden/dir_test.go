package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sysprompt "github.com/sysprompt/sysprompt"
)

// memDir returns a MemMapFs holding g/scenarios with two scenarios and a
// README that is not one.
func memDir(t *testing.T) afero.Fs {
	t.Helper()
	fsys := afero.NewMemMapFs()
	files := map[string]string{
		"g/scenarios/alpha.txtar": "Alpha.\n-- request.toml --\nmode = \"none\"\n",
		"g/scenarios/beta.txtar":  "Beta.\n-- request.toml --\nmode = \"full\"\n-- workspace/AGENTS.md --\nBe brief.\n",
		"g/scenarios/README.md":   "not a scenario\n",
	}
	for name, data := range files {
		require.NoError(t, afero.WriteFile(fsys, name, []byte(data), 0o644))
	}
	return fsys
}

func readMem(t *testing.T, fsys afero.Fs, name string) string {
	t.Helper()
	data, err := afero.ReadFile(fsys, name)
	require.NoError(t, err)
	return string(data)
}

func TestGenerate(t *testing.T) {
	ctx := t.Context()
	fsys := memDir(t)
	alpha, beta := filepath.Join("g", "snapshots", "alpha.md"), filepath.Join("g", "snapshots", "beta.md")
	stale := filepath.Join("g", "snapshots", "gone.md")
	require.NoError(t, afero.WriteFile(fsys, stale, []byte("old\n"), 0o644))
	require.NoError(t, afero.WriteFile(fsys, "g/snapshots/notes.txt", []byte("kept\n"), 0o644))

	written, deleted, err := generate(ctx, fsys, sysprompt.Pack, "g")
	require.NoError(t, err)
	assert.Equal(t, []string{alpha, beta}, written)
	assert.Equal(t, []string{stale}, deleted)
	assert.True(t, strings.HasPrefix(readMem(t, fsys, alpha), "# alpha\n"))
	assert.Contains(t, readMem(t, fsys, beta), "Be brief.")
	assert.Equal(t, "kept\n", readMem(t, fsys, "g/snapshots/notes.txt"))

	entries, err := afero.ReadDir(fsys, "g/snapshots")
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"alpha.md", "beta.md", "notes.txt"}, names, "no temporary files left")

	// Up to date: nothing to write or delete.
	written, deleted, err = generate(ctx, fsys, sysprompt.Pack, "g")
	require.NoError(t, err)
	assert.Empty(t, written)
	assert.Empty(t, deleted)
}

func TestGenerateWritesNothingWhenAScenarioFails(t *testing.T) {
	fsys := memDir(t)
	require.NoError(t, afero.WriteFile(fsys, "g/scenarios/broken.txtar", []byte("Broken.\n-- request.toml --\nmood = 1\n"), 0o644))
	require.NoError(t, afero.WriteFile(fsys, "g/snapshots/gone.md", []byte("old\n"), 0o644))

	_, _, err := generate(t.Context(), fsys, sysprompt.Pack, "g")
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join("g", "scenarios", "broken.txtar")+"/request.toml")

	exists, err := afero.Exists(fsys, "g/snapshots/alpha.md")
	require.NoError(t, err)
	assert.False(t, exists, "no snapshot written")
	assert.Equal(t, "old\n", readMem(t, fsys, "g/snapshots/gone.md"), "nothing deleted")
}

func TestCheck(t *testing.T) {
	ctx := t.Context()
	fsys := memDir(t)
	_, _, err := generate(ctx, fsys, sysprompt.Pack, "g")
	require.NoError(t, err)

	problems, err := check(ctx, fsys, sysprompt.Pack, "g")
	require.NoError(t, err)
	assert.Empty(t, problems, "fresh snapshots")

	alpha, beta := filepath.Join("g", "snapshots", "alpha.md"), filepath.Join("g", "snapshots", "beta.md")
	stale := filepath.Join("g", "snapshots", "zeta.md")
	edited := strings.Replace(readMem(t, fsys, beta), "Be brief.", "Be long-winded.", 1)
	require.NoError(t, afero.WriteFile(fsys, beta, []byte(edited), 0o644))
	require.NoError(t, fsys.Remove(alpha))
	require.NoError(t, afero.WriteFile(fsys, stale, []byte("# zeta\n"), 0o644))

	problems, err = check(ctx, fsys, sysprompt.Pack, "g")
	require.NoError(t, err)
	require.Len(t, problems, 3)

	assert.Equal(t, Problem{File: alpha, Kind: KindMissing}, problems[0])
	assert.Equal(t, beta, problems[1].File)
	assert.Equal(t, KindDiffers, problems[1].Kind)
	assert.Contains(t, problems[1].Diff, "--- "+beta+"\n")
	assert.Contains(t, problems[1].Diff, "+++ "+beta+" (rendered)\n")
	assert.Contains(t, problems[1].Diff, "\n-Be long-winded.\n+Be brief.\n")
	assert.Regexp(t, `(?m)^@@ -\d+,\d+ \+\d+,\d+ @@$`, problems[1].Diff)
	assert.Equal(t, Problem{File: stale, Kind: KindStale}, problems[2])

	assert.Equal(t, alpha+": missing (the scenario has no snapshot)", problems[0].String())
	assert.True(t, strings.HasPrefix(problems[1].String(), beta+": differs\ndiff "))
}

func TestCheckWithoutScenarioFolder(t *testing.T) {
	_, err := check(t.Context(), afero.NewMemMapFs(), sysprompt.Pack, "nowhere")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "reading scenarios")
}

// TestGenerateAndCheckOnDisk runs the exported, disk-backed functions on a
// temporary copy of the repository's scenarios.
func TestGenerateAndCheckOnDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: renders every scenario several times")
	}
	ctx := t.Context()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(dir, "scenarios"), os.DirFS("scenarios")))

	problems, err := Check(ctx, sysprompt.Pack, dir)
	require.NoError(t, err)
	require.NotEmpty(t, problems)
	for _, p := range problems {
		assert.Equal(t, KindMissing, p.Kind, p.File)
	}

	written, deleted, err := Generate(ctx, sysprompt.Pack, dir)
	require.NoError(t, err)
	assert.Len(t, written, len(problems))
	assert.Empty(t, deleted)

	// Each file holds what Render gives for its scenario. (Not compared
	// with the repository's snapshots, which may be mid-update.)
	for _, f := range written {
		info, err := os.Stat(f)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o644), info.Mode().Perm(), f)
		got, err := os.ReadFile(f)
		require.NoError(t, err)
		sc, err := Load(filepath.Join(dir, "scenarios", strings.TrimSuffix(filepath.Base(f), ".md")+".txtar"))
		require.NoError(t, err)
		want, err := Render(ctx, sysprompt.Pack, sc)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), f)
	}

	stale := filepath.Join(dir, "snapshots", "old.md")
	require.NoError(t, os.WriteFile(stale, []byte("# old\n"), 0o644))
	problems, err = Check(ctx, sysprompt.Pack, dir)
	require.NoError(t, err)
	assert.Equal(t, []Problem{{File: stale, Kind: KindStale}}, problems)

	_, deleted, err = Generate(ctx, sysprompt.Pack, dir)
	require.NoError(t, err)
	assert.Equal(t, []string{stale}, deleted)
	assert.NoFileExists(t, stale)
}
