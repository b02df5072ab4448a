package vfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/afero"
)

// Pack layers a user pack over the built-in pack. A user file replaces the
// built-in file of the same path, new user files are added, and directories
// present in both are merged; where one side has a file and the other a
// directory of the same name, the user's wins. Listings are sorted by name.
// user may be nil (built-in only).
//
// Nothing is cached: every Open reaches the user filesystem again, so an
// edited section shows up on the next render. Names must satisfy
// [fs.ValidPath]; anything else fails with fs.ErrInvalid before reaching
// either filesystem.
func Pack(builtin fs.FS, user afero.Fs) fs.FS {
	return &packFS{builtin: builtin, user: user}
}

// OSDir returns a read-only view of an OS directory, suitable as Pack's user
// argument. It reads the disk on every call. The directory is the user's own
// pack, so its symlinks are followed wherever they point; names reaching it
// through Pack are already validated, which is the actual guard against
// "..": afero's BasePathFs is not a security boundary on its own.
func OSDir(dir string) afero.Fs {
	// BasePathFs refuses every name under a base of "." (its check
	// compares "templates" with the prefix "."), so the base is absolute.
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return afero.NewReadOnlyFs(afero.NewBasePathFs(afero.NewOsFs(), dir))
}

type packFS struct {
	builtin fs.FS
	user    afero.Fs // nil: built-in only
}

var (
	_ fs.ReadDirFS = (*packFS)(nil)
	_ fs.StatFS    = (*packFS)(nil)
)

func (p *packFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	userInfo, err := p.userStat("open", name)
	if err != nil {
		return nil, err
	}
	if userInfo != nil && !userInfo.IsDir() {
		// Opening a named pipe blocks until someone writes to it, and a
		// device can be read for ever: only regular files are opened.
		if !userInfo.Mode().IsRegular() {
			return nil, &NotRegularError{Path: name, Kind: KindName(userInfo.Mode())}
		}
		f, err := p.user.Open(name)
		if err != nil {
			return nil, err
		}
		return readOnlyFile{f}, nil
	}
	if userInfo == nil {
		builtinInfo, err := fs.Stat(p.builtin, name)
		if err != nil {
			return nil, err
		}
		if !builtinInfo.IsDir() {
			return p.builtin.Open(name)
		}
		userInfo = builtinInfo
	}
	entries, err := p.ReadDir(name)
	if err != nil {
		return nil, err
	}
	return &packDir{name: name, info: userInfo, entries: entries}, nil
}

func (p *packFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	userInfo, err := p.userStat("stat", name)
	if err != nil {
		return nil, err
	}
	if userInfo != nil {
		return userInfo, nil
	}
	return fs.Stat(p.builtin, name)
}

// ReadDir merges both listings, the user's entry winning a name clash.
func (p *packFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	userInfo, err := p.userStat("readdir", name)
	if err != nil {
		return nil, err
	}
	if userInfo != nil && !userInfo.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	builtinEntries, err := fs.ReadDir(p.builtin, name)
	if err != nil {
		if userInfo == nil {
			return nil, err
		}
		// A directory only the user has, or one replacing a built-in file.
		builtinEntries = nil
	}
	byName := make(map[string]fs.DirEntry, len(builtinEntries))
	for _, e := range builtinEntries {
		byName[e.Name()] = e
	}
	if userInfo != nil {
		infos, err := afero.ReadDir(p.user, name)
		if err != nil {
			return nil, err
		}
		for _, fi := range infos {
			byName[fi.Name()] = fs.FileInfoToDirEntry(fi)
		}
	}
	entries := make([]fs.DirEntry, 0, len(byName))
	for _, e := range byName {
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// userStat returns the user layer's info for name, or nil when the user
// layer is absent or has nothing there. A user file standing where the
// path has a directory hides the built-in tree below it, as in listings.
func (p *packFS) userStat(op, name string) (fs.FileInfo, error) {
	if p.user == nil {
		return nil, nil
	}
	fi, err := p.user.Stat(name)
	switch {
	case err == nil:
		return fi, nil
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return nil, err
	}
	for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
		if fi, err := p.user.Stat(dir); err == nil && !fi.IsDir() {
			return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
	}
	return nil, nil
}

// readOnlyFile hides the write methods of an afero.File.
type readOnlyFile struct{ f afero.File }

func (r readOnlyFile) Stat() (fs.FileInfo, error) { return r.f.Stat() }
func (r readOnlyFile) Read(b []byte) (int, error) { return r.f.Read(b) }
func (r readOnlyFile) Close() error               { return r.f.Close() }

// packDir is an open merged directory.
type packDir struct {
	name    string
	info    fs.FileInfo
	entries []fs.DirEntry // remaining, sorted
}

func (d *packDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *packDir) Close() error               { return nil }

func (d *packDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: ErrIsDir}
}

// ReadDir follows the fs.ReadDirFile contract for n > 0 and n <= 0.
func (d *packDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if n <= 0 {
		out := d.entries
		d.entries = nil
		return out, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.entries))
	out := d.entries[:n:n]
	d.entries = d.entries[n:]
	return out, nil
}

