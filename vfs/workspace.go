package vfs

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/spf13/afero"
)

// Workspace is the one way the engine reads a directory it does not own
// (an agent workspace, a skills root). Every name is relative to the root
// and goes through Clean; no read leaves the root at any component, and a
// file is read only from the handle checked to be a regular file, so a
// FIFO, a socket or a device is refused without blocking. Symlinks inside
// the root are followed; one that points out of it, or to an absolute
// target at all (the root may have several absolute names), is refused.
//
// On the real disk (OS, or an *afero.OsFs) the kernel resolves each name
// from the folder's open descriptor: an [os.Root], or on Linux, for a
// name without a slash, one *at call that refuses a final symlink. So a
// file swapped for a symlink between two calls cannot lead a read out.
// On other afero filesystems symlinks are resolved in Go where the
// filesystem reports them, the check and the open being two calls.
//
// A Workspace is safe for concurrent use if its filesystem is. Close it
// when done: the OS backend holds a directory descriptor.
type Workspace struct {
	root string
	// display is how Display joins a clean name to root.
	display displayKind

	// The OS backend: the folder read (root, or OSAt's folder), its
	// descriptor (Linux; -1 elsewhere) and FileID, or openErr when it
	// could not be opened (every read then fails with it, so a missing
	// workspace reads as a workspace of missing files). The os.Root is
	// opened on first need, for a name with a slash or a symlink.
	diskDir   string
	fd        int
	dirID     FileID
	openErr   error
	rootOnce  sync.Once
	osRoot    *os.Root
	osRootErr error

	// The afero backend.
	fsys   afero.Fs
	prefix string // what real puts before a relative path: the clean root and a slash, or ""
}

// OS is the real disk, read-only, for [OpenWorkspace] and the engine:
// workspaces opened on it use the race-free OS backend.
func OS() afero.Fs { return osFS{Fs: afero.NewReadOnlyFs(afero.NewOsFs())} }

// OSAt is [OS] for a workspace whose files are read from one folder while
// the agent knows it by another path (a checkout, a mount, a copy on a
// build machine): every workspace [OpenWorkspace] opens on it reads the
// folder dir, with OS's backend, and the root it is given is only what
// [Workspace.Root] and [Workspace.Display] show, so the prompt depends on
// the path the agent knows. An empty dir is the current folder. As an
// afero.Fs it is the whole disk, read-only, like OS; an engine opens a
// workspace only when the request or the config names its path.
func OSAt(dir string) afero.Fs {
	return osFS{Fs: afero.NewReadOnlyFs(afero.NewOsFs()), at: cmp.Or(dir, ".")}
}

// osFS marks the real disk so that OpenWorkspace can recognise it
// through the read-only wrapper.
type osFS struct {
	afero.Fs
	at string // OSAt's folder; "" for OS
}

// IsOS reports whether fsys is the real disk (OS, OSAt or an
// *afero.OsFs), whose workspaces use the OS backend.
func IsOS(fsys afero.Fs) bool {
	switch fsys.(type) {
	case osFS, *afero.OsFs:
		return true
	}
	return false
}

// CheckDisk refuses a filesystem that reads the real disk through a
// wrapper (afero's ReadOnlyFs or RegexpFs over an OsFs, say): its
// workspaces would be read by checking a name, then opening it, and one
// that reports no symlinks would follow one out. Use OS or OSAt. A union
// that hides the disk here is refused at the first file a workspace opens.
func CheckDisk(fsys afero.Fs) error {
	if fsys == nil || IsOS(fsys) {
		return nil
	}
	// A cache answers "/" from memory; an uncached folder shows the disk.
	for _, probe := range []string{"/", os.TempDir()} {
		if fi, err := fsys.Stat(probe); err == nil && fromDisk(fi) {
			return wrappedDiskError(fsys)
		}
	}
	return nil
}

// osInfo is the type of the os package's file infos, which wrappers pass on.
var osInfo = sync.OnceValue(func() reflect.Type {
	for _, p := range []string{os.TempDir(), ".", string(filepath.Separator)} {
		if fi, err := os.Lstat(p); err == nil {
			return reflect.TypeOf(fi)
		}
	}
	return nil
})

