//go:build unix

package vfs

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The OS backend resolves names through an os.Root: links inside the root
// are followed, links out of it refused, at any component. OSAt is the
// same backend: the folder it names is the root, and the root a
// workspace is opened with is only shown.
func TestOSRootSymlinks(t *testing.T) {
	root := osTree(t, map[string]string{
		"AGENTS.md":          "agents",
		"personas/pirate.md": "arr",
		"docs/deep/file.md":  "deep",
	})
	for name, target := range map[string]string{
		"SOUL.md":        "personas/pirate.md",             // relative, inside
		"TOOLS.md":       filepath.Join(root, "AGENTS.md"), // absolute, inside: refused here
		"USER.md":        "/etc/passwd",
		"escape.md":      "../secret.txt",
		"docs/up.md":     "../AGENTS.md",
		"linkdir":        "docs/deep",
		"outdir":         filepath.Dir(root), // a directory component leading out
		"loop/a":         "b",
		"loop/b":         "a",
		"dangling.md":    "nowhere.md",
		"skills":         filepath.Dir(root), // a skills root leading out
		"memory":         "../",              // likewise, relative
		"docs/dotted.md": "./../personas/./pirate.md",
	} {
		symlink(t, root, name, target)
	}
	// A folder that exists, with other files: OSAt must not read it.
	decoy := osTree(t, map[string]string{"AGENTS.md": "decoy", "SOUL.md": "decoy"})
	for name, open := range map[string]struct {
		fsys  afero.Fs
		shown string
	}{"OS": {OS(), root}, "OSAt": {OSAt(root), decoy}} {
		t.Run(name, func(t *testing.T) {
			require.True(t, IsOS(open.fsys))
			w := OpenWorkspace(open.fsys, open.shown)
			defer w.Close()
			require.NoError(t, w.openErr)
			assert.Equal(t, open.shown, w.Root())
			assert.Equal(t, root, w.DiskDir())
			checkOSRootSymlinks(t, w)
			_, err := w.ReadText("nope.md", Keep{Whole: 100})
			var pe *fs.PathError
			require.ErrorAs(t, err, &pe)
			assert.ErrorIs(t, err, fs.ErrNotExist)
			assert.Equal(t, path.Join(open.shown, "nope.md"), pe.Path, "errors name the shown path")
		})
	}
}

// checkOSRootSymlinks reads the links TestOSRootSymlinks made in w.
func checkOSRootSymlinks(t *testing.T, w *Workspace) {
	t.Helper()
	for name, want := range map[string]string{
		"SOUL.md": "arr", "docs/up.md": "agents", "linkdir/file.md": "deep", "docs/dotted.md": "arr", "AGENTS.md": "agents",
	} {
		got, err := w.ReadText(name, Keep{Whole: 100})
		require.NoError(t, err, name)
		assert.Equal(t, want, got.Content, name)
	}
	for name, reason := range map[string]string{
		"TOOLS.md":          reasonLinkOut,
		"USER.md":           reasonLinkOut,
		"escape.md":         reasonLinkOut,
		"outdir/secret.txt": reasonLinkOut,
		"skills":            reasonLinkOut,
		"memory/secret.txt": reasonLinkOut,
		"loop/a":            reasonLinkLoop,
		"../secret.txt":     reasonEscapes,
	} {
		var refused *RefusedError
		_, err := w.ReadText(name, Keep{Whole: 100})
		require.True(t, errors.As(err, &refused), "%s: %v", name, err)
		assert.Equal(t, reason, refused.Reason, name)
		_, err = w.Stat(name)
		assert.True(t, errors.As(err, &refused), "Stat %s: %v", name, err)
		_, _, err = w.ReadFile(name, 100)
		assert.True(t, errors.As(err, &refused), "ReadFile %s: %v", name, err)
		_, _, err = w.ReadDirN(name, 10)
		assert.True(t, errors.As(err, &refused), "ReadDirN %s: %v", name, err)
	}

	_, err := w.ReadText("dangling.md", Keep{Whole: 100})
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = w.ReadText("AGENTS.md/child", Keep{Whole: 100})
	assert.ErrorIs(t, err, fs.ErrNotExist, "a file used as a directory is missing")
	_, err = w.ReadText("linkdir", Keep{Whole: 100})
	assert.ErrorIs(t, err, ErrIsDir)

	id, err := w.Lstat("SOUL.md")
	require.NoError(t, err)
	assert.NotZero(t, id.Mode&fs.ModeSymlink, "Lstat reports the link itself")
	id, err = w.Stat("SOUL.md")
	require.NoError(t, err)
	assert.True(t, id.Mode.IsRegular())
	assert.NotZero(t, id.Ino)
	assert.NotZero(t, id.ChangeTime)

	entries, _, err := w.ReadDirN(".", 100)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
		if e.Name == "SOUL.md" {
			assert.NotZero(t, e.Type&fs.ModeSymlink, "listings do not follow links")
		}
	}
	assert.IsIncreasing(t, names)
}

// A workspace whose root does not exist reads as one of missing files.
func TestOSRootMissing(t *testing.T) {
	w := OpenWorkspace(OS(), filepath.Join(t.TempDir(), "nope"))
	defer w.Close()
	_, err := w.ReadText("AGENTS.md", Keep{Whole: 10})
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = w.Stat("skills")
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

// A workspace root that is a FIFO or a file reads as a missing folder,
// without blocking.
func TestOSRootNotADirectory(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	for _, root := range []string{fifo, file} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			w := OpenWorkspace(OS(), root)
			defer w.Close()
			_, err := w.ReadText("AGENTS.md", Keep{Whole: 10})
			assert.ErrorIs(t, err, fs.ErrNotExist, root)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("opening %s as a workspace blocked", root)
		}
	}
}

