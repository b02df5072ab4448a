package bootstrap

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/sysprompt/sysprompt/engine/internal/tidy"
	"github.com/sysprompt/sysprompt/internal/runes"
	"github.com/sysprompt/sysprompt/vfs"
)

// readWindow is how much of a file is read for a per-file budget of
// maxChars. Files are normalised after reading (CRLF to LF, trailing white
// space trimmed), which can halve a count, so the window is twice the
// largest cut plus slack: any file up to 2*maxChars+64 code points is read
// whole and counted exactly, and a longer one still yields enough head and
// tail for its cut.
func readWindow(maxChars int) vfs.Keep {
	maxChars = min(maxChars, math.MaxInt/4) // keep the sums below from overflowing
	head, tail := maxKept(maxChars)
	return vfs.Keep{Whole: 2*maxChars + minStart, Head: 2 * head, Tail: 2*tail + minStart, TrimSpace: true}
}

// text is a file as read and normalised, with its counts.
type text struct {
	whole      bool   // head is the whole normalised file; tail is the same
	head, tail string // the whole file, or the start and the end of a long one
	headChars  int
	tailChars  int
	raw        int // code points of the normalised file
	binary     bool
	id         vfs.FileID
	display    string // where it was read, for markers; "" when not known
	// last is the last injection worked out for this text (nil in tests
	// that build a text by hand): a cut and its markers depend only on the
	// text, the budget and the display path.
	last *atomic.Pointer[injection]
}

// injection is what load injects for a text: the cut for budget, or the
// binary marker (budget 0), before any clamp to what is left of the total.
type injection struct {
	budget   int
	display  string
	boundary string
	s        string
	chars    int
}

// Text is a file as Load uses it: read from a checked handle, normalised
// and counted once. A TextReader keeps Texts by file identity and hands
// the same one back while the file is unchanged, so that a turn over
// unchanged files scans none of them again, nor cuts one again for the
// same budget.
type Text struct{ t *text }

// Prepare normalises a text ReadText returned, for a TextReader to keep.
// display is where it was read (Reader.Display of its path). The Text
// keeps what Load injects of it, so keep one per Markers.
func Prepare(t vfs.Text, display string) Text {
	n := normalized(t)
	n.display = display
	n.last = new(atomic.Pointer[injection])
	return Text{&n}
}

// ID is the FileID the text was read with.
func (t Text) ID() vfs.FileID { return t.t.id }

// Size is about how many bytes the Text holds, for a cache's bound.
func (t Text) Size() int {
	if t.t == nil {
		return 0
	}
	n := len(t.t.head) + len(t.t.display)
	if !t.t.whole {
		n += len(t.t.tail)
	}
	return n
}

// TextReader is a Reader that hands out prepared Texts, such as a
// snapshot that keeps them by file identity; Load reads through
// ReadPrepared when its Reader is one.
type TextReader interface {
	Reader
	ReadPrepared(name string, keep vfs.Keep) (Text, error)
}

// normalized applies normalize to what was read. A file read whole gets an
// exact count. Of a longer file only head and tail are at hand, the tail
// ending before the file's trailing white space: CRLFs are dropped in both
// and the count is corrected for what was dropped; CRLFs in the unseen
// middle are still counted, so its RawChars may be slightly high. A long
// file whose text ends within the head (or is only white space) is whole.
func normalized(t vfs.Text) text {
	out := text{binary: t.Binary, id: t.ID}
	if t.Head == "" && t.Tail == "" || t.RawChars-t.TrailingSpace <= runes.Count(t.Head) {
		out.whole = true
		content := cmp.Or(t.Content, t.Head)
		if strings.Contains(content, "\r") || t.Content == "" {
			out.head = normalize(content)
			out.raw = runes.Count(out.head)
		} else {
			// Only trailing white space goes: count what went, not what stays.
			out.head = normalize(content)
			out.raw = t.RawChars - runes.Count(content[len(out.head):])
		}
		out.tail = out.head
		out.headChars, out.tailChars = out.raw, out.raw
		return out
	}
	out.head = unixLines(t.Head) // not trimmed: the file goes on past it
	out.tail = normalize(t.Tail)
	out.headChars, out.tailChars = runes.Count(out.head), runes.Count(out.tail)
	out.raw = t.RawChars - t.TrailingSpace - (runes.Count(t.Head) - out.headChars) - (runes.Count(t.Tail) - out.tailChars)
	return out
}