// fromDisk reports whether fi describes a file on the real disk.
func fromDisk(fi fs.FileInfo) bool {
	t := osInfo()
	return t != nil && reflect.TypeOf(fi) == t
}

func wrappedDiskError(fsys afero.Fs) error {
	return fmt.Errorf("the filesystem (%s) reads the real disk through a wrapper, which cannot read a workspace free of symlink races; use vfs.OS() or vfs.OSAt(dir), read-only already", fsys.Name())
}

// OpenWorkspace opens the directory root inside fsys for reading. It
// never fails: when root cannot be opened, every read reports why.
// On [OSAt]'s filesystem it opens that folder, and root is only shown.
func OpenWorkspace(fsys afero.Fs, root string) *Workspace {
	w := &Workspace{root: root, fsys: fsys, display: displayKindOf(root), fd: -1}
	if IsOS(fsys) {
		// The folder is the caller's own choice: followed if a symlink.
		dir := cmp.Or(root, ".")
		if o, ok := fsys.(osFS); ok && o.at != "" {
			dir = o.at
		}
		w.diskDir = dir
		w.fd, w.dirID, w.openErr = openDir(dir)
		return w
	}
	if c := path.Clean(root); root != "" && c != "." {
		w.prefix = strings.TrimSuffix(c, "/") + "/"
	}
	return w
}

// Close releases the folder's descriptors, if any.
func (w *Workspace) Close() error {
	var err error
	if w.fd >= 0 {
		err = closeDir(w.fd)
	}
	if w.osRoot != nil {
		err = cmp.Or(w.osRoot.Close(), err)
	}
	return err
}

// openRoot opens the os.Root on first need. Where the folder's descriptor
// is held, the root must be the same folder: the path may lead elsewhere
// by now.
func (w *Workspace) openRoot() (*os.Root, error) {
	w.rootOnce.Do(func() {
		r, err := os.OpenRoot(w.diskDir)
		if err == nil && w.fd >= 0 {
			if fi, serr := r.Stat("."); serr != nil || !IDOf(fi).SameFile(w.dirID) {
				r.Close()
				r, err = nil, &fs.PathError{Op: "open", Path: w.diskDir, Err: errors.New("the folder was replaced while it was read")}
			}
		}
		if r != nil {
			learnEscapeError(r)
		}
		w.osRoot, w.osRootErr = r, err
	})
	return w.osRoot, w.osRootErr
}

// DirID returns the FileID of the folder the workspace reads, as it was
// when opened, where the backend keeps it open (the real disk on Linux).
// An entry is added to, or removed from, a folder only by a change that
// moves its FileID: while it stays, a name found absent stays absent.
func (w *Workspace) DirID() (FileID, bool) { return w.dirID, w.fd >= 0 }

// ErrNoEntry is wrapped by the error of Stat for a plain name (no slash)
// the folder has no entry for, not even a dangling symlink: see DirID.
var ErrNoEntry = fmt.Errorf("no such entry: %w", fs.ErrNotExist)

// Absent is the error Stat gives for a name with no entry in the folder,
// for a caller that knows it is still absent (see DirID).
func (w *Workspace) Absent(name string) error {
	return &fs.PathError{Op: "stat", Path: w.Display(name), Err: ErrNoEntry}
}

// Root returns root as given, for display.
func (w *Workspace) Root() string { return w.root }

// DiskDir returns the folder on the real disk the workspace reads (root,
// or [OSAt]'s folder), for what must find it there, such as a watch for
// changes; "" when the workspace is not on the real disk.
func (w *Workspace) DiskDir() string { return w.diskDir }

// Display returns name joined to the root ("/ws/AGENTS.md") for markers and
// reports. It neither validates nor resolves name.
func (w *Workspace) Display(name string) string {
	// A clean name needs no Clean: one allocation, or none.
	if w.display != displayJoin && name != "." && fs.ValidPath(name) {
		switch w.display {
		case displayName:
			return name
		case displayUnderSlash:
			return "/" + name
		case displayUnderRoot:
			return w.root + "/" + name
		}
	}
	return path.Join(w.root, name)
}

