package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/sysprompt/sysprompt/engine/internal/strict"
)

// Data files of a pack: the core tool table and the model overlays.

const (
	toolsPath   = "templates/tools.toml"
	overlaysDir = "templates/overlays"
)

// toolEntry is one row of the core tool table.
type toolEntry struct {
	Name    string `toml:"name"`
	Summary string `toml:"summary"`
}

// ToolLine is one line of the tool list templates print.
type ToolLine struct {
	Name    string
	Summary string
}

// readTools reads templates/tools.toml; a pack without it has no table.
func readTools(fsys fs.FS) ([]toolEntry, ErrorList) {
	src, err := fs.ReadFile(fsys, toolsPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, ErrorList{{Phase: PhaseManifest, File: toolsPath, Err: err}}
	}
	var doc struct {
		Tool []toolEntry `toml:"tool"`
	}
	if err := strict.TOML(string(src), &doc); err != nil {
		return nil, ErrorList{posError(PhaseManifest, toolsPath, err)}
	}
	headers := strict.Headers(string(src), "tool")
	seen := map[string]bool{}
	for i, t := range doc.Tool {
		line := 0
		if i < len(headers) {
			line = headers[i]
		}
		key := strings.ToLower(t.Name)
		switch {
		case t.Name == "":
			return nil, ErrorList{{Phase: PhaseManifest, File: toolsPath, Line: line, Col: 1, Err: fmt.Errorf("[[tool]] entry %d has no name", i+1)}}
		case seen[key]:
			return nil, ErrorList{{Phase: PhaseManifest, File: toolsPath, Line: line, Col: 1, Err: fmt.Errorf("tool %q is listed twice", t.Name)}}
		}
		seen[key] = true
	}
	return doc.Tool, nil
}

// toolLines orders the request's tools: core tools in table order, then
// the others sorted by lowercase name. Names are trimmed and de-duplicated
// case-insensitively; the first spelling wins.
func toolLines(table []toolEntry, tools []Tool) []ToolLine {
	byName := map[string]Tool{}
	var order []string
	for _, t := range tools {
		name := strings.TrimSpace(t.Name)
		key := strings.ToLower(name)
		if name == "" || slices.Contains(order, key) {
			continue
		}
		t.Name = name
		byName[key] = t
		order = append(order, key)
	}
	lines := make([]ToolLine, 0, len(order))
	core := map[string]bool{}
	for _, e := range table {
		key := strings.ToLower(e.Name)
		core[key] = true
		if t, ok := byName[key]; ok {
			lines = append(lines, ToolLine{Name: t.Name, Summary: e.Summary})
		}
	}
	var rest []string
	for _, key := range order {
		if !core[key] {
			rest = append(rest, key)
		}
	}
	sort.Strings(rest)
	for _, key := range rest {
		t := byName[key]
		summary, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
		lines = append(lines, ToolLine{Name: t.Name, Summary: strings.TrimSpace(summary)})
	}
	return lines
}

// overlay is a model-family prompt contribution declared as data.
type overlay struct {
	file         string
	Name         string                       `toml:"name"`
	Models       []string                     `toml:"models"`
	Providers    []string                     `toml:"providers"`
	Setting      string                       `toml:"setting"`
	DefaultStyle string                       `toml:"default_style"`
	StablePrefix string                       `toml:"stable_prefix"`
	Dynamic      string                       `toml:"dynamic_suffix"`
	Styles       map[string]map[string]string `toml:"styles"`
	models       []*regexp.Regexp
}

// readOverlays reads templates/overlays/*.toml, sorted by file name.
func readOverlays(fsys fs.FS) ([]*overlay, ErrorList) {
	entries, err := fs.ReadDir(fsys, overlaysDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, ErrorList{{Phase: PhaseManifest, File: overlaysDir, Err: err}}
	}
	var out []*overlay
	var errs ErrorList
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".toml") {
			continue
		}
		file := path.Join(overlaysDir, e.Name())
		src, err := fs.ReadFile(fsys, file)
		if err != nil {
			errs = append(errs, &Error{Phase: PhaseManifest, File: file, Err: err})
			continue
		}
		o := &overlay{file: file}
		if err := strict.TOML(string(src), o); err != nil {
			errs = append(errs, posError(PhaseManifest, file, err))
			continue
		}
		if err := o.validate(string(src)); err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, o)
	}
	return out, errs
}

