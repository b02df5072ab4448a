package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/internal/memo"
)

// Past maxSkillsSessions the least recently used session's catalog goes;
// a session's catalog is kept while what it was built from is the same.
func TestSkillsSessionsEvictLeastRecentlyUsed(t *testing.T) {
	s := newSnapshot()
	builds := 0
	build := func() (sessionSkills, error) { builds++; return sessionSkills{}, nil }
	settings := &config.Settings{Workspace: "/ws"}
	get := func(session Session) {
		id, from := sessionKeys(new(memo.Encoder), session, settings)
		_, err := s.skillsFor(id, from, false, build)
		require.NoError(t, err)
	}
	for i := range maxSkillsSessions {
		get(Session{Key: "key", ID: fmt.Sprint(i)})
	}
	require.Equal(t, maxSkillsSessions, builds)
	get(Session{Key: "key", ID: "0"}) // now the most recent
	assert.Equal(t, maxSkillsSessions, builds, "a known session is reused")
	get(Session{Key: "key", ID: fmt.Sprint(maxSkillsSessions)}) // evicts session 1
	get(Session{Key: "key", ID: "0"})
	assert.Equal(t, maxSkillsSessions+1, builds, "session 0 stays")
	get(Session{Key: "key", ID: "1"})
	assert.Equal(t, maxSkillsSessions+2, builds, "session 1 went")

	settings.MaxSkillsInPrompt = 3 // another policy
	builds = 0
	get(Session{Key: "key", ID: "0"})
	assert.Equal(t, 1, builds, "another policy rebuilds")
	get(Session{Key: "key", ID: "0"})
	assert.Equal(t, 1, builds)
	// The session's key and id are two fields: no separator can make two
	// sessions one.
	get(Session{Key: "a\x00b"})
	get(Session{Key: "a", ID: "b\x00"})
	assert.Equal(t, 3, builds)
}

// Sessions are bounded in bytes too: catalogs large enough drop the
// least recently used sessions long before the count bound.
func TestSkillsSessionsAreBoundedInBytes(t *testing.T) {
	s := newSnapshot()
	builds := 0
	big := strings.Repeat("x", 1<<20)
	build := func() (sessionSkills, error) {
		builds++
		return sessionSkills{size: CatalogSize{Text: big}}, nil
	}
	get := func(i int) {
		id, from := sessionKeys(new(memo.Encoder), Session{Key: fmt.Sprint(i)}, &config.Settings{})
		_, err := s.skillsFor(id, from, false, build)
		require.NoError(t, err)
	}
	const sessions = maxSkillsBytes>>20 + 8
	for i := range sessions {
		get(i)
	}
	get(sessions - 1)
	assert.Equal(t, sessions, builds, "the latest session stays")
	get(0)
	assert.Equal(t, sessions+1, builds, "the first session went")
}
