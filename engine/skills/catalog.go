package skills

import (
	"fmt"
	"slices"
	"sort"
)

// Limits bound the catalog. Both are required and must be positive; the
// engine takes them from the template pack, or from the agent config where
// it sets them (skills.limits.maxSkillsPromptChars, maxSkillsInPrompt).
type Limits struct {
	MaxChars  int // the catalog's length as measured by the MeasureFunc
	MaxSkills int // at most this many skills are listed
}

// MeasureFunc returns the length of the catalog as it would render with
// these skills, with or without their descriptions, and with note ("" for
// none). It must grow with the number of skills, and must not keep or modify
// skills.
type MeasureFunc func(skills []Skill, descriptions bool, note string) (int, error)

// Catalog is what goes into the prompt's skills catalog and the report of
// how it was chosen.
type Catalog struct {
	// Skills are the listed skills, sorted by name (byte order), then location.
	Skills []Skill
	// Descriptions is false when the budget forced descriptions out.
	Descriptions bool
	// Note says how many skills are listed of how many eligible, when some
	// were dropped; otherwise "".
	Note string

	Found, Eligible, Listed int
	// Skipped is every skill not listed and why, sorted by name, then location.
	Skipped  []Skipped
	Problems []Problem
	Warnings []Problem
	// Cuts say where a discovery bound stopped the search.
	Cuts []Cut
}

// recordBytes stands for what a record of the catalog costs besides its
// strings: its fixed fields and slice headers.
const recordBytes = 64

// Bytes is about what the catalog holds in memory, its strings nearly
// all of it, so a cache of catalogs can bound itself in bytes. It walks
// the fields rather than encoding them: a cold render builds one catalog,
// and a first JSON encoding of these types cost it more than the rest of
// the catalog's bookkeeping.
func (c *Catalog) Bytes() int {
	n := len(c.Note)
	for i := range c.Skills {
		s := &c.Skills[i]
		n += recordBytes + len(s.Name) + len(s.Description) + len(s.Key) + len(s.Source) + len(s.Plugin) +
			len(s.Path) + len(s.Location) + len(s.Version) + len(s.Meta.SkillKey) + len(s.Meta.PrimaryEnv)
		r := &s.Meta.Requires
		for _, list := range [...][]string{s.Meta.OS, r.Bins, r.AnyBins, r.Env, r.Config} {
			for _, x := range list {
				n += 16 + len(x)
			}
		}
	}
	for _, s := range c.Skipped {
		n += recordBytes + len(s.Name) + len(s.Location) + len(s.Source) + len(s.Reason)
	}
	for _, list := range [...][]Problem{c.Problems, c.Warnings} {
		for _, p := range list {
			n += recordBytes + len(p.Path) + len(p.Message)
		}
	}
	for _, cut := range c.Cuts {
		n += recordBytes + len(cut.Root) + len(cut.Reason)
	}
	return n
}

// Build decides the catalog for the skills found: it applies the policy,
// sorts what is eligible by name, keeps at most MaxSkills, and then fits the
// MaxChars budget in these steps, stopping at the first that fits:
//  1. every kept skill with descriptions;
//  2. every kept skill without descriptions;
//  3. the longest prefix of kept skills, without descriptions, that fits
//     together with its note (possibly none at all).
//
// Skills left out by the budget are skipped as "over budget". A limit <= 0
// is an error; measure errors are returned as they are, wrapped. When every
// skill is eligible and found.Skills is already sorted, Catalog.Skills
// shares its array with found.Skills instead of copying it.
func Build(found Found, p Policy, lim Limits, measure MeasureFunc) (Catalog, error) {
	if measure == nil {
		return Catalog{}, fmt.Errorf("skills: Build needs a measure function")
	}
	maxChars, maxSkills := lim.MaxChars, lim.MaxSkills
	if maxChars <= 0 {
		return Catalog{}, fmt.Errorf("skills: Limits.MaxChars must be positive, got %d", maxChars)
	}
	if maxSkills <= 0 {
		return Catalog{}, fmt.Errorf("skills: Limits.MaxSkills must be positive, got %d", maxSkills)
	}

	eligible, skipped := admit(found.Skills, &p)
	if !isSorted(eligible) {
		if len(skipped) == 0 { // eligible is found.Skills: sort a copy
			eligible = slices.Clone(eligible)
		}
		sortSkills(eligible)
	}
	cat := Catalog{
		Descriptions: true,
		Found:        len(found.Skills),
		Eligible:     len(eligible),
		Problems:     found.Problems,
		Warnings:     found.Warnings,
		Cuts:         found.Cuts,
	}

	total := len(eligible)
	if total == 0 {
		cat.Skipped = skippedOf(found.Skipped, skipped, nil, 0, maxChars, maxSkills)
		return cat, nil
	}
	kept := eligible[:min(total, maxSkills)]
	listed, descriptions, err := fit(kept, total, maxChars, measure)
	if err != nil {
		return Catalog{}, err
	}

	cat.Skipped = skippedOf(found.Skipped, skipped, eligible, listed, maxChars, maxSkills)

	cat.Skills = eligible[:listed:listed]
	cat.Descriptions = descriptions
	cat.Listed = listed
	cat.Note = note(listed, total)
	return cat, nil
}

