package host

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/spf13/afero"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/vfs"
)

const (
	// maxStateBytes bounds the state file: reads stop there, and writes
	// drop the oldest entries to stay under it. 32 signatures of a
	// workspace's worth of cut files take a few KiB.
	maxStateBytes = 1 << 20
	// claimLease is how long a claim holds a signature against other
	// stores unless it is remembered first: far longer than a render
	// takes from its claim to its record.
	claimLease = 30 * time.Second
	// lockWait bounds the wait for the lock, which its holder keeps for
	// one small read and write: a longer wait means the holder is stuck,
	// and a render should not wait on it.
	lockWait = time.Second
	// maxReported bounds the problems a store remembers having warned of.
	maxReported = 16
)

// FileStore is a Store kept in a JSON file (the CLI's -state FILE):
//
//	{
//	  "seen": ["<signature>", …],
//	  "claims": [{"signature": "<signature>", "owner": "<store>", "until": "<RFC 3339 time>"}, …]
//	}
//
// seen holds at most 32 signatures, oldest first; claims, left out when
// there are none, are notices a store has decided to show and not yet
// remembered.
//
// Any number of FileStores, in one process or many, may share a file.
// Each Claim and Remember holds an advisory lock on a file beside it
// (path + ".lock", left in place) across its read, check and write, and
// replaces the file atomically, so no update is lost and one store at a
// time wins a signature. A claim holds the signature against other stores
// for 30 seconds unless it is remembered sooner; the store that made it
// may claim it again at once. A call waits up to a second for the lock;
// once a wait has run out, later calls try it once without waiting until
// one takes it, so a stuck holder costs a render one second at most. On a filesystem without OS file handles
// (afero.MemMapFs) or a system without file locks, only the calls of one
// FileStore exclude each other.
//
// A problem with the file never fails a call (only a context that ends
// while a call waits for the lock does), and costs at worst a repeated
// notice. A missing file is an empty store. An empty or corrupt one (not
// a state, or over 1 MiB) reads as empty and is replaced by the next
// write; one that cannot be read reads as empty and is left alone; and
// without the lock nothing is written, so as not to undo another store's
// update. Each problem goes to the warn function given to NewFileStore as
// a *StateError, once until a call goes through without one.
type FileStore struct {
	fsys     afero.Fs
	path     string
	warn     func(error)
	owner    string           // names this store's claims
	now      func() time.Time // times claims
	lockWait time.Duration
	stuck    time.Duration // the wait for the lock that ran out; 0 once a call takes it

	mu       sync.Mutex      // one call at a time; the file lock orders stores
	reported map[string]bool // problems warned of since the last clean call
}

// NewFileStore returns a Store kept in the file at path on fsys. warn, if
// not nil, is told of each problem with the file; it is called by one
// call of the store at a time and must not call the store.
func NewFileStore(fsys afero.Fs, path string, warn func(error)) *FileStore {
	if _, ok := fsys.(*afero.OsFs); ok {
		// A symlinked state file is written through, as -o writes through
		// one: a write renames a new file over the path, which would put
		// it in place of the link and leave the real file, and the stores
		// that use it, behind. The lock goes beside the real file too.
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		} else if target, err := os.Readlink(path); err == nil {
			// A link to a state file not made yet: the first write makes it.
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(path), target)
			}
			path = target
		}
	}
	return &FileStore{
		fsys:     fsys,
		path:     path,
		warn:     warn,
		owner:    strconv.FormatUint(rand.Uint64(), 36),
		now:      time.Now,
		lockWait: lockWait,
	}
}

// StateError is a problem with a FileStore's file that the store worked
// around; its message says how.
type StateError struct {
	Path string // the state file
	Op   string // what failed: "read", "parse", "lock" or "write"
	Err  error
}

func (e *StateError) Error() string {
	then := "nothing recorded, so a notice may show again"
	switch e.Op {
	case "parse":
		then = "treated as empty"
	case "read":
		then = "treated as empty; " + then
	}
	return fmt.Sprintf("bootstrap: state file %s: %s: %v; %s", e.Path, e.Op, e.Err, then)
}

func (e *StateError) Unwrap() error { return e.Err }

// Seen reports whether signature has been remembered. It reads without
// the lock and writes nothing: writes replace the file whole, so a reader
// never sees half of one.
func (s *FileStore) Seen(ctx context.Context, signature string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, problem := s.load(s.now())
	s.report(ctx, problem)
	return slices.Contains(st.Seen, signature), nil
}

