package golden

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/spf13/afero"

	"github.com/sysprompt/sysprompt/vfs"
)

// Problem kinds reported by Check.
const (
	KindMissing = "missing" // a scenario has no snapshot
	KindDiffers = "differs" // the snapshot is not what the scenario renders
	KindStale   = "stale"   // a snapshot has no scenario
)

// Problem is one snapshot that does not match its scenario.
type Problem struct {
	File string // the snapshot's path: dir/snapshots/<name>.md
	Kind string // KindMissing, KindDiffers or KindStale
	Diff string // for KindDiffers: unified diff from the file to the rendering
}

// String is a one-line summary, followed by the diff when there is one.
func (p Problem) String() string {
	s := p.File + ": " + p.Kind
	switch p.Kind {
	case KindMissing:
		s += " (the scenario has no snapshot)"
	case KindStale:
		s += " (no scenario renders this snapshot)"
	}
	if p.Diff != "" {
		s += "\n" + strings.TrimSuffix(p.Diff, "\n")
	}
	return s
}

// Generate renders every scenario in dir/scenarios and writes
// dir/snapshots/<name>.md for each whose content changed, each file
// atomically (temporary file, then rename). It then deletes every *.md in
// dir/snapshots that no scenario produced. Every scenario is rendered
// before anything is written, so a failing scenario leaves the snapshots
// untouched. written and deleted are the paths changed, sorted.
func Generate(ctx context.Context, pack fs.FS, dir string) (written, deleted []string, err error) {
	return generate(ctx, afero.NewOsFs(), pack, dir)
}

// Check renders every scenario in dir/scenarios and compares it with
// dir/snapshots. It returns one Problem per snapshot that is missing,
// differs or is stale, sorted by file; an error means a scenario could not
// be read or rendered.
func Check(ctx context.Context, pack fs.FS, dir string) ([]Problem, error) {
	return check(ctx, afero.NewOsFs(), pack, dir)
}

// snapshot is one rendered scenario and where it belongs.
type snapshot struct {
	file string
	data []byte
}

func generate(ctx context.Context, fsys afero.Fs, pack fs.FS, dir string) (written, deleted []string, err error) {
	rendered, err := renderAll(ctx, fsys, pack, dir)
	if err != nil {
		return nil, nil, err
	}
	snapDir := filepath.Join(dir, "snapshots")
	if err := fsys.MkdirAll(snapDir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("golden: %w", err)
	}
	want := map[string]bool{}
	for _, s := range rendered {
		want[s.file] = true
		old, err := readGoldenFile(fsys, s.file)
		switch {
		case err == nil && bytes.Equal(old, s.data):
			continue
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, vfs.ErrTooLarge):
			return written, deleted, fmt.Errorf("golden: %w", err) // not a file to replace
		}
		if err := writeAtomic(fsys, s.file, s.data); err != nil {
			return written, deleted, err
		}
		written = append(written, s.file)
	}
	existing, err := existingSnapshots(fsys, snapDir)
	if err != nil {
		return written, deleted, err
	}
	for _, file := range existing {
		if want[file] {
			continue
		}
		if err := fsys.Remove(file); err != nil {
			return written, deleted, fmt.Errorf("golden: removing stale snapshot: %w", err)
		}
		deleted = append(deleted, file)
	}
	return written, deleted, nil
}

func check(ctx context.Context, fsys afero.Fs, pack fs.FS, dir string) ([]Problem, error) {
	rendered, err := renderAll(ctx, fsys, pack, dir)
	if err != nil {
		return nil, err
	}
	var problems []Problem
	want := map[string]bool{}
	for _, s := range rendered {
		want[s.file] = true
		old, err := readGoldenFile(fsys, s.file)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			problems = append(problems, Problem{File: s.file, Kind: KindMissing})
		case errors.Is(err, vfs.ErrTooLarge):
			problems = append(problems, Problem{File: s.file, Kind: KindDiffers, Diff: err.Error() + "\n"})
		case err != nil:
			return nil, fmt.Errorf("golden: %w", err)
		case !bytes.Equal(old, s.data):
			d := diff.Diff(s.file, old, s.file+" (rendered)", s.data)
			problems = append(problems, Problem{File: s.file, Kind: KindDiffers, Diff: string(d)})
		}
	}
	existing, err := existingSnapshots(fsys, filepath.Join(dir, "snapshots"))
	if err != nil {
		return nil, err
	}
	for _, file := range existing {
		if !want[file] {
			problems = append(problems, Problem{File: file, Kind: KindStale})
		}
	}
	sort.SliceStable(problems, func(i, j int) bool { return problems[i].File < problems[j].File })
	return problems, nil
}

// renderAll renders dir/scenarios/*.txtar in name order. Other files in
// the folder (a README, editor backups) are ignored.
func renderAll(ctx context.Context, fsys afero.Fs, pack fs.FS, dir string) ([]snapshot, error) {
	scenarioDir := filepath.Join(dir, "scenarios")
	entries, err := afero.ReadDir(fsys, scenarioDir)
	if err != nil {
		return nil, fmt.Errorf("golden: reading scenarios: %w", err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var out []snapshot
	for _, entry := range entries {
		if !entry.Mode().IsRegular() || !strings.HasSuffix(entry.Name(), ".txtar") {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		file := filepath.Join(scenarioDir, entry.Name())
		data, err := readGoldenFile(fsys, file)
		if err != nil {
			return nil, fmt.Errorf("golden: %w", err)
		}
		name := strings.TrimSuffix(entry.Name(), ".txtar")
		sc, err := parse(name, file, data)
		if err != nil {
			return nil, err
		}
		snap, err := Render(ctx, pack, sc)
		if err != nil {
			return nil, err
		}
		out = append(out, snapshot{file: filepath.Join(dir, "snapshots", name+".md"), data: snap})
	}
	return out, nil
}

// existingSnapshots lists the *.md files in snapDir, sorted; a missing
// folder has none.
func existingSnapshots(fsys afero.Fs, snapDir string) ([]string, error) {
	entries, err := afero.ReadDir(fsys, snapDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("golden: reading snapshots: %w", err)
	}
	var files []string
	for _, entry := range entries {
		if entry.Mode().IsRegular() && strings.HasSuffix(entry.Name(), ".md") {
			files = append(files, filepath.Join(snapDir, entry.Name()))
		}
	}
	sort.Strings(files)
	return files, nil
}

// writeAtomic writes data to a temporary file beside file and renames it
// into place, so a reader never sees a half-written snapshot. A new
// snapshot gets 0644 less the umask; a replaced one keeps its mode.
func writeAtomic(fsys afero.Fs, file string, data []byte) error {
	if err := vfs.WriteFileAtomic(fsys, file, data, 0o644); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // it names file, as the message below does
		}
		return fmt.Errorf("golden: writing %s: %w", file, err)
	}
	return nil
}

// maxGoldenFile bounds a scenario or snapshot read: they are the user's
// own files, but one that is huge, or a device, must not exhaust memory.
const maxGoldenFile = 64 << 20

// readGoldenFile reads a regular file of at most maxGoldenFile bytes; a
// named pipe or device is refused without blocking.
func readGoldenFile(fsys afero.Fs, name string) ([]byte, error) {
	return vfs.ReadFile(fsys, name, maxGoldenFile)
}