// displayKind is how Display joins a clean name to the root.
type displayKind uint8

const (
	displayJoin       displayKind = iota // the root is not clean: path.Join
	displayName                          // "" or ".": the name alone
	displayUnderSlash                    // "/"
	displayUnderRoot                     // a clean root: root, a slash, the name
)

func displayKindOf(root string) displayKind {
	switch {
	case root == "", root == ".":
		return displayName
	case root == "/":
		return displayUnderSlash
	case path.Clean(root) == root:
		return displayUnderRoot
	}
	return displayJoin
}

// FileID says which file a name led to and which version of it: device
// and inode (zero where the filesystem has none, as in memory), size,
// modification and status-change times, and the type and permission bits.
// Two reads with equal FileIDs read the same bytes, unless a writer kept
// size and both times, which a status-change time makes hard to do.
type FileID struct {
	Dev, Ino            uint64
	Size                int64
	ModTime, ChangeTime int64 // Unix nanoseconds
	Mode                fs.FileMode
}

// SameFile reports whether a and b are one file (device and inode), known
// only where the filesystem reports them.
func (a FileID) SameFile(b FileID) bool {
	return a.Ino != 0 && a.Dev == b.Dev && a.Ino == b.Ino
}

// RacyWindow is how long after a change a file's FileID cannot be
// trusted to tell a later change apart: a same-size rewrite within the
// filesystem's timestamp granularity leaves it as it was (git's "racily
// clean" rule).
const RacyWindow = 2 * time.Second

// Racy reports whether the file changed too shortly before now for its
// FileID to tell a later same-size edit apart. Whatever holds data read
// from such a file reads it again next time. It goes by the change time,
// which only the system sets (a modification time may lie in the future,
// touch -d), or without one by the modification time.
func (a FileID) Racy(now time.Time) bool {
	return now.UnixNano()-cmp.Or(a.ChangeTime, a.ModTime) < int64(RacyWindow)
}

// IDOf is the FileID of what fi describes.
func IDOf(fi fs.FileInfo) FileID {
	id := FileID{Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), Mode: fi.Mode()}
	sysID(fi, &id)
	return id
}

// Entry is one name in a directory listing, not followed: a symlink is
// listed as one.
type Entry struct {
	Name string
	Type fs.FileMode // the type bits only: fs.ModeDir, fs.ModeSymlink, 0 for a regular file, …
}

// dirBatch is how many entries one read of a directory asks for.
const dirBatch = 1024

// ErrNotRegular reports a name that leads to something other than a
// regular file or directory; the error is a *NotRegularError.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError reports a name that leads to a named pipe, a socket or
// a device, which is refused without being read.
type NotRegularError struct {
	Path string // the display path
	Kind string // "named pipe", "socket", "device", …
}

func (e *NotRegularError) Error() string {
	return e.Path + ": " + e.Kind + ", not a regular file"
}

// Is makes errors.Is(err, ErrNotRegular) hold.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// Stat returns the FileID of what name leads to, following symlinks that
// stay inside the root.
func (w *Workspace) Stat(name string) (FileID, error) {
	rel, reason := clean(name)
	if reason != "" {
		return FileID{}, &RefusedError{Name: name, Reason: reason}
	}
	if w.openErr != nil {
		return FileID{}, w.openErr
	}
	if w.diskDir == "" {
		_, info, err := w.lookup(name)
		if err != nil {
			return FileID{}, err
		}
		return IDOf(info), nil
	}
	if id, done, err := w.statPlain(name, rel); done {
		return id, err
	}
	r, err := w.openRoot()
	if err != nil {
		return FileID{}, err
	}
	fi, err := r.Stat(rel)
	if err != nil {
		return FileID{}, w.osError(name, err)
	}
	return IDOf(fi), nil
}