// A socket is refused by type, and a file listed as a folder says so, on
// the OS backend as on the walk.
func TestOSRootSocketAndFileAsFolder(t *testing.T) {
	root := osTree(t, map[string]string{"AGENTS.md": "agents"})
	l, err := net.Listen("unix", filepath.Join(root, "SOUL.md"))
	if err != nil {
		t.Skipf("unix socket: %v", err)
	}
	defer l.Close()
	for name, fsys := range map[string]afero.Fs{"os": OS(), "walk": afero.NewReadOnlyFs(afero.NewOsFs())} {
		w := OpenWorkspace(fsys, root)
		_, err := w.ReadText("SOUL.md", Keep{Whole: 10})
		var nr *NotRegularError
		if assert.True(t, errors.As(err, &nr), "%s: %v", name, err) {
			assert.Equal(t, "socket", nr.Kind)
			assert.Contains(t, err.Error(), filepath.Join(root, "SOUL.md"))
		}
		_, _, err = w.ReadDirN("AGENTS.md", 10)
		assert.ErrorIs(t, err, syscall.ENOTDIR, name)
		assert.Contains(t, err.Error(), "AGENTS.md")
		w.Close()
	}
}

// A FIFO (or any non-regular file) is refused without blocking, on both
// backends, whatever method reaches it.
func TestFIFORefusedWithoutBlocking(t *testing.T) {
	root := osTree(t, map[string]string{"AGENTS.md": "agents"})
	if err := syscall.Mkfifo(filepath.Join(root, "SOUL.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "skills"), 0o644))
	for name, fsys := range map[string]afero.Fs{"os": OS(), "walk": afero.NewReadOnlyFs(afero.NewOsFs())} {
		t.Run(name, func(t *testing.T) {
			w := OpenWorkspace(fsys, root)
			defer w.Close()
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, err := w.ReadText("SOUL.md", Keep{Whole: 100})
				var nr *NotRegularError
				if assert.True(t, errors.As(err, &nr), "%v", err) {
					assert.Equal(t, "named pipe", nr.Kind)
				}
				assert.ErrorIs(t, err, ErrNotRegular)
				_, _, err = w.ReadFile("SOUL.md", 100)
				assert.ErrorIs(t, err, ErrNotRegular)
				_, _, err = w.ReadDirN("skills", 10)
				assert.Error(t, err)
				id, err := w.Stat("SOUL.md")
				assert.NoError(t, err, "a stat does not open")
				assert.NotZero(t, id.Mode&fs.ModeNamedPipe)
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("reading a FIFO blocked")
			}
		})
	}
}

// An agent that swaps a file for a symlink to a secret outside the
// workspace, as fast as it can, never gets the secret read: every name is
// resolved and opened in one step, relative to the root's descriptor.
func TestSwapRaceNeverLeaks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: swaps a file for a symlink as fast as it can")
	}
	root := osTree(t, map[string]string{"SOUL.md": "inside"})
	secret := filepath.Join(filepath.Dir(root), "secret.txt")
	w := OpenWorkspace(OS(), root)
	defer w.Close()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var swaps atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		soul, tmpFile, tmpLink := filepath.Join(root, "SOUL.md"), filepath.Join(root, ".f"), filepath.Join(root, ".l")
		for {
			select {
			case <-stop:
				return
			default:
			}
			os.WriteFile(tmpFile, []byte("inside"), 0o644)
			os.Rename(tmpFile, soul)
			os.Symlink(secret, tmpLink)
			os.Rename(tmpLink, soul)
			swaps.Add(1)
		}
	}()
	reads := 10000
	if testing.Short() {
		reads = 2000
	}
	leaked, ok := 0, 0
	// Read at least reads times, and on until the swapper has swapped a
	// thousand times (bounded: the swapper may be starved on a busy machine).
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; i < reads || (swaps.Load() < 1000 && time.Now().Before(deadline)); i++ {
		text, err := w.ReadText("SOUL.md", Keep{Whole: 100})
		if err == nil {
			ok++
			if text.Content != "inside" {
				leaked++
			}
		}
	}
	close(stop)
	wg.Wait()
	assert.Zero(t, leaked, "read the outside file %d times", leaked)
	assert.Positive(t, ok, "no read succeeded: the test exercised nothing")
	assert.Greater(t, swaps.Load(), int64(10), "the swapper barely ran")
}

// ReadFile refuses a named pipe from its open handle, without blocking.
func TestReadFileOfFSFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "state.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadFile(afero.NewOsFs(), fifo, 100)
		done <- err
	}()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, ErrNotRegular)
		assert.ErrorContains(t, err, "named pipe")
	case <-time.After(5 * time.Second):
		t.Fatal("reading a named pipe blocked")
	}
}

// A named pipe in a user pack folder is refused without being opened:
// opening it would block until something wrote to it.
func TestPackRefusesANamedPipe(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sections"), 0o755))
	if err := syscall.Mkfifo(filepath.Join(dir, "sections", "safety.md.tmpl"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	builtin := fstest.MapFS{"sections/safety.md.tmpl": {Data: []byte("built in")}}
	done := make(chan error, 1)
	go func() {
		_, err := fs.ReadFile(Pack(builtin, OSDir(dir)), "sections/safety.md.tmpl")
		done <- err
	}()
	select {
	case err := <-done:
		var nr *NotRegularError
		require.ErrorAs(t, err, &nr)
		assert.Equal(t, "sections/safety.md.tmpl", nr.Path)
	case <-time.After(10 * time.Second):
		t.Fatal("opening a named pipe in the pack blocked")
	}
}