// Claim reports whether signature is neither remembered nor claimed by
// another store, and if so claims it for this one.
func (s *FileStore) Claim(ctx context.Context, signature string) (bool, error) {
	won := false
	err := s.update(ctx, func(st *state, now time.Time) bool {
		if slices.Contains(st.Seen, signature) {
			return false
		}
		if holder := st.holder(signature); holder != "" && holder != s.owner {
			return false
		}
		won = true
		st.setClaim(signature, s.owner, now.Add(claimLease))
		return true
	})
	return won, err
}

// Remember records signature as the newest seen, and drops its claim.
func (s *FileStore) Remember(ctx context.Context, signature string) error {
	return s.update(ctx, func(st *state, _ time.Time) bool {
		seen := bootstrap.AppendSeen(slices.Clone(st.Seen), signature)
		claims := slices.DeleteFunc(slices.Clone(st.Claims), func(c claim) bool { return c.Signature == signature })
		if slices.Equal(seen, st.Seen) && len(claims) == len(st.Claims) {
			return false // recorded already: spare the write
		}
		st.Seen, st.Claims = seen, claims
		return true
	})
}

// update runs change on the state and, if change reports a change, writes
// the state back, all under the file lock. Without the lock change still
// runs, on what could be read, so that Claim can answer.
func (s *FileStore) update(ctx context.Context, change func(*state, time.Time) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	problems, err := s.updateLocked(ctx, change)
	s.report(ctx, problems...) // after the file lock is released: warn may be slow
	return err
}

func (s *FileStore) updateLocked(ctx context.Context, change func(*state, time.Time) bool) ([]*StateError, error) {
	var problems []*StateError
	unlock, lockErr := s.lock(ctx)
	if lockErr != nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		problems = append(problems, s.problem("lock", lockErr))
	} else {
		defer unlock()
	}
	now := s.now()
	st, problem := s.load(now)
	if problem != nil {
		problems = append(problems, problem)
	}
	// An unreadable file is left alone: it may hold what another store
	// can read.
	writable := lockErr == nil && (problem == nil || problem.Op == "parse")
	if change(&st, now) && writable {
		if err := s.save(st); err != nil {
			problems = append(problems, s.problem("write", err))
		}
	}
	return problems, nil
}

// report passes each problem to warn, unless it was passed already since
// the last call without problems, and adds it to ctx's problem list.
func (s *FileStore) report(ctx context.Context, problems ...*StateError) {
	problems = slices.DeleteFunc(problems, func(p *StateError) bool { return p == nil })
	for _, p := range problems {
		bootstrap.AddProblem(ctx, p)
	}
	if len(problems) == 0 {
		clear(s.reported)
		return
	}
	if s.reported == nil || len(s.reported) >= maxReported {
		s.reported = map[string]bool{}
	}
	for _, p := range problems {
		if msg := p.Error(); !s.reported[msg] {
			s.reported[msg] = true
			if s.warn != nil {
				s.warn(p)
			}
		}
	}
}

// problem is a StateError for op; a path error about the state file
// itself is unwrapped, as the StateError names the file.
func (s *FileStore) problem(op string, err error) *StateError {
	if pe, ok := errors.AsType[*fs.PathError](err); ok && pe.Path == s.path {
		err = pe.Err
	}
	return &StateError{Path: s.path, Op: op, Err: err}
}

// load reads the state, tidied for now. A file that cannot be read comes
// back empty with a "read" problem; one that holds no state, empty with a
// "parse" problem.
func (s *FileStore) load(now time.Time) (state, *StateError) {
	data, err := vfs.ReadFile(s.fsys, s.path, maxStateBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return state{}, nil
	case errors.Is(err, vfs.ErrTooLarge):
		return state{}, s.problem("parse", err)
	case err != nil:
		return state{}, s.problem("read", err)
	}
	st, err := parseState(data)
	if err != nil {
		return state{}, s.problem("parse", err)
	}
	st.tidy(now)
	return st, nil
}

// save replaces the file with st, dropping the oldest entries while it
// would be over maxStateBytes, which a read would refuse.
func (s *FileStore) save(st state) error {
	for {
		data, err := st.encode()
		if err != nil {
			return err
		}
		if len(data) > maxStateBytes && len(st.Seen)+len(st.Claims) > 0 {
			if len(st.Seen) > 0 {
				st.Seen = st.Seen[1:]
			} else {
				st.Claims = st.Claims[1:]
			}
			continue
		}
		// A new state file is private (0600); one replaced keeps its mode.
		return vfs.WriteFileAtomic(s.fsys, s.path, data, 0o600)
	}
}