// loader reads and budgets candidates in charging order.
type loader struct {
	ws        Reader
	prepared  TextReader // ws, when it is one
	plan      *plan
	remaining int
	loaded    []loaded // files already taken, for duplicate detection
	private   []*text  // the private files, when the session may not see them
	// privateIDs are the files in private folders, by identity: a symlink
	// or hard link to one (SOUL.md -> memory/2026-11-30.md) is as private.
	privateIDs []vfs.FileID
}

type loaded struct {
	name string
	path string
	text *text
}

// load returns the File for c, or ok=false when c is left out entirely
// (optional and missing, or a second name for a file already taken).
func (l *loader) load(c candidate) (f File, ok bool, err error) {
	f = File{Name: c.Name, Path: c.Path, Dynamic: c.dynamic, Startup: c.startup}
	t, err := l.read(c.Path)
	if err != nil {
		if _, refused := errors.AsType[*vfs.RefusedError](err); c.redirected && refused {
			return File{}, false, fmt.Errorf("bootstrap: %s -> %s: %w", c.Name, c.Path, err)
		}
		return l.unavailable(f, c, err)
	}
	f.Display = t.display
	if !c.private && (slices.ContainsFunc(l.private, t.sameAs) || slices.ContainsFunc(l.privateIDs, t.id.SameFile)) {
		c.markPrivate()
	}
	f.Private = c.private
	if l.duplicate(c, t) {
		return File{}, false, nil
	}
	l.loaded = append(l.loaded, loaded{name: c.Name, path: c.Path, text: t})

	if t.binary {
		// A file left out (private, or routed elsewhere) gets no marker.
		f.Status, f.Reason = StatusSkipped, cmp.Or(c.omit, ReasonBinary)
		if c.omit == "" {
			in := t.injected(0, f.Display, l.plan.opts.Boundary, func() (string, int) {
				m := l.plan.opts.Markers.Binary(f.Display)
				return m, runes.Count(m)
			})
			l.injectMarker(&f, in.s)
		}
		return f, true, nil
	}
	f.RawChars = t.raw
	f.NearLimit = t.raw >= nearLimit(l.plan.opts.MaxChars)
	budget := min(l.plan.maxChars, l.remaining)
	switch {
	case t.raw == 0:
		f.Status, f.Reason = StatusSkipped, ReasonEmpty
	case c.omit != "":
		f.Status, f.Reason = StatusSkipped, c.omit
	case l.remaining < minStart:
		f.Status, f.Reason, f.Causes = StatusSkipped, ReasonExhausted, l.causes(t.raw, true)
	case t.whole && t.raw+l.growth(t.head) <= budget:
		f.Status = StatusOK
		l.inject(&f, t.head, t.raw)
	default:
		printed := t.raw
		if t.whole {
			printed += l.growth(t.head)
		}
		f.Status, f.Causes = StatusTruncated, l.causes(printed, false)
		in := t.injected(budget, f.Display, l.plan.opts.Boundary, func() (string, int) {
			marker := func(kept int) string { return l.plan.opts.Markers.Truncated(f.Display, kept, t.raw) }
			s, n := truncate(*t, budget, marker)
			if n+l.growth(s) > budget {
				// Boundary markers kept print longer: take the largest
				// budget whose printed copy fits.
				over := func(b int) bool { s, n := truncate(*t, b, marker); return n+l.growth(s) > budget }
				b := sort.Search(budget, func(b int) bool { return over(b + 1) })
				if over(b) {
					b = 0 // only when a longer cut printed shorter
				}
				s, n = truncate(*t, b, marker)
			}
			return s, n
		})
		l.inject(&f, in.s, in.chars)
	}
	return f, true, nil
}

// read returns the prepared text of path, from the TextReader when ws is
// one.
func (l *loader) read(path string) (*text, error) {
	if l.prepared != nil {
		t, err := l.prepared.ReadPrepared(path, l.plan.keep)
		return t.t, err
	}
	raw, err := l.ws.ReadText(path, l.plan.keep)
	if err != nil {
		return nil, err
	}
	t := Prepare(raw, l.ws.Display(path))
	return t.t, nil
}

// injected returns what is injected of t for budget at display, working
// it out with make only when the last one was for another budget, display
// or boundary marker.
func (t *text) injected(budget int, display, boundary string, make func() (string, int)) injection {
	if t.last != nil {
		if in := t.last.Load(); in != nil && in.budget == budget && in.display == display && in.boundary == boundary {
			return *in
		}
	}
	in := injection{budget: budget, display: display, boundary: boundary}
	in.s, in.chars = make()
	if t.last != nil {
		t.last.Store(&in)
	}
	return in
}

