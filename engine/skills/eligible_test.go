package skills

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEligibleGates(t *testing.T) {
	off, on := false, true
	none, onlyB := []string{}, []string{"b-name"}
	base := Skill{Name: "s", Key: "s", Source: Workspace, Location: "/w/s/SKILL.md"}
	with := func(edit func(*Skill)) Skill {
		s := base
		edit(&s)
		return s
	}
	bins := map[string]bool{"git": true, "rg": true}
	okPolicy := Policy{
		OS:       "linux",
		LookPath: func(bin string) bool { return bins[bin] },
		Env:      map[string]string{"HOME_TOKEN": "x", "BLANK": ""},
		Config: func(key string) (any, bool) {
			v, ok := map[string]any{
				"yes": true, "no": false, "one": 1, "zero": 0, "u": uint8(2), "f": 0.5, "f0": 0.0,
				"str": "on", "blank": "  ", "list": []string{"a"}, "nil": nil,
			}[key]
			return v, ok
		},
	}
	policy := func(edit func(*Policy)) Policy {
		p := okPolicy
		edit(&p)
		return p
	}
	tests := []struct {
		name   string
		skill  Skill
		policy Policy
		reason string // "" = eligible
	}{
		{name: "no gates", skill: base, policy: okPolicy},

		{name: "disabled by key", skill: with(func(s *Skill) { s.Key = "k" }), policy: policy(func(p *Policy) { p.Entries = map[string]Entry{"k": {Enabled: &off}} }), reason: "disabled in config"},
		{name: "disabled by name only does not match key", skill: with(func(s *Skill) { s.Key = "k" }), policy: policy(func(p *Policy) { p.Entries = map[string]Entry{"s": {Enabled: &off}} })},
		{name: "enabled explicitly", skill: base, policy: policy(func(p *Policy) { p.Entries = map[string]Entry{"s": {Enabled: &on}} })},

		{name: "bundled not allowed", skill: with(func(s *Skill) { s.Source = Bundled }), policy: policy(func(p *Policy) { p.AllowBundled = []string{"other"} }), reason: "bundled skill not allowed"},
		{name: "bundled allowed by name", skill: with(func(s *Skill) { s.Source = Bundled; s.Key = "k" }), policy: policy(func(p *Policy) { p.AllowBundled = []string{"s"} })},
		{name: "bundled allowed by key", skill: with(func(s *Skill) { s.Source = Bundled; s.Key = "k" }), policy: policy(func(p *Policy) { p.AllowBundled = []string{"k"} })},
		{name: "bundled, empty allow list allows all", skill: with(func(s *Skill) { s.Source = Bundled }), policy: okPolicy},
		{name: "workspace ignores allowBundled", skill: base, policy: policy(func(p *Policy) { p.AllowBundled = []string{"other"} })},

		{name: "plugin disabled", skill: with(func(s *Skill) { s.Plugin = "browser" }), policy: policy(func(p *Policy) { p.Plugins = map[string]bool{"browser": false} }), reason: "plugin browser disabled"},
		{name: "plugin unknown", skill: with(func(s *Skill) { s.Plugin = "browser" }), policy: okPolicy, reason: "plugin browser disabled"},
		{name: "plugin enabled", skill: with(func(s *Skill) { s.Plugin = "browser" }), policy: policy(func(p *Policy) { p.Plugins = map[string]bool{"browser": true} })},

		{name: "allowlist empty allows none", skill: base, policy: policy(func(p *Policy) { p.Allowlist = &none }), reason: "not in agent allowlist"},
		{name: "allowlist misses", skill: base, policy: policy(func(p *Policy) { p.Allowlist = &onlyB }), reason: "not in agent allowlist"},
		{name: "allowlist lists", skill: with(func(s *Skill) { s.Name = "b-name" }), policy: policy(func(p *Policy) { p.Allowlist = &onlyB })},
		{name: "allowlist entry with spaces", skill: with(func(s *Skill) { s.Name = "b-name" }), policy: policy(func(p *Policy) { p.Allowlist = &[]string{" b-name\t"} })},
		{name: "allowBundled entry with spaces", skill: with(func(s *Skill) { s.Source = Bundled }), policy: policy(func(p *Policy) { p.AllowBundled = []string{" s "} })},

		{name: "os mismatch", skill: with(func(s *Skill) { s.Meta.OS = []string{"darwin", "win32"} }), policy: okPolicy, reason: "os: needs darwin or win32"},
		{name: "os match", skill: with(func(s *Skill) { s.Meta.OS = []string{"darwin", "Linux"} }), policy: okPolicy},
		{name: "os alias", skill: with(func(s *Skill) { s.Meta.OS = []string{"win32"} }), policy: policy(func(p *Policy) { p.OS = "windows" })},
		{name: "always does not bypass os", skill: with(func(s *Skill) { s.Meta.OS = []string{"darwin"}; s.Meta.Always = true }), policy: okPolicy, reason: "os: needs darwin"},

		{name: "bins missing", skill: with(func(s *Skill) { s.Meta.Requires.Bins = []string{"git", "jq", "yq"} }), policy: okPolicy, reason: "missing binary: jq, yq"},
		{name: "bins found", skill: with(func(s *Skill) { s.Meta.Requires.Bins = []string{"git", "rg"} }), policy: okPolicy},
		{name: "no LookPath finds nothing", skill: with(func(s *Skill) { s.Meta.Requires.Bins = []string{"git"} }), policy: policy(func(p *Policy) { p.LookPath = nil }), reason: "missing binary: git"},
		{name: "always bypasses bins", skill: with(func(s *Skill) { s.Meta.Requires.Bins = []string{"jq"}; s.Meta.Always = true }), policy: okPolicy},

		{name: "anyBins none", skill: with(func(s *Skill) { s.Meta.Requires.AnyBins = []string{"gs", "mutool"} }), policy: okPolicy, reason: "missing binary: one of gs, mutool"},
		{name: "anyBins one", skill: with(func(s *Skill) { s.Meta.Requires.AnyBins = []string{"gs", "rg"} }), policy: okPolicy},

		{name: "env missing", skill: with(func(s *Skill) { s.Meta.Requires.Env = []string{"HOME_TOKEN", "API_KEY"} }), policy: okPolicy, reason: "missing env: API_KEY"},
		{name: "env blank", skill: with(func(s *Skill) { s.Meta.Requires.Env = []string{"BLANK"} }), policy: okPolicy, reason: "missing env: BLANK"},
		{name: "env from process", skill: with(func(s *Skill) { s.Meta.Requires.Env = []string{"HOME_TOKEN"} }), policy: okPolicy},
		{name: "env from entry", skill: with(func(s *Skill) { s.Meta.Requires.Env = []string{"API_KEY"} }), policy: policy(func(p *Policy) { p.Entries = map[string]Entry{"s": {Env: map[string]string{"API_KEY": "k"}}} })},

		{name: "config truthy", skill: with(func(s *Skill) { s.Meta.Requires.Config = []string{"yes", "one", "u", "f", "str"} }), policy: okPolicy},
		{name: "config falsy", skill: with(func(s *Skill) {
			s.Meta.Requires.Config = []string{"yes", "no", "zero", "f0", "blank", "list", "nil", "unset"}
		}), policy: okPolicy, reason: "config not truthy: no, zero, f0, blank, list, nil, unset"},
		{name: "no Config finds nothing", skill: with(func(s *Skill) { s.Meta.Requires.Config = []string{"yes"} }), policy: policy(func(p *Policy) { p.Config = nil }), reason: "config not truthy: yes"},
		{name: "always bypasses env and config", skill: with(func(s *Skill) {
			s.Meta.Always = true
			s.Meta.Requires = Requirements{AnyBins: []string{"x"}, Env: []string{"X"}, Config: []string{"no"}}
		}), policy: okPolicy},

		// The first failing gate is the one reported.
		{name: "order: disabled before everything", skill: with(func(s *Skill) {
			s.Source, s.Plugin, s.Meta.OS, s.Meta.Requires.Bins = Bundled, "p", []string{"darwin"}, []string{"jq"}
		}), policy: policy(func(p *Policy) {
			p.Entries = map[string]Entry{"s": {Enabled: &off}}
			p.AllowBundled, p.Allowlist = []string{"x"}, &none
		}), reason: "disabled in config"},
		{name: "order: bundled before plugin", skill: with(func(s *Skill) { s.Source, s.Plugin = Bundled, "p" }), policy: policy(func(p *Policy) { p.AllowBundled = []string{"x"} }), reason: "bundled skill not allowed"},
		{name: "order: plugin before allowlist", skill: with(func(s *Skill) { s.Plugin = "p" }), policy: policy(func(p *Policy) { p.Allowlist = &none }), reason: "plugin p disabled"},
		{name: "order: allowlist before os", skill: with(func(s *Skill) { s.Meta.OS = []string{"darwin"} }), policy: policy(func(p *Policy) { p.Allowlist = &none }), reason: "not in agent allowlist"},
		{name: "order: os before bins", skill: with(func(s *Skill) { s.Meta.OS = []string{"darwin"}; s.Meta.Requires.Bins = []string{"jq"} }), policy: okPolicy, reason: "os: needs darwin"},
		{name: "order: bins before anyBins", skill: with(func(s *Skill) {
			s.Meta.Requires = Requirements{Bins: []string{"jq"}, AnyBins: []string{"x"}}
		}), policy: okPolicy, reason: "missing binary: jq"},
		{name: "order: anyBins before env", skill: with(func(s *Skill) {
			s.Meta.Requires = Requirements{AnyBins: []string{"x"}, Env: []string{"X"}}
		}), policy: okPolicy, reason: "missing binary: one of x"},
		{name: "order: env before config", skill: with(func(s *Skill) {
			s.Meta.Requires = Requirements{Env: []string{"X"}, Config: []string{"no"}}
		}), policy: okPolicy, reason: "missing env: X"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eligible, skipped := Eligible([]Skill{tt.skill}, tt.policy)
			if tt.reason == "" {
				assert.Equal(t, []Skill{tt.skill}, eligible)
				assert.Empty(t, skipped)
				return
			}
			assert.Empty(t, eligible)
			assert.Equal(t, []Skipped{{Name: tt.skill.Name, Location: tt.skill.Location, Source: tt.skill.Source, Reason: tt.reason}}, skipped)
		})
	}
}

func TestEligibleKeepsInputOrder(t *testing.T) {
	skills := []Skill{{Name: "c", Key: "c"}, {Name: "a", Key: "a", Meta: Metadata{OS: []string{"darwin"}}}, {Name: "b", Key: "b"}, {Name: "d", Key: "d", Meta: Metadata{OS: []string{"darwin"}}}}
	eligible, skipped := Eligible(skills, Policy{OS: "linux"})
	assert.Equal(t, []string{"c", "b"}, names(eligible))
	assert.Equal(t, "a", skipped[0].Name)
	assert.Equal(t, "d", skipped[1].Name)
}
