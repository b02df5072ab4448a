package engine

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Past maxSkillsSessions the least recently used session's catalog goes;
// a session's catalog is kept while the policy bytes are equal, even when
// the caller's buffer holding them is reused.
func TestSkillsSessionsEvictLeastRecentlyUsed(t *testing.T) {
	s := newSnapshot()
	builds := 0
	build := func() (sessionSkills, error) { builds++; return sessionSkills{}, nil }
	policy := []byte("p1")
	get := func(i int) {
		_, err := s.skillsFor(sessionID{"key", fmt.Sprint(i)}, "/ws", policy, false, build)
		require.NoError(t, err)
	}
	for i := range maxSkillsSessions {
		get(i)
	}
	require.Equal(t, maxSkillsSessions, builds)
	get(0) // now the most recent
	assert.Equal(t, maxSkillsSessions, builds, "a known session is reused")
	get(maxSkillsSessions) // evicts session 1
	assert.Len(t, s.sessions, maxSkillsSessions)
	assert.Contains(t, s.sessions, sessionID{"key", "0"})
	assert.NotContains(t, s.sessions, sessionID{"key", "1"})

	copy(policy, "p2") // the caller's buffer changes: another policy
	builds = 0
	get(0)
	assert.Equal(t, 1, builds, "another policy rebuilds")
	get(0)
	assert.Equal(t, 1, builds)
	// The sessions' own key and id are two fields: no separator can make
	// two sessions one.
	_, err := s.skillsFor(sessionID{"a\x00b", ""}, "/ws", policy, false, build)
	require.NoError(t, err)
	_, err = s.skillsFor(sessionID{"a", "b\x00"}, "/ws", policy, false, build)
	require.NoError(t, err)
	assert.Equal(t, 3, builds)
}