func (o *overlay) validate(src string) *Error {
	fail := func(key string, format string, args ...any) *Error {
		l, c := strict.LocateKey(src, key)
		return &Error{Phase: PhaseManifest, File: o.file, Line: l, Col: c, Err: fmt.Errorf(format, args...)}
	}
	if o.Name == "" {
		return fail("name", "an overlay needs a name")
	}
	if len(o.Models) == 0 {
		return fail("models", "overlay %q matches no model: models is empty", o.Name)
	}
	for _, m := range o.Models {
		re, err := regexp.Compile(m)
		if err != nil {
			return fail("models", "overlay %q: bad model pattern %q: %v", o.Name, m, err)
		}
		o.models = append(o.models, re)
	}
	if o.DefaultStyle != "" {
		if _, ok := o.Styles[o.DefaultStyle]; !ok {
			return fail("default_style", "overlay %q: default_style %q is not one of its styles", o.Name, o.DefaultStyle)
		}
	}
	for name, style := range o.Styles {
		if name == "on" || name == "off" {
			return fail("styles."+name, "overlay %q: a style cannot be called %q (it is a setting value)", o.Name, name)
		}
		for k := range style {
			if !slices.Contains(overrideKeys, k) {
				return fail("styles."+name+"."+k, "overlay %q: style %q overrides unknown section %q (want one of %s)", o.Name, name, k, strings.Join(overrideKeys, ", "))
			}
		}
	}
	return nil
}

// applies reports whether the overlay matches the run's model and provider.
func (o *overlay) applies(provider, model string) bool {
	if len(o.Providers) > 0 && !slices.Contains(o.Providers, strings.ToLower(provider)) {
		return false
	}
	for _, re := range o.models {
		if re.MatchString(model) {
			return true
		}
	}
	return false
}

// contribution is what the overlay adds for a style setting: "off" keeps
// only the prefix and suffix; "on" or "" picks the default style.
func (o *overlay) contribution(setting string) (Contribution, error) {
	c := Contribution{StablePrefix: o.StablePrefix, DynamicSuffix: o.Dynamic}
	style := setting
	if style == "" || style == "on" {
		style = o.DefaultStyle
	}
	if style == "off" || style == "" {
		return c, nil
	}
	overrides, ok := o.Styles[style]
	if !ok {
		return c, fmt.Errorf("overlay %q has no style %q (have %s)", o.Name, style, strings.Join(sortedKeys(o.Styles), ", "))
	}
	c.SectionOverrides = overrides
	return c, nil
}

// overlayContributions returns the contributions of every overlay that
// applies to the run, in file order.
func (e *Engine) overlayContributions(req *Request, s *Settings) ([]Contribution, error) {
	var out []Contribution
	for _, o := range e.pack.overlays {
		if !o.applies(req.Runtime.Provider, req.Runtime.Model) {
			continue
		}
		setting := ""
		if o.Setting != "" {
			setting = s.PromptOverlays[o.Setting]
		}
		c, err := o.contribution(setting)
		if err != nil {
			return nil, &Error{Phase: PhaseConfig, File: o.file, Err: err}
		}
		out = append(out, c)
	}
	return out, nil
}

// checkOverlaySettings refuses promptOverlays settings that no overlay of
// the pack reads, and personalities that are neither on, off nor one of
// the overlay's styles: a typo must not fall back to a default silently.
func checkOverlaySettings(cfg *Config, overlays []*overlay) *Error {
	if cfg == nil {
		return nil
	}
	styles := map[string][]string{} // setting -> allowed values
	for _, o := range overlays {
		if o.Setting != "" {
			styles[o.Setting] = append(styles[o.Setting], sortedKeys(o.Styles)...)
		}
	}
	check := func(table string, line int, a *AgentSettings) *Error {
		for _, name := range sortedKeys(a.PromptOverlays) {
			allowed, known := styles[name]
			key := table + ".promptOverlays." + name
			if !known {
				e := cfg.keyErr(key, line, fmt.Errorf("promptOverlays.%s: no overlay of the pack has the setting %q (have %s)", name, name, strings.Join(sortedKeys(styles), ", ")))
				return e.(*Error)
			}
			p := a.PromptOverlays[name].Personality
			if p == nil || *p == "on" || *p == "off" || slices.Contains(allowed, *p) {
				continue
			}
			e := cfg.keyErr(key+".personality", line, fmt.Errorf("promptOverlays.%s.personality = %q is not allowed (want on, off, %s)", name, *p, strings.Join(allowed, ", ")))
			return e.(*Error)
		}
		return nil
	}
	if err := check("agents.defaults", 1, &cfg.Agents.Defaults); err != nil {
		return err
	}
	headers := strict.Headers(cfg.src, "agents.list")
	for i := range cfg.Agents.List {
		line := 1
		if i < len(headers) {
			line = headers[i]
		}
		if err := check("agents.list", line, &cfg.Agents.List[i].AgentSettings); err != nil {
			return err
		}
	}
	return nil
}
