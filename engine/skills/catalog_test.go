package skills

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// measureLen is a stand-in for rendering the catalog: a header, the note,
// and per skill its fields plus a fixed overhead.
func measureLen(skills []Skill, descriptions bool, note string) (int, error) {
	n := 40 + len(note)
	for _, s := range skills {
		n += 30 + len(s.Name) + len(s.Location) + len(s.Version)
		if descriptions {
			n += len(s.Description)
		}
	}
	return n, nil
}

// testLimits returns the limits the product renders with (the [skills]
// budgets of templates/defaults.toml).
func testLimits() Limits {
	return Limits{MaxChars: 18000, MaxSkills: 150}
}

func testSkills(n int) []Skill {
	out := make([]Skill, n)
	for i := range out {
		name := fmt.Sprintf("skill-%02d", i)
		out[i] = Skill{Name: name, Key: name, Source: Workspace, Description: strings.Repeat("d", 50),
			Location: "~/skills/" + name + "/SKILL.md", Version: "sha256:abc"}
	}
	return out
}

func TestBuildBudgetSteps(t *testing.T) {
	skills := testSkills(10)
	full, _ := measureLen(skills, true, "")
	compact, _ := measureLen(skills, false, "")
	require.Greater(t, full, compact)
	chars := func(n int) Limits {
		lim := testLimits()
		lim.MaxChars = n
		return lim
	}

	t.Run("everything fits", func(t *testing.T) {
		cat, err := Build(Found{Skills: skills}, Policy{}, chars(full), measureLen)
		require.NoError(t, err)
		assert.True(t, cat.Descriptions)
		assert.Equal(t, "", cat.Note)
		assert.Equal(t, 10, cat.Listed)
		assert.Len(t, cat.Skills, 10)
		assert.Empty(t, cat.Skipped)
	})
	t.Run("descriptions dropped first", func(t *testing.T) {
		cat, err := Build(Found{Skills: skills}, Policy{}, chars(full-1), measureLen)
		require.NoError(t, err)
		assert.False(t, cat.Descriptions)
		assert.Equal(t, "", cat.Note)
		assert.Equal(t, 10, cat.Listed)
		assert.Empty(t, cat.Skipped)
	})
	t.Run("then skills from the end, with a note", func(t *testing.T) {
		cat, err := Build(Found{Skills: skills}, Policy{}, chars(compact-1), measureLen)
		require.NoError(t, err)
		assert.False(t, cat.Descriptions)
		assert.Equal(t, 9, cat.Listed)
		assert.Equal(t, "9 of 10 skills listed", cat.Note)
		assert.Equal(t, names(skills[:9]), names(cat.Skills))
		assert.Equal(t, []Skipped{{Name: "skill-09", Location: "~/skills/skill-09/SKILL.md", Source: Workspace,
			Reason: fmt.Sprintf("over budget: catalog limited to %d chars", compact-1)}}, cat.Skipped)
	})
	t.Run("nothing fits", func(t *testing.T) {
		cat, err := Build(Found{Skills: skills}, Policy{}, chars(10), measureLen)
		require.NoError(t, err)
		assert.Empty(t, cat.Skills)
		assert.Equal(t, 0, cat.Listed)
		assert.Equal(t, "0 of 10 skills listed", cat.Note)
		assert.Len(t, cat.Skipped, 10)
	})
}

// TestBuildFindsLargestPrefix checks the binary search against a linear scan
// for every budget from nothing to everything.
func TestBuildFindsLargestPrefix(t *testing.T) {
	skills := testSkills(23)
	full, _ := measureLen(skills, true, "")
	lim := testLimits()
	for budget := 1; budget <= full+1; budget++ {
		lim.MaxChars = budget
		cat, err := Build(Found{Skills: skills}, Policy{}, lim, measureLen)
		require.NoError(t, err)

		wantK, wantDesc := 0, false
		if n, _ := measureLen(skills, true, ""); n <= budget {
			wantK, wantDesc = len(skills), true
		} else {
			for k := len(skills); k >= 0; k-- {
				if n, _ := measureLen(skills[:k], false, note(k, len(skills))); n <= budget {
					wantK = k
					break
				}
			}
		}
		require.Equal(t, wantK, cat.Listed, "budget %d", budget)
		require.Equal(t, wantDesc, cat.Descriptions, "budget %d", budget)
		require.Len(t, cat.Skipped, len(skills)-wantK)
		if wantK > 0 {
			n, _ := measureLen(cat.Skills, cat.Descriptions, cat.Note)
			require.LessOrEqual(t, n, budget)
		}
	}
}