// Lstat returns the FileID of name itself: a final symlink is reported
// as one, not followed. Earlier components are resolved as Stat does.
func (w *Workspace) Lstat(name string) (FileID, error) {
	rel, reason := clean(name)
	if reason != "" {
		return FileID{}, &RefusedError{Name: name, Reason: reason}
	}
	switch {
	case w.openErr != nil:
		return FileID{}, w.openErr
	case w.diskDir != "":
		r, err := w.openRoot()
		if err != nil {
			return FileID{}, err
		}
		fi, err := r.Lstat(rel)
		if err != nil {
			return FileID{}, w.osError(name, err)
		}
		return IDOf(fi), nil
	}
	dir, base := path.Split(rel)
	real := w.real(rel)
	if dir != "" {
		parent, _, err := w.resolve(strings.TrimSuffix(dir, "/"))
		if err != nil {
			return FileID{}, err
		}
		real = path.Join(parent, base)
	}
	fi, err := lstatIfPossible(w.fsys, real)
	if err != nil {
		return FileID{}, err
	}
	return IDOf(fi), nil
}

// lstatIfPossible is Lstat where fsys reports symlinks, else Stat.
func lstatIfPossible(fsys afero.Fs, name string) (fs.FileInfo, error) {
	if l, ok := fsys.(afero.Lstater); ok {
		fi, _, err := l.LstatIfPossible(name)
		return fi, err
	}
	return fsys.Stat(name)
}

