package skills

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Policy is everything eligibility depends on: the agent's config and the
// runtime facts, all supplied by the caller.
type Policy struct {
	// Entries is skills.entries, by skill key.
	Entries map[string]Entry
	// AllowBundled is skills.allowBundled: when non-empty, a bundled skill
	// must be listed by key or name.
	AllowBundled []string
	// Allowlist is the agent's skills list, matched by name or key: nil
	// allows every skill, a pointer to an empty list allows none.
	Allowlist *[]string
	// Plugins holds each plugin's effective enabled state; a plugin missing
	// here counts as disabled.
	Plugins map[string]bool
	// OS is the platform ("linux", "darwin", "windows", …).
	OS string
	// LookPath reports whether a binary is on PATH. Nil finds nothing.
	LookPath func(bin string) bool
	// Env is the process environment.
	Env map[string]string
	// Config looks up a dotted agent-config path. Nil finds nothing.
	Config func(dotted string) (value any, ok bool)
}

// Entry is skills.entries.<key>.
type Entry struct {
	// Enabled false turns the skill off; nil leaves it on.
	Enabled *bool
	// Env satisfies requires.env next to the process environment.
	Env map[string]string
}

// Eligible splits skills into those the policy admits and those it does not,
// both in input order. The gates run in this order and the first that fails
// is the reason: disabled in config, bundled allowlist, plugin enabled, agent
// allowlist, OS; then, unless metadata.always is set, requires.bins,
// requires.anyBins, requires.env and requires.config.
func Eligible(skills []Skill, p Policy) (eligible []Skill, skipped []Skipped) {
	eligible, skipped = admit(skills, &p)
	if skipped == nil {
		eligible = append(make([]Skill, 0, len(skills)), skills...)
	}
	return eligible, skipped
}

// reject returns why s is not eligible, or "".
func (p *Policy) reject(s *Skill) string {
	entry := p.Entries[s.Key]
	if entry.Enabled != nil && !*entry.Enabled {
		return "disabled in config"
	}
	if s.Source == Bundled && len(p.AllowBundled) > 0 && !listed(p.AllowBundled, s) {
		return "bundled skill not allowed"
	}
	if s.Plugin != "" && !p.Plugins[s.Plugin] {
		return fmt.Sprintf("plugin %s disabled", s.Plugin)
	}
	if p.Allowlist != nil && !listed(*p.Allowlist, s) {
		return "not in agent allowlist"
	}
	if len(s.Meta.OS) > 0 && !slices.ContainsFunc(s.Meta.OS, func(os string) bool { return sameOS(os, p.OS) }) {
		return "os: needs " + strings.Join(s.Meta.OS, " or ")
	}
	if s.Meta.Always {
		return ""
	}
	req := s.Meta.Requires
	if missing := filter(req.Bins, func(bin string) bool { return !p.found(bin) }); len(missing) > 0 {
		return "missing binary: " + strings.Join(missing, ", ")
	}
	if len(req.AnyBins) > 0 && !slices.ContainsFunc(req.AnyBins, p.found) {
		return "missing binary: one of " + strings.Join(req.AnyBins, ", ")
	}
	if missing := filter(req.Env, func(name string) bool { return p.Env[name] == "" && entry.Env[name] == "" }); len(missing) > 0 {
		return "missing env: " + strings.Join(missing, ", ")
	}
	if falsy := filter(req.Config, func(key string) bool { return !p.truthy(key) }); len(falsy) > 0 {
		return "config not truthy: " + strings.Join(falsy, ", ")
	}
	return ""
}

func (p *Policy) found(bin string) bool {
	return p.LookPath != nil && p.LookPath(bin)
}

// truthy reports whether a config value is a true bool, a non-zero number or
// a non-blank string; anything else, or an unset path, is not.
func (p *Policy) truthy(key string) bool {
	if p.Config == nil {
		return false
	}
	v, ok := p.Config(key)
	if !ok || v == nil {
		return false
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Bool:
		return rv.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int() != 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint() != 0
	case reflect.Float32, reflect.Float64:
		return rv.Float() != 0
	case reflect.String:
		return strings.TrimSpace(rv.String()) != ""
	}
	return false
}

// listed reports whether s is named in list by key or name. Spaces around
// an entry are a typo, not part of the name, as the config's check for
// blank entries assumes.
func listed(list []string, s *Skill) bool {
	return slices.ContainsFunc(list, func(n string) bool {
		n = strings.TrimSpace(n)
		return n == s.Key || n == s.Name
	})
}

// sameOS compares platform names, accepting the spellings skills use.
func sameOS(a, b string) bool {
	return canonicalOS(a) == canonicalOS(b)
}

func canonicalOS(name string) string {
	switch name = strings.ToLower(strings.TrimSpace(name)); name {
	case "win32", "win":
		return "windows"
	case "macos", "mac", "osx":
		return "darwin"
	}
	return name
}

func filter(items []string, keep func(string) bool) []string {
	var out []string
	for _, it := range items {
		if keep(it) {
			out = append(out, it)
		}
	}
	return out
}