// lock takes the advisory lock on the file beside the state file, waiting
// up to s.lockWait for another holder to let go, or until ctx ends.
func (s *FileStore) lock(ctx context.Context) (unlock func(), err error) {
	name := s.path + ".lock"
	f, err := s.fsys.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		// A lock file an earlier call left in a now read-only directory
		// can still be locked through a read-only handle.
		ro, roErr := s.fsys.Open(name)
		if roErr != nil {
			if pe, ok := errors.AsType[*fs.PathError](err); ok {
				err = pe.Err // not every afero.Fs names the file
			}
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		f = ro
	}
	h, ok := f.(interface{ Fd() uintptr })
	if !ok {
		f.Close()
		return func() {}, nil // no OS file to lock: s.mu is all the exclusion there is
	}
	fd := h.Fd()
	deadline := time.Now()
	if s.stuck == 0 {
		deadline = deadline.Add(s.lockWait)
	}
	for pause := time.Millisecond; ; pause = min(2*pause, 32*time.Millisecond) {
		locked, err := tryLock(fd)
		if locked {
			s.stuck = 0
			return func() {
				_ = unlockFile(fd)
				_ = f.Close()
			}, nil
		}
		if err != nil {
			err = &fs.PathError{Op: "lock", Path: name, Err: err}
		} else if !time.Now().Before(deadline) {
			s.stuck = cmp.Or(s.stuck, s.lockWait)
			err = fmt.Errorf("%s: still held by another store after %v", name, s.stuck)
		}
		if err != nil {
			f.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(pause):
		}
	}
}

// state is what a state file holds.
type state struct {
	Seen   []string `json:"seen"`
	Claims []claim  `json:"claims,omitempty"`
}

// claim is a notice a store has decided to show and not yet remembered.
type claim struct {
	Signature string    `json:"signature"`
	Owner     string    `json:"owner"`
	Until     time.Time `json:"until"`
}

// parseState decodes a state file, strictly: one object of the known
// fields. A byte order mark, which some editors add, is skipped.
func parseState(data []byte) (state, error) {
	const space = " \t\r\n"
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if len(bytes.Trim(data, space)) == 0 {
		return state{}, errors.New("no content")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var st state
	if err := dec.Decode(&st); err != nil {
		return state{}, err
	}
	if len(bytes.Trim(data[dec.InputOffset():], space)) > 0 {
		return state{}, errors.New("data after the JSON object")
	}
	return st, nil
}

func (st *state) encode() ([]byte, error) {
	out := *st
	if out.Seen == nil {
		out.Seen = []string{} // [], not null
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// tidy drops what a state read from a file must not act on: seen
// signatures beyond the newest bootstrap.MaxSeen, and claims that have lapsed, that
// run further ahead than a lease (a clock set back, or a hand edit), that
// are for a seen signature or repeat an earlier claim's, or that are beyond
// the newest bootstrap.MaxSeen.
func (st *state) tidy(now time.Time) {
	if n := len(st.Seen); n > bootstrap.MaxSeen {
		st.Seen = st.Seen[n-bootstrap.MaxSeen:]
	}
	claimed := map[string]bool{}
	st.Claims = slices.DeleteFunc(st.Claims, func(c claim) bool {
		drop := !c.Until.After(now) || c.Until.After(now.Add(claimLease)) || c.Owner == "" ||
			claimed[c.Signature] || slices.Contains(st.Seen, c.Signature)
		if !drop {
			claimed[c.Signature] = true
		}
		return drop
	})
	if n := len(st.Claims); n > bootstrap.MaxSeen {
		st.Claims = st.Claims[n-bootstrap.MaxSeen:]
	}
}

// holder is the owner of the claim on signature, or "" when there is none.
func (st *state) holder(signature string) string {
	if i := slices.IndexFunc(st.Claims, func(c claim) bool { return c.Signature == signature }); i >= 0 {
		return st.Claims[i].Owner
	}
	return ""
}

// setClaim records owner's claim on signature, until the given time, as
// the newest claim.
func (st *state) setClaim(signature, owner string, until time.Time) {
	st.Claims = slices.DeleteFunc(st.Claims, func(c claim) bool { return c.Signature == signature })
	st.Claims = append(st.Claims, claim{Signature: signature, Owner: owner, Until: until})
	if n := len(st.Claims); n > bootstrap.MaxSeen {
		st.Claims = st.Claims[n-bootstrap.MaxSeen:]
	}
}