func TestBuildMaxSkills(t *testing.T) {
	skills := testSkills(5)
	cat, err := Build(Found{Skills: skills}, Policy{}, Limits{MaxSkills: 3, MaxChars: 1 << 20}, measureLen)
	require.NoError(t, err)
	assert.True(t, cat.Descriptions)
	assert.Equal(t, 3, cat.Listed)
	assert.Equal(t, 5, cat.Eligible)
	assert.Equal(t, "3 of 5 skills listed", cat.Note)
	require.Len(t, cat.Skipped, 2)
	assert.Equal(t, "over budget: catalog limited to 3 skills", cat.Skipped[0].Reason)

	// Cap and character budget both bite: reasons say which.
	compact3, _ := measureLen(skills[:3], false, note(3, 5))
	cat, err = Build(Found{Skills: skills}, Policy{}, Limits{MaxSkills: 3, MaxChars: compact3 - 1}, measureLen)
	require.NoError(t, err)
	assert.Equal(t, "2 of 5 skills listed", cat.Note)
	var reasons []string
	for _, s := range cat.Skipped {
		reasons = append(reasons, s.Reason)
	}
	assert.Equal(t, []string{
		fmt.Sprintf("over budget: catalog limited to %d chars", compact3-1),
		"over budget: catalog limited to 3 skills",
		"over budget: catalog limited to 3 skills",
	}, reasons)
}

func TestBuildProductLimits(t *testing.T) {
	lim := testLimits()
	var maxSeen int
	calls := 0
	measure := func(skills []Skill, descriptions bool, note string) (int, error) {
		calls++
		maxSeen = max(maxSeen, len(skills))
		return lim.MaxChars, nil // exactly at the limit fits
	}
	cat, err := Build(Found{Skills: testSkills(lim.MaxSkills + 7)}, Policy{}, lim, measure)
	require.NoError(t, err)
	assert.Equal(t, 1, calls)
	assert.Equal(t, lim.MaxSkills, maxSeen)
	assert.Equal(t, lim.MaxSkills, cat.Listed)
	assert.Equal(t, fmt.Sprintf("%d of %d skills listed", lim.MaxSkills, lim.MaxSkills+7), cat.Note)
}

// TestBuildRequiresLimits: the limits have no defaults; zero or negative
// ones are an error, even with nothing to list.
func TestBuildRequiresLimits(t *testing.T) {
	tests := []struct {
		name    string
		lim     Limits
		wantErr string
	}{
		{"zero value", Limits{}, "skills: Limits.MaxChars must be positive, got 0"},
		{"no char budget", Limits{MaxSkills: 1}, "skills: Limits.MaxChars must be positive, got 0"},
		{"negative char budget", Limits{MaxChars: -1, MaxSkills: 1}, "skills: Limits.MaxChars must be positive, got -1"},
		{"no skill cap", Limits{MaxChars: 1}, "skills: Limits.MaxSkills must be positive, got 0"},
		{"negative skill cap", Limits{MaxChars: 1, MaxSkills: -3}, "skills: Limits.MaxSkills must be positive, got -3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Build(Found{Skills: testSkills(2)}, Policy{}, tt.lim, measureLen)
			assert.EqualError(t, err, tt.wantErr)
			_, err = Build(Found{}, Policy{}, tt.lim, measureLen)
			assert.EqualError(t, err, tt.wantErr)
		})
	}
}

func TestBuildOrderAndReport(t *testing.T) {
	mk := func(name, loc string, os ...string) Skill {
		return Skill{Name: name, Key: name, Location: loc, Source: Managed, Meta: Metadata{OS: os}}
	}
	found := Found{
		Skills: []Skill{
			mk("b", "/m/b"), mk("a", "/m/a2"), mk("_x", "/m/x"), mk("B", "/m/B"), mk("a", "/m/a1"), mk("off", "/m/off", "plan9"),
		},
		Skipped:  []Skipped{{Name: "zz", Location: "/w/zz", Source: Workspace, Reason: "broken front matter: line 2: bad"}},
		Problems: []Problem{{Path: "/w/zz", Line: 2, Message: "bad"}},
	}
	before := names(found.Skills)
	cat, err := Build(found, Policy{OS: "linux"}, testLimits(), measureLen)
	require.NoError(t, err)
	assert.Equal(t, []string{"B", "_x", "a", "a", "b"}, names(cat.Skills))
	assert.Equal(t, "/m/a1", cat.Skills[2].Location)
	assert.Equal(t, before, names(found.Skills), "input order untouched")
	assert.Equal(t, 6, cat.Found)
	assert.Equal(t, 5, cat.Eligible)
	assert.Equal(t, 5, cat.Listed)
	assert.Equal(t, []Skipped{
		{Name: "off", Location: "/m/off", Source: Managed, Reason: "os: needs plan9"},
		found.Skipped[0],
	}, cat.Skipped)
	assert.Equal(t, found.Problems, cat.Problems)
}