// ReadDirN lists at most n entries of the directory name, reading it in
// batches so that a huge directory costs no more than n entries; more
// reports that it holds others, which are left unread. The n entries are
// the first the backing filesystem lists, sorted by name. Entries are not
// followed.
func (w *Workspace) ReadDirN(name string, n int) (entries []Entry, more bool, err error) {
	f, _, err := w.open(name, true)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	n = max(n, 0)
	out, err := readEntries(f, n+1) // one more says whether n was all
	if err != nil {
		return nil, false, &fs.PathError{Op: "readdir", Path: w.Display(name), Err: err}
	}
	if len(out) > n {
		out, more = out[:n], true
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return out, more, nil
}

// ReadFile returns the whole file name and its FileID, or an error
// wrapping ErrTooLarge when it holds more than maxBytes bytes (it never
// reads more than maxBytes+1; a negative limit counts as 0).
func (w *Workspace) ReadFile(name string, maxBytes int64) ([]byte, FileID, error) {
	f, id, err := w.open(name, false)
	if err != nil {
		return nil, FileID{}, err
	}
	defer f.Close()
	data, err := readAtMost(f, maxBytes, id.Size)
	if err != nil {
		return nil, FileID{}, &fs.PathError{Op: "read", Path: w.Display(name), Err: err}
	}
	return data, id, nil
}

// ReadText streams the text file name once from a checked handle; see
// [Text] and readText for what it keeps. Text.ID is the handle's.
//
// Errors: errors.Is(err, fs.ErrNotExist) for a missing file, a
// *RefusedError for a refused path, errors.Is(err, ErrIsDir) for a
// directory, errors.Is(err, ErrNotRegular) for a pipe, socket or device,
// otherwise an error naming the file. Reads are bounded (readBounded).
func (w *Workspace) ReadText(name string, keep Keep) (Text, error) {
	f, id, err := w.open(name, false)
	if err != nil {
		return Text{}, err
	}
	defer f.Close()
	// A small file gets a small buffer; a size of 0 may be a lie (procfs).
	buf := make([]byte, min(readBufSize, max(id.Size, 512)+utf8.UTFMax))
	t, err := readBounded(f, keep, buf, id.Size)
	if err != nil {
		return Text{}, &fs.PathError{Op: "read", Path: w.Display(name), Err: err}
	}
	t.ID = id
	return t, nil
}

// maxTextScan bounds the bytes ReadText reads of one file.
const maxTextScan = 64 << 20

// readBounded reads f, of size bytes, with readText: up to maxTextScan
// bytes, or if longer and seekable as its head and tail, read apart, the
// bytes between counted a code point each (exact for ASCII).
func readBounded(f io.Reader, keep Keep, buf []byte, size int64) (Text, error) {
	// What the code points kept at an end take, and a sequence cut there.
	headBytes := int64(min(keep.Head, maxTextScan)+1) * utf8.UTFMax
	tailBytes := int64(min(keep.Tail, maxTextScan)+1) * utf8.UTFMax
	seeker, ok := f.(io.ReadSeeker)
	if !ok || size <= maxTextScan || headBytes+tailBytes >= size {
		return readText(io.LimitReader(f, maxTextScan), keep, buf, size)
	}
	head, err := readText(io.LimitReader(f, headBytes), Keep{Head: keep.Head}, buf, headBytes)
	if err == nil && !head.Binary {
		_, err = seeker.Seek(size-tailBytes, io.SeekStart)
	}
	if err != nil || head.Binary {
		return head, err
	}
	tail, err := readText(io.LimitReader(f, tailBytes), Keep{Tail: keep.Tail, TrimSpace: keep.TrimSpace}, buf, tailBytes)
	if err != nil || tail.Binary {
		return tail, err
	}
	return Text{RawChars: head.RawChars + int(size-headBytes-tailBytes) + tail.RawChars,
		Head: head.Head, Tail: tail.Tail, TrailingSpace: tail.TrailingSpace}, nil
}

// readEntries lists up to limit entries of an open directory, in batches
// of at most dirBatch. An *os.File lists with the types the directory
// itself records, without a stat per entry.
func readEntries(f handle, limit int) ([]Entry, error) {
	var out []Entry
	for len(out) < limit {
		batch := min(dirBatch, limit-len(out))
		var err error
		if osf, ok := f.(*os.File); ok {
			var des []fs.DirEntry
			des, err = osf.ReadDir(batch)
			for _, de := range des {
				out = append(out, Entry{Name: de.Name(), Type: de.Type()})
			}
		} else {
			var infos []fs.FileInfo
			infos, err = f.Readdir(batch)
			for _, fi := range infos {
				out = append(out, Entry{Name: fi.Name(), Type: fi.Mode().Type()})
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// handle is what both backends open: an *os.File or an afero.File.
type handle interface {
	io.Reader
	io.Closer
	Stat() (fs.FileInfo, error)
	Readdir(n int) ([]fs.FileInfo, error)
}

// open opens name once and checks the open handle: a directory when dir
// is set, a regular file otherwise.
func (w *Workspace) open(name string, dir bool) (handle, FileID, error) {
	rel, reason := clean(name)
	if reason != "" {
		return nil, FileID{}, &RefusedError{Name: name, Reason: reason}
	}
	var f handle
	switch {
	case w.openErr != nil:
		return nil, FileID{}, w.openErr
	case w.diskDir != "":
		osf, err := w.openOS(name, rel, dir)
		if err != nil {
			return nil, FileID{}, err
		}
		f = osf
	default:
		real, info, err := w.resolve(name)
		if err != nil {
			return nil, FileID{}, err
		}
		// Opening a FIFO blocks; refuse what is not a file or directory
		// before opening it (the walk's last lstat usually says).
		if info == nil {
			if info, err = w.fsys.Stat(real); err != nil {
				return nil, FileID{}, err
			}
		}
		if err := w.checkType(name, info.Mode(), dir); err != nil {
			return nil, FileID{}, err
		}
		af, err := w.fsys.Open(real)
		if err != nil {
			return nil, FileID{}, err
		}
		f = af
	}
	fi, err := f.Stat()
	if err == nil && w.diskDir == "" && fromDisk(fi) { // a wrapper CheckDisk could not see through
		err = &fs.PathError{Op: "open", Path: w.Display(name), Err: wrappedDiskError(w.fsys)}
	}
	if err == nil {
		err = w.checkType(name, fi.Mode(), dir)
	}
	if err != nil {
		f.Close()
		return nil, FileID{}, err
	}
	return f, IDOf(fi), nil
}

// openOS opens name on the disk. A stat first keeps devices and pipes
// from being opened at all; the open is non-blocking all the same, and
// open checks its handle, so a swap between the two is refused too.
func (w *Workspace) openOS(name, rel string, dir bool) (*os.File, error) {
	if id, done, err := w.statPlain(name, rel); done {
		if err == nil {
			err = w.checkType(name, id.Mode, dir)
		}
		if err != nil {
			return nil, err
		}
		f, err := openAt(w.fd, rel, dir)
		// ELOOP, or ENOTDIR for a folder: a symlink by now, which the
		// root follows.
		if err == nil || !errors.Is(err, syscall.ELOOP) && !errors.Is(err, syscall.ENOTDIR) {
			if err != nil {
				return nil, &fs.PathError{Op: "open", Path: w.Display(name), Err: err}
			}
			return f, nil
		}
	}
	r, err := w.openRoot()
	if err != nil {
		return nil, err
	}
	fi, err := r.Stat(rel)
	if err != nil {
		return nil, w.osError(name, err)
	}
	if err := w.checkType(name, fi.Mode(), dir); err != nil {
		return nil, err
	}
	f, err := r.OpenFile(rel, openFlags(dir), 0)
	if err != nil {
		return nil, w.osError(name, err)
	}
	return f, nil
}

// statPlain stats a name without a slash through the folder's
// descriptor. done is false where there is none, and for a symlink,
// which the os.Root resolves.
func (w *Workspace) statPlain(name, rel string) (id FileID, done bool, err error) {
	if w.fd < 0 || strings.Contains(rel, "/") {
		return FileID{}, false, nil
	}
	id, err = statAt(w.fd, rel)
	switch {
	case errors.Is(err, syscall.ENOENT):
		return FileID{}, true, w.Absent(name)
	case err != nil:
		return FileID{}, true, &fs.PathError{Op: "stat", Path: w.Display(name), Err: err}
	}
	return id, id.Mode&fs.ModeSymlink == 0, nil
}

// checkType refuses a handle or info of the wrong kind.
func (w *Workspace) checkType(name string, m fs.FileMode, dir bool) error {
	switch {
	case dir && m.IsDir(), !dir && m.IsRegular():
		return nil
	case m.IsDir():
		return &fs.PathError{Op: "read", Path: w.Display(name), Err: ErrIsDir}
	case dir && m.IsRegular():
		return &fs.PathError{Op: "readdir", Path: w.Display(name), Err: syscall.ENOTDIR}
	}
	return &NotRegularError{Path: w.Display(name), Kind: KindName(m)}
}

// KindName names a file type for a refusal: "named pipe", "socket",
// "character device", "device", "directory", "symlink".
func KindName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	}
	return "special file"
}

// escapeErr is the error os.Root gives for a path that leaves it; the
// os package does not export it, so it is learnt from a path that must
// escape (see learnEscapeError).
var (
	escapeOnce sync.Once
	escapeErr  error
)

// learnEscapeError records the error r gives for "..", which os.Root
// refuses lexically without touching the disk.
func learnEscapeError(r *os.Root) {
	escapeOnce.Do(func() {
		_, err := r.Lstat("..")
		var pe *fs.PathError
		if errors.As(err, &pe) {
			escapeErr = pe.Err
		}
	})
}

// osError turns an os.Root error into the workspace's own: a refusal for
// a path leading out or into a loop, a missing file for a missing or
// non-directory component.
func (w *Workspace) osError(name string, err error) error {
	switch {
	case escapeErr != nil && errors.Is(err, escapeErr):
		return &RefusedError{Name: name, Reason: reasonLinkOut}
	case errors.Is(err, syscall.ELOOP):
		return &RefusedError{Name: name, Reason: reasonLinkLoop}
	case errors.Is(err, syscall.ENOTDIR):
		return &fs.PathError{Op: "open", Path: w.Display(name), Err: fmt.Errorf("a component is not a directory: %w", fs.ErrNotExist)}
	}
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		// os.Root names the path relative to the root. The error is this
		// call's own, so it is renamed in place rather than copied.
		pe.Path = w.Display(name)
		return pe
	}
	return err
}
