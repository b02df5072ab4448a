package engine

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/internal/memo"
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
//     less than vfs.RacyWindow before it was read is not kept: a same-size
//     rewrite within the filesystem's timestamp granularity would leave
//     its FileID unchanged (git's "racily clean" rule). This is the only
//     use of the clock, and it decides only whether to read again.
//   - A name the workspace folder had no entry for is not stat'ed again
//     while the folder's own FileID stays as it was then (on Linux, where
//     the folder is held open): adding an entry changes the folder. The
//     same racily-clean rule applies to the folder.
//   - The skills catalog is a per-session snapshot, as the original
//     product keeps it: the first render of a session discovers and
//     builds it, later turns of the same session (same session key and
//     id) reuse it. It is rebuilt when a new session starts, on a /new or
//     /reset turn, when the turn's skill settings differ from the ones it
//     was built with, and after Engine.SkillsChanged.

// Bounds of the snapshot, in entries and in bytes (what a text or a
// catalog holds; keys are hashes): past them the least recently used
// entries are dropped.
const (
	maxSnapshotTexts   = 1024
	maxSnapshotBytes   = 64 << 20
	maxSkillsSessions  = 256
	maxSkillsBytes     = 32 << 20
	snapshotEntryBytes = 256 // what an entry costs besides what it holds
)

type snapshot struct {
	texts    *memo.Cache[seenFile]       // by workspace root, file name and what was kept
	sessions *memo.Cache[*skillsSession] // by session key and id

	// changed counts skills-change notifications; a session built before
	// the latest one is stale.
	changed atomic.Uint64
}

// skillsSession is one session's skills catalog and what it was built from.
type skillsSession struct {
	from    memo.Key // the workspace the roots were taken from, and the skill settings
	changed uint64   // snapshot.changed when discovered
	skills  sessionSkills
}

func newSnapshot() *snapshot {
	return &snapshot{
		texts: memo.New(maxSnapshotTexts, maxSnapshotBytes, func(f seenFile) int { return snapshotEntryBytes + f.text.Size() }),
		sessions: memo.New(maxSkillsSessions, maxSkillsBytes, func(ss *skillsSession) int {
			return snapshotEntryBytes + ss.skills.bytes()
		}),
	}
}

// reader puts the snapshot in front of ws for bootstrap.Load; k hashes
// the snapshot's keys.
func (s *snapshot) reader(ws *vfs.Workspace, k *memo.Encoder) textReader { return textReader{ws, s, k} }

type textReader struct {
	*vfs.Workspace
	s *snapshot
	k *memo.Encoder
}

// ReadPrepared returns the snapshot's text when the file's FileID is the
// one it was read with, and reads it again otherwise. The text kept is
// normalised and counted, and keeps its last cut, so a turn over
// unchanged files only stats them.
func (r textReader) ReadPrepared(name string, keep vfs.Keep) (bootstrap.Text, error) {
	key := r.key(name, keep)
	seen, ok := r.s.texts.Get(key)
	dir, held := r.DirID()
	if ok && held && seen.absentIn == dir {
		return bootstrap.Text{}, r.Absent(name)
	}
	id, err := r.Stat(name)
	if err != nil {
		if held && errors.Is(err, vfs.ErrNoEntry) && !dir.Racy(time.Now()) {
			r.s.texts.Put(key, seenFile{absentIn: dir})
		}
		return bootstrap.Text{}, err
	}
	if ok && seen.absentIn == (vfs.FileID{}) && seen.text.ID() == id {
		return seen.text, nil
	}
	raw, err := r.Workspace.ReadText(name, keep)
	if err != nil {
		return bootstrap.Text{}, err
	}
	t := bootstrap.Prepare(raw, r.Display(name))
	if !raw.ID.Racy(time.Now()) {
		r.s.texts.Put(key, seenFile{text: t})
	}
	return t, nil
}

// key is the snapshot's key for name read with keep.
func (r textReader) key(name string, keep vfs.Keep) memo.Key {
	r.k.Reset()
	r.k.String(r.Root())
	r.k.String(name)
	r.k.Int(keep.Whole)
	r.k.Int(keep.Head)
	r.k.Int(keep.Tail)
	return r.k.Sum()
}

// seenFile is what the snapshot knows of a name: the text read from it,
// or that the workspace folder had no entry of that name while its own
// FileID was absentIn.
type seenFile struct {
	text     bootstrap.Text
	absentIn vfs.FileID
}

// sessionKeys returns the key of the render's session (its key and id)
// and of what its catalog is built from: the workspace its roots were
// taken from and the settings, beyond the engine's own config and host,
// the catalog depends on. A session's catalog is reused only while the
// second is the same.
func sessionKeys(k *memo.Encoder, session Session, s *config.Settings) (id, from memo.Key) {
	k.Reset()
	k.String(session.Key)
	k.String(session.ID)
	id = k.Sum()
	k.Reset()
	k.String(s.Workspace)
	k.Allowlist(s.SkillsAllowlist)
	memo.SortedMap(k, s.Plugins, k.Bool)
	k.Int(s.MaxSkillsPromptChars)
	k.Int(s.MaxSkillsInPrompt)
	return id, k.Sum()
}

// skillsFor returns the session's catalog, building it with build when the
// session has none or its one is stale.
func (s *snapshot) skillsFor(session, from memo.Key, refresh bool, build func() (sessionSkills, error)) (sessionSkills, error) {
	changed := s.changed.Load()
	if ss, ok := s.sessions.Get(session); ok && !refresh && ss.from == from && ss.changed == changed {
		return ss.skills, nil
	}
	built, err := build()
	if err != nil {
		return sessionSkills{}, err
	}
	s.sessions.Put(session, &skillsSession{from: from, changed: changed, skills: built})
	return built, nil
}
