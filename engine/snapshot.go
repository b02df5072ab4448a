package engine

import (
	"sync/atomic"

	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/internal/memo"
	"github.com/sysprompt/sysprompt/engine/internal/texts"
)

// The workspace snapshot is the engine's only input cache: what renders
// read from workspaces, so that a turn re-reads only what changed.
//
//   - Bootstrap files stay fresh every turn: package texts keeps them by
//     file identity, and each render stats every candidate.
//   - The skills catalog is a per-session snapshot, as the original
//     product keeps it: the first render of a session discovers and
//     builds it, later turns of the same session (same session key and
//     id) reuse it. It is rebuilt when a new session starts, on a /new or
//     /reset turn, when the turn's skill settings differ from the ones it
//     was built with, and after Engine.SkillsChanged.

// Bounds of the sessions, in entries and in bytes (what a catalog holds;
// keys are hashes): past them the least recently used are dropped.
const (
	maxSkillsSessions  = 256
	maxSkillsBytes     = 32 << 20
	snapshotEntryBytes = 256 // what an entry costs besides what it holds
)

type snapshot struct {
	texts    *texts.Cache
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
		texts: texts.New(),
		sessions: memo.New(maxSkillsSessions, maxSkillsBytes, func(ss *skillsSession) int {
			return snapshotEntryBytes + ss.skills.bytes()
		}),
	}
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