// skippedOf gathers, sorted, the skills skipped before Build, those the
// policy rejected, and the eligible ones after the first listed: those went
// for lack of characters up to maxSkills, and for lack of slots past it.
func skippedOf(found, rejected []Skipped, eligible []Skill, listed, maxChars, maxSkills int) []Skipped {
	all := make([]Skipped, 0, len(found)+len(rejected)+len(eligible)-listed)
	all = append(append(all, found...), rejected...)
	if listed < len(eligible) {
		overChars := fmt.Sprintf("over budget: catalog limited to %d chars", maxChars)
		overCount := fmt.Sprintf("over budget: catalog limited to %d skills", maxSkills)
		for i := listed; i < len(eligible); i++ {
			reason := overChars
			if i >= maxSkills {
				reason = overCount
			}
			all = append(all, skippedFor(eligible[i], reason))
		}
	}
	slices.SortFunc(all, compareSkipped)
	return all
}

// isSorted reports whether skills are in compareSkills order.
func isSorted(skills []Skill) bool {
	for i := 1; i < len(skills); i++ {
		if compareSkills(&skills[i-1], &skills[i]) > 0 {
			return false
		}
	}
	return true
}

// note is the catalog's truncation note, "" when nothing was dropped.
func note(listed, total int) string {
	if listed >= total {
		return ""
	}
	return fmt.Sprintf("%d of %d skills listed", listed, total)
}

// admit is [Eligible] without the copy when every skill is admitted: then
// eligible is skills itself, capped so that appending to it cannot write
// into skills.
func admit(skills []Skill, p *Policy) (eligible []Skill, skipped []Skipped) {
	for i := range skills {
		reason := p.reject(&skills[i])
		switch {
		case reason != "":
			if skipped == nil {
				eligible = append(make([]Skill, 0, len(skills)-1), skills[:i]...)
			}
			skipped = append(skipped, skippedFor(skills[i], reason))
		case skipped != nil:
			eligible = append(eligible, skills[i])
		}
	}
	if skipped == nil {
		return skills[:len(skills):len(skills)], nil
	}
	return eligible, skipped
}

// fit finds how much of kept fits maxChars: all of it with descriptions,
// else all of it without, else the longest prefix without (which may be
// empty). total is the eligible count, for the "N of M" note.
func fit(kept []Skill, total, maxChars int, measure MeasureFunc) (listed int, descriptions bool, err error) {
	fits := func(k int, descriptions bool) (bool, error) {
		n, err := measure(kept[:k], descriptions, note(k, total))
		if err != nil {
			return false, fmt.Errorf("skills: measuring catalog of %d skills: %w", k, err)
		}
		return n <= maxChars, nil
	}
	for _, descriptions := range []bool{true, false} {
		if ok, err := fits(len(kept), descriptions); err != nil || ok {
			return len(kept), descriptions, err
		}
	}
	// Largest k in [0, len(kept)) that fits; k = 0 is taken even if it
	// does not, as there is nothing smaller to offer.
	var searchErr error
	listed = sort.Search(len(kept), func(k int) bool {
		if k == 0 || searchErr != nil {
			return false
		}
		ok, err := fits(k, false)
		if err != nil {
			searchErr = err
		}
		return !ok
	}) - 1
	return listed, false, searchErr
}