// causes says which budgets cut a file of raw code points: the per-file
// one, the total (when what it left was below the per-file budget and the
// file did not fit in it; always, for a file skipped because the total
// ran out), or both.
func (l *loader) causes(raw int, skipped bool) []Cause {
	var out []Cause
	if raw > l.plan.maxChars {
		out = append(out, CausePerFile)
	}
	if skipped || l.remaining < l.plan.maxChars && raw > l.remaining {
		out = append(out, CauseTotal)
	}
	return out
}

// sameAs reports whether t and u are one file (device and inode), or
// have the same text: the way to tell where a filesystem has no inodes,
// and a copy of a private file is as private as the file.
func (t *text) sameAs(u *text) bool {
	if t.id.SameFile(u.id) {
		return true
	}
	return t.raw == u.raw && t.binary == u.binary && t.head == u.head && t.tail == u.tail
}

// duplicate reports whether c is a file already loaded under another
// name: the same path, or the same device and inode (a hard link, an
// in-workspace symlink, a case-insensitive disk). Files from an in-memory
// filesystem carry no inode; there, names that differ only in case
// (MEMORY.md, memory.md) count as one file when size, modification time
// and the text read agree.
func (l *loader) duplicate(c candidate, t *text) bool {
	for _, prev := range l.loaded {
		if prev.path == c.Path || prev.text.id.SameFile(t.id) {
			return true
		}
		if t.id.Ino != 0 || prev.text.id.Ino != 0 || !strings.EqualFold(prev.name, c.Name) {
			continue
		}
		if prev.text.id.Size == t.id.Size && prev.text.id.ModTime == t.id.ModTime &&
			prev.text.raw == t.raw && prev.text.binary == t.binary &&
			prev.text.head == t.head && prev.text.tail == t.tail {
			return true
		}
	}
	return false
}

// unavailable reports a file that could not be read: missing optional
// files vanish, other problems are MISSING (required) or SKIPPED (optional
// or omitted) with the reason.
func (l *loader) unavailable(f File, c candidate, err error) (File, bool, error) {
	missing := errors.Is(err, fs.ErrNotExist)
	if missing && c.optional {
		return File{}, false, nil
	}
	f.Display = l.ws.Display(c.Path)
	f.Reason = reasonFor(err)
	if c.optional || c.omit != "" {
		f.Status = StatusSkipped
		if c.omit != "" {
			f.Reason = c.omit + "; " + f.Reason
		}
		return f, true, nil
	}
	f.Status = StatusMissing
	l.injectMarker(&f, l.plan.opts.Markers.Missing(f.Display))
	return f, true, nil
}

func reasonFor(err error) string {
	var refused *vfs.RefusedError
	switch {
	case errors.As(err, &refused):
		return refused.Reason
	case errors.Is(err, fs.ErrNotExist):
		return ReasonMissing
	case errors.Is(err, vfs.ErrIsDir):
		return ReasonDirectory
	}
	if nr, ok := errors.AsType[*vfs.NotRegularError](err); ok {
		return "not a regular file (" + nr.Kind + ")"
	}
	return err.Error()
}

// inject sets f's content to s, of chars code points, and charges it as
// printed.
func (l *loader) inject(f *File, s string, chars int) {
	chars += l.growth(s)
	f.Content, f.InjectedChars = s, chars
	l.remaining -= chars
}

// growth is how many code points longer s prints than it is: each
// boundary marker in it prints as tidy.BoundaryRemoved (negative when
// that is the shorter).
func (l *loader) growth(s string) int {
	b := l.plan.opts.Boundary
	if b == "" {
		return 0
	}
	if n := strings.Count(s, b); n > 0 {
		return n * (runes.Count(tidy.BoundaryRemoved) - runes.Count(b))
	}
	return 0
}

// injectMarker injects a marker in place of a file, cut to what remains of
// the total: markers are not budgeted like files and may meet a spent total.
// A boundary marker in it prints longer than it reads: it is cut again
// until what it prints fits (each cut drops at least a code point).
func (l *loader) injectMarker(f *File, marker string) {
	s := clamp(marker, l.remaining)
	for n := runes.Count(s); n > 0; n = runes.Count(s) {
		over := n + l.growth(s) - l.remaining
		if over <= 0 {
			break
		}
		s = clamp(s, n-over)
	}
	l.inject(f, s, runes.Count(s))
}
