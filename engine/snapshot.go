package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/internal/memo"
	"github.com/sysprompt/sysprompt/engine/internal/watch"
	"github.com/sysprompt/sysprompt/vfs"
)

// The workspace snapshot is the engine's only input cache: what renders
// read from workspaces, so that a turn re-reads only what changed.
//
//   - Bootstrap files stay fresh every turn. Each render stats every
//     candidate through the workspace's safe read path; a file whose
//     FileID (device, inode, size, modification and change times) equals
//     the one it was read with is served from here, any other is read
//     again from a checked handle. The content served was always read
//     from such a handle, so a name swapped for a symlink or a FIFO
//     between two turns is refused by the stat, never read. A file changed
//     less than racyWindow before it was read is not kept: a same-size
//     rewrite within the filesystem's timestamp granularity would leave
//     its FileID unchanged (git's "racily clean" rule). This is the only
//     use of the clock, and it decides only whether to read again.
//   - The skills catalog is a per-session snapshot, as the original
//     product keeps it: the first render of a session discovers and
//     builds it, later turns of the same session (same session key and
//     id) reuse it. It is rebuilt when a new session starts, on a /new or
//     /reset turn, when the turn's skill settings differ from the ones it
//     was built with, and, for an Engine made WithSkillsWatch, when a
//     skills folder on disk changes.

// Bounds of the snapshot: past them the texts are dropped, or the least
// recently used session.
const (
	maxSnapshotTexts  = 1024
	maxSnapshotBytes  = 64 << 20
	maxSkillsSessions = 256
	racyWindow        = 2 * time.Second
)

type snapshot struct {
	mu       sync.Mutex
	texts    map[textKey]bootstrap.Text
	bytes    int // held by texts
	sessions map[sessionID]*skillsSession
	clock    uint64 // orders sessions by last use

	// changed counts skills-change notifications; a session built before
	// the latest one is stale.
	changed atomic.Uint64
	watch   *watch.Dirs // nil unless the Engine opted in
}

// textKey is one bootstrap read: the workspace root, the name and how
// much of the file was kept.
type textKey struct {
	root, name string
	keep       vfs.Keep
}

// sessionID names a session: the request's session key and id.
type sessionID struct{ key, id string }

// skillsSession is one session's skills catalog and what it was built from.
type skillsSession struct {
	roots   string // the workspace the roots were taken from
	policy  string // the encoded skill settings the catalog was built for
	changed uint64 // snapshot.changed when discovered
	skills  sessionSkills
	used    uint64
}

func newSnapshot() *snapshot {
	return &snapshot{texts: map[textKey]bootstrap.Text{}, sessions: map[sessionID]*skillsSession{}}
}

// reader puts the snapshot in front of ws for bootstrap.Load.
func (s *snapshot) reader(ws *vfs.Workspace) textReader { return textReader{ws, s} }

type textReader struct {
	*vfs.Workspace
	s *snapshot
}

// ReadPrepared returns the snapshot's text when the file's FileID is the
// one it was read with, and reads it again otherwise. The text kept is
// normalised and counted, and keeps its last cut, so a turn over
// unchanged files only stats them.
func (r textReader) ReadPrepared(name string, keep vfs.Keep) (bootstrap.Text, error) {
	id, err := r.Stat(name)
	if err != nil {
		return bootstrap.Text{}, err
	}
	key := textKey{r.Root(), name, keep}
	r.s.mu.Lock()
	t, ok := r.s.texts[key]
	r.s.mu.Unlock()
	if ok && t.ID() == id {
		return t, nil
	}
	raw, err := r.Workspace.ReadText(name, keep)
	if err != nil {
		return bootstrap.Text{}, err
	}
	t = bootstrap.Prepare(raw, r.Display(name))
	if racy(raw.ID, time.Now()) {
		return t, nil
	}
	size := t.Size()
	r.s.mu.Lock()
	if len(r.s.texts) >= maxSnapshotTexts || r.s.bytes+size > maxSnapshotBytes {
		clear(r.s.texts) // simpler than an LRU; a workspace has a handful of files
		r.s.bytes = 0
	}
	if old, ok := r.s.texts[key]; ok {
		r.s.bytes -= old.Size()
	}
	r.s.bytes += size
	r.s.texts[key] = t
	r.s.mu.Unlock()
	return t, nil
}

// racy reports whether a file with this FileID changed too shortly before
// now for its FileID to tell a later same-size edit apart.
func racy(id vfs.FileID, now time.Time) bool {
	changed := max(id.ModTime, id.ChangeTime)
	return now.UnixNano()-changed < int64(racyWindow)
}

// skillsPolicyKey encodes the settings a catalog is built from, beyond
// the engine's own config and host: a session's catalog is reused only
// while they are the same. The bytes are k's, valid until its next use.
func skillsPolicyKey(k *memo.Encoder, s *config.Settings) []byte {
	k.Reset()
	k.Allowlist(s.SkillsAllowlist)
	memo.SortedMap(k, s.Plugins, k.Bool)
	k.Int(s.MaxSkillsPromptChars)
	k.Int(s.MaxSkillsInPrompt)
	return k.Bytes()
}

// skillsFor returns the session's catalog, building it with build when the
// session has none or its one is stale. policy is only compared, and
// copied before build runs, so it may be a reused buffer.
func (s *snapshot) skillsFor(session sessionID, roots string, policy []byte, refresh bool,
	build func() (sessionSkills, error)) (sessionSkills, error) {
	changed := s.changed.Load()
	s.mu.Lock()
	s.clock++
	ss := s.sessions[session]
	if ss != nil && !refresh && ss.roots == roots && ss.policy == string(policy) && ss.changed == changed {
		ss.used = s.clock
		s.mu.Unlock()
		return ss.skills, nil
	}
	s.mu.Unlock()

	kept := string(policy)
	built, err := build()
	if err != nil {
		return sessionSkills{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sessions[session]; !ok && len(s.sessions) >= maxSkillsSessions {
		var oldest *sessionID
		for id, o := range s.sessions {
			if oldest == nil || o.used < s.sessions[*oldest].used {
				oldest = &id
			}
		}
		delete(s.sessions, *oldest)
	}
	s.sessions[session] = &skillsSession{roots: roots, policy: kept, changed: changed, skills: built, used: s.clock}
	return built, nil
}