func TestBuildNoEligibleSkills(t *testing.T) {
	calls := 0
	measure := func([]Skill, bool, string) (int, error) { calls++; return 1 << 30, nil }
	cat, err := Build(Found{Skills: testSkills(2)}, Policy{Allowlist: &[]string{}}, testLimits(), measure)
	require.NoError(t, err)
	assert.Zero(t, calls)
	assert.Empty(t, cat.Skills)
	assert.Equal(t, "", cat.Note)
	assert.Equal(t, 2, cat.Found)
	assert.Len(t, cat.Skipped, 2)
}

func TestBuildMeasureErrors(t *testing.T) {
	boom := errors.New("template failed")
	for _, failAt := range []int{1, 2, 3} {
		calls := 0
		measure := func([]Skill, bool, string) (int, error) {
			if calls++; calls == failAt {
				return 0, boom
			}
			return 1 << 30, nil
		}
		_, err := Build(Found{Skills: testSkills(4)}, Policy{}, testLimits(), measure)
		require.ErrorIs(t, err, boom, "failing call %d", failAt)
		assert.ErrorContains(t, err, "skills: measuring catalog")
	}
	_, err := Build(Found{}, Policy{}, testLimits(), nil)
	require.ErrorContains(t, err, "measure function")
}

// TestBuildSeesEditedSkill: an edited SKILL.md (new content and time) gets a
// new version on the next discovery and build.
func TestBuildSeesEditedSkill(t *testing.T) {
	fsys := memFS(t, map[string]string{"skills/a/SKILL.md": skillMD("name: a")})
	roots := []Root{workspaceRoot(fsys)}
	opts := Options{}
	build := func() Catalog {
		found, err := Discover(context.Background(), roots, opts)
		require.NoError(t, err)
		cat, err := Build(found, Policy{}, testLimits(), measureLen)
		require.NoError(t, err)
		require.Len(t, cat.Skills, 1)
		return cat
	}
	first := build()
	assert.Equal(t, first, build())

	require.NoError(t, fsys.Remove("skills/a/SKILL.md"))
	f, err := fsys.Create("skills/a/SKILL.md")
	require.NoError(t, err)
	_, err = f.WriteString(skillMD("name: a", "description: now with a description"))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	next := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	require.NoError(t, fsys.Chtimes("skills/a/SKILL.md", next, next))

	second := build()
	assert.NotEqual(t, first.Skills[0].Version, second.Skills[0].Version)
	assert.Equal(t, "now with a description", second.Skills[0].Description)
}

func TestSortSkills(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 7))
		skills := testSkills(rng.IntN(40))
		for i := range skills {
			skills[i].Location = fmt.Sprint(rng.IntN(5))
			skills[i].Name = fmt.Sprint(rng.IntN(10))
		}
		want := slices.Clone(skills)
		slices.SortStableFunc(want, func(a, b Skill) int { return compareSkills(&a, &b) })
		sortSkills(skills)
		for i := range want {
			require.Equal(t, want[i].Name, skills[i].Name)
			require.Equal(t, want[i].Location, skills[i].Location)
		}
	}
}

func TestBuildLeavesFoundAlone(t *testing.T) {
	sorted := testSkills(4)
	unsorted := []Skill{sorted[2], sorted[0], sorted[3], sorted[1]}
	rejectS01 := Policy{Allowlist: &[]string{"skill-00", "skill-02", "skill-03"}}
	tests := []struct {
		name   string
		skills []Skill
		policy Policy
		want   []string
	}{
		{"sorted, all eligible", sorted, Policy{}, []string{"skill-00", "skill-01", "skill-02", "skill-03"}},
		{"unsorted, all eligible", unsorted, Policy{}, []string{"skill-00", "skill-01", "skill-02", "skill-03"}},
		{"unsorted, one rejected", unsorted, rejectS01, []string{"skill-00", "skill-02", "skill-03"}},
		{"sorted, one rejected", sorted, rejectS01, []string{"skill-00", "skill-02", "skill-03"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			found := Found{Skills: slices.Clone(tt.skills)}
			cat, err := Build(found, tt.policy, testLimits(), measureLen)
			require.NoError(t, err)
			assert.Equal(t, tt.want, names(cat.Skills))
			assert.Equal(t, tt.skills, found.Skills, "found is not reordered")
			_ = append(cat.Skills, Skill{Name: "appended"})
			assert.Equal(t, tt.skills, found.Skills, "appending to the catalog cannot write into found")
		})
	}
}