// Eject copies every regular file of src into dir on dst, or only the
// files named (slash-separated paths in src, such as
// "sections/safety.md.tmpl"), creating directories with mode 0755 and
// files with 0644. It refuses when dir exists and is not an empty
// directory, and a name that is not a regular file of src. The copy is assembled in a temporary
// sibling of dir (".<base>.eject-<random>") and renamed into place at the
// end, so on error nothing is left behind; into an empty dir that existed
// before, its entries are renamed one by one, so dir itself (".", or a
// symlink's target) stays.
func Eject(src fs.FS, dst afero.Fs, dir string, files ...string) error {
	if dir == "" {
		return errors.New("eject: empty target directory")
	}
	for _, name := range files {
		if fi, err := fs.Stat(src, name); err != nil || !fi.Mode().IsRegular() || !fs.ValidPath(name) {
			return fmt.Errorf("eject: %s is not a file of the pack", name)
		}
	}
	existed, err := checkEjectTarget(dst, dir)
	if err != nil {
		return err
	}
	parent, base := filepath.Dir(filepath.Clean(dir)), filepath.Base(filepath.Clean(dir))
	if err := dst.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("eject: %w", err)
	}
	tmp, err := afero.TempDir(dst, parent, "."+base+".eject-")
	if err != nil {
		return fmt.Errorf("eject: %w", err)
	}
	if err := copyFiles(src, dst, tmp, files); err != nil {
		_ = dst.RemoveAll(tmp)
		return fmt.Errorf("eject into %s: %w", dir, err)
	}
	if err := dst.Chmod(tmp, 0o755); err != nil {
		_ = dst.RemoveAll(tmp)
		return fmt.Errorf("eject: %w", err)
	}
	if existed {
		err = moveInto(dst, tmp, dir)
	} else {
		err = dst.Rename(tmp, dir)
	}
	if err != nil {
		_ = dst.RemoveAll(tmp)
		return fmt.Errorf("eject: %w", err)
	}
	return nil
}

// moveInto renames each entry of the folder from into the empty folder
// to, then removes from; a failed rename takes the ones moved back out.
// Removing to and renaming from in its place would fail for "." and
// would replace a symlink with a folder.
func moveInto(dst afero.Fs, from, to string) error {
	entries, err := afero.ReadDir(dst, from) // what the copy wrote: the pack's top folders
	if err != nil {
		return err
	}
	for i, e := range entries {
		if err := dst.Rename(filepath.Join(from, e.Name()), filepath.Join(to, e.Name())); err != nil {
			for _, moved := range entries[:i] {
				_ = dst.RemoveAll(filepath.Join(to, moved.Name()))
			}
			return err
		}
	}
	return dst.Remove(from)
}

// checkEjectTarget reports whether dir exists, refusing a file or a
// non-empty directory.
func checkEjectTarget(dst afero.Fs, dir string) (bool, error) {
	fi, err := dst.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("eject: %w", err)
	}
	if !fi.IsDir() {
		return false, fmt.Errorf("eject: %s exists and is not a directory", dir)
	}
	f, err := dst.Open(dir)
	if err != nil {
		return false, fmt.Errorf("eject: %w", err)
	}
	names, err := f.Readdirnames(1)
	f.Close()
	if err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("eject: reading %s: %w", dir, err)
	}
	if len(names) > 0 {
		return false, fmt.Errorf("eject: refusing to write into non-empty directory %s", dir)
	}
	return true, nil
}

// copyFiles copies the named files of src under root, or all its
// regular files (a pack holds no empty folder, nor anything else).
func copyFiles(src fs.FS, dst afero.Fs, root string, files []string) error {
	if len(files) == 0 {
		err := fs.WalkDir(src, ".", func(name string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				files = append(files, name)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	files = slices.Compact(slices.Sorted(slices.Values(files)))
	for _, name := range files {
		target := path.Join(root, name)
		if err := dst.MkdirAll(path.Dir(target), 0o755); err != nil {
			return err
		}
		if err := copyFile(src, name, dst, target); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src fs.FS, name string, dst afero.Fs, target string) error {
	in, err := src.Open(name)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := dst.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying %s: %w", name, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", target, err)
	}
	return nil
}
