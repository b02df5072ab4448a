package engine

import (
	"maps"
	"slices"
	"strings"

	"github.com/sysprompt/sysprompt/engine/config"
)

// normalizeBlock prepares provider text for the prompt: CRLF to LF,
// trailing spaces stripped from each line, runs of blank lines folded to
// one (the prompt never holds more outside workspace files), trimmed.
// Empty means absent.
func normalizeBlock(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return tidy(strings.Join(lines, "\n"), nil)
}

// merged is several contributions combined: prefixes and
// suffixes joined with a blank line with duplicates dropped, overrides
// later-wins.
type merged struct {
	stablePrefix  string
	dynamicSuffix string
	overrides     map[string]string
}

func mergeContributions(list []Contribution) merged {
	var prefixes, suffixes []string
	overrides := map[string]string{}
	for _, c := range list {
		if p := normalizeBlock(c.StablePrefix); p != "" && !slices.Contains(prefixes, p) {
			prefixes = append(prefixes, p)
		}
		if s := normalizeBlock(c.DynamicSuffix); s != "" && !slices.Contains(suffixes, s) {
			suffixes = append(suffixes, s)
		}
		// Apply in sorted key order so the result never depends on map order.
		for _, k := range sortedKeys(c.SectionOverrides) {
			if v := normalizeBlock(c.SectionOverrides[k]); v != "" {
				overrides[k] = v
			}
		}
	}
	return merged{
		stablePrefix:  strings.Join(prefixes, "\n\n"),
		dynamicSuffix: strings.Join(suffixes, "\n\n"),
		overrides:     overrides,
	}
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// overlayContributions returns the contributions of every overlay that
// applies to the run, in file order.
func (e *Engine) overlayContributions(req *Request, s *config.Settings) ([]Contribution, error) {
	var out []Contribution
	for _, o := range e.pack.Overlays {
		if !o.Applies(req.Runtime.Provider, req.Runtime.Model) {
			continue
		}
		setting := ""
		if o.Setting != "" {
			setting = s.PromptOverlays[o.Setting]
		}
		overrides, err := o.Style(setting)
		if err != nil {
			return nil, err
		}
		out = append(out, Contribution{StablePrefix: o.StablePrefix, DynamicSuffix: o.Dynamic, SectionOverrides: overrides})
	}
	return out, nil
}
