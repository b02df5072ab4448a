package golden

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	_ "time/tzdata" // Asia/Kolkata must load on hosts without a zone database

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sysprompt "github.com/sysprompt/sysprompt"
)

// freshGoldenDir copies the repository's scenarios into a temporary
// folder with snapshots generated from the built-in pack, and returns it.
// It does not copy the repository's snapshots: in a -update run they may
// still be stale when this runs, and TestSnapshots checks them anyway.
func freshGoldenDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(dir, "scenarios"), os.DirFS("scenarios")))
	_, _, err := Generate(t.Context(), sysprompt.Pack, dir)
	require.NoError(t, err)
	return dir
}

// packWithEdit copies the built-in pack into a MapFS and replaces old,
// which must occur exactly once in file, with replacement.
func packWithEdit(t *testing.T, file, old, replacement string) fs.FS {
	t.Helper()
	pack := fstest.MapFS{}
	err := fs.WalkDir(sysprompt.Pack, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(sysprompt.Pack, p)
		if err != nil {
			return err
		}
		pack[p] = &fstest.MapFile{Data: data, Mode: 0o644}
		return nil
	})
	require.NoError(t, err)
	f, ok := pack[file]
	require.True(t, ok, "the built-in pack has no %s", file)
	require.Equal(t, 1, strings.Count(string(f.Data), old), "%s must hold %q exactly once", file, old)
	f.Data = []byte(strings.Replace(string(f.Data), old, replacement, 1))
	return pack
}

// snapshotsWithSection renders every scenario in dir with the built-in
// pack and returns the snapshot paths whose prompt holds section id,
// sorted, and those whose prompt does not.
func snapshotsWithSection(t *testing.T, dir, id string) (with, without []string) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "scenarios", "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		sc, err := Load(p)
		require.NoError(t, err)
		res, err := render(t.Context(), sysprompt.Pack, sc)
		require.NoError(t, err, p)
		snap := filepath.Join(dir, "snapshots", sc.Name+".md")
		found := false
		for _, l := range res.Layers {
			for _, s := range l.Sections {
				found = found || s.ID == id
			}
		}
		if found {
			with = append(with, snap)
		} else {
			without = append(without, snap)
		}
	}
	sort.Strings(with)
	return with, without
}

// TestOneWordChangeNamesTheRightSnapshots is the drift check:
// one changed word in a section template makes Check report exactly the
// snapshots whose prompt holds that section, and Generate fixes them.
func TestOneWordChangeNamesTheRightSnapshots(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: renders every scenario six times")
	}
	ctx := t.Context()
	dir := freshGoldenDir(t)
	edited := packWithEdit(t, "sections/safety.md.tmpl", "work around oversight", "work around supervision")
	want, without := snapshotsWithSection(t, dir, "safety")
	// Both sides must be non-empty, or the test would prove nothing about
	// naming the *right* snapshots.
	require.NotEmpty(t, want)
	require.Contains(t, without, filepath.Join(dir, "snapshots", "mode-none.md"), "mode none renders no Safety section")

	problems, err := Check(ctx, edited, dir)
	require.NoError(t, err)
	var got []string
	for _, p := range problems {
		got = append(got, p.File)
		assert.Equal(t, KindDiffers, p.Kind, p.File)
		assert.Contains(t, p.Diff, "-- Stop when a person with authority tells you to stop, and do not work around oversight.", p.File)
		assert.Contains(t, p.Diff, "+- Stop when a person with authority tells you to stop, and do not work around supervision.", p.File)
	}
	assert.Equal(t, want, got)

	written, deleted, err := Generate(ctx, edited, dir)
	require.NoError(t, err)
	assert.Equal(t, want, written)
	assert.Empty(t, deleted)

	problems, err = Check(ctx, edited, dir)
	require.NoError(t, err)
	assert.Empty(t, problems, "Generate must bring every snapshot in line with the edited pack")

	// And the regenerated snapshots now drift from the unedited pack.
	problems, err = Check(ctx, sysprompt.Pack, dir)
	require.NoError(t, err)
	assert.Len(t, problems, len(want))
}

// generateAll generates every snapshot of the repository's scenarios into
// a fresh folder and returns them by file name.
func generateAll(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(dir, "scenarios"), os.DirFS("scenarios")))
	written, _, err := Generate(t.Context(), sysprompt.Pack, dir)
	require.NoError(t, err)
	require.NotEmpty(t, written)
	out := map[string]string{}
	for _, f := range written {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		out[filepath.Base(f)] = string(data)
	}
	return out
}

// TestSnapshotsIgnoreLocalZone generates every snapshot under two local
// time zones, and twice under the same one, and wants the same bytes.
// reset-daily-memory falls on different calendar days in UTC and in
// Asia/Kolkata, so an engine that took "today" from time.Local would fail
// here. Not parallel: time.Local is process-global.
func TestSnapshotsIgnoreLocalZone(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: renders every scenario three times")
	}
	kolkata, err := time.LoadLocation("Asia/Kolkata")
	require.NoError(t, err)
	saved := time.Local
	t.Cleanup(func() { time.Local = saved })

	time.Local = time.UTC
	utc := generateAll(t)
	again := generateAll(t)
	time.Local = kolkata
	india := generateAll(t)
	time.Local = saved

	require.Contains(t, utc, "reset-daily-memory.md")
	for name, want := range utc {
		assert.Equal(t, want, again[name], "%s: repeated generation differs", name)
		assert.Equal(t, want, india[name], "%s: differs between UTC and Asia/Kolkata", name)
	}
	assert.Len(t, india, len(utc))
	assert.Len(t, again, len(utc))
}
