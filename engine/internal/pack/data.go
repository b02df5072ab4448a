package pack

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/internal/diag"

	"github.com/sysprompt/sysprompt/engine/internal/strict"
	"github.com/sysprompt/sysprompt/vfs"
)

// Data files of a pack: the core tool table and the model overlays.

const (
	defaultsPath = "templates/defaults.toml"
	toolsPath    = "templates/tools.toml"
	overlaysDir  = "templates/overlays"
)

// ToolEntry is one row of the core tool table.
type ToolEntry struct {
	Name    string `toml:"name"`
	Summary string `toml:"summary"`
}

// BootstrapFiles are the pack's workspace file lists, from the
// [bootstrap] table of templates/defaults.toml.
type BootstrapFiles struct {
	Files    []string // the candidates, in prompt order
	Optional []string // absent without a missing marker
	Dynamic  []string // rendered below the cache boundary
	Subagent []string // all a sub-agent session gets
	Cron     []string // all a cron session gets
	Private  []string // never injected into shared, sub-agent or cron sessions
}

// defaultsFile is templates/defaults.toml as written; every key is a
// pointer, so a missing one can be told from a zero.
type defaultsFile struct {
	Time struct {
		Format *string `toml:"format"`
	} `toml:"time"`
	Skills struct {
		MaxPromptChars *int `toml:"max_prompt_chars"`
		MaxInPrompt    *int `toml:"max_in_prompt"`
	} `toml:"skills"`
	Memory struct {
		Citations *string `toml:"citations"`
	} `toml:"memory"`
	Subagents struct {
		DelegationMode *string `toml:"delegation_mode"`
	} `toml:"subagents"`
	Heartbeat struct {
		Enabled        *bool   `toml:"enabled"`
		IncludeSection *bool   `toml:"include_section"`
		Prompt         *string `toml:"prompt"`
	} `toml:"heartbeat"`
	Bootstrap struct {
		MaxChars          *int      `toml:"max_chars"`
		TotalMaxChars     *int      `toml:"total_max_chars"`
		TruncationWarning *string   `toml:"truncation_warning"`
		Files             *[]string `toml:"files"`
		Optional          *[]string `toml:"optional"`
		Dynamic           *[]string `toml:"dynamic"`
		Subagent          *[]string `toml:"subagent"`
		Cron              *[]string `toml:"cron"`
		Private           *[]string `toml:"private"`
	} `toml:"bootstrap"`
}

// readDefaults reads templates/defaults.toml: the pack's settings
// defaults, the bottom of the config precedence, and its workspace file
// lists; it is their only source. Every key is required, so a pack that
// leaves one out is told so rather than rendering with a value nobody
// chose (an explicit [] is a choice).
func readDefaults(fsys fs.FS) (config.Defaults, BootstrapFiles, diag.ErrorList) {
	src, err := readFile(fsys, defaultsPath)
	if err != nil {
		return config.Defaults{}, BootstrapFiles{}, diag.ErrorList{{Phase: diag.PhaseManifest, File: defaultsPath,
			Err: fmt.Errorf("cannot read the pack's defaults: %w", err)}}
	}
	var doc defaultsFile
	if err := strict.TOML(string(src), &doc); err != nil {
		return config.Defaults{}, BootstrapFiles{}, diag.ErrorList{diag.Decode(diag.PhaseManifest, defaultsPath, err)}
	}
	c := &defaultsCheck{doc: strict.LazyScan(string(src))}
	d := config.Defaults{
		TimeFormat:             oneOf(c, "time.format", doc.Time.Format, config.TimeFormats),
		MaxSkillsPromptChars:   positive(c, "skills.max_prompt_chars", doc.Skills.MaxPromptChars),
		MaxSkillsInPrompt:      positive(c, "skills.max_in_prompt", doc.Skills.MaxInPrompt),
		MemoryCitations:        oneOf(c, "memory.citations", doc.Memory.Citations, config.CitationModes),
		DelegationMode:         oneOf(c, "subagents.delegation_mode", doc.Subagents.DelegationMode, config.DelegationModes),
		HeartbeatEnabled:       required(c, "heartbeat.enabled", doc.Heartbeat.Enabled),
		HeartbeatSection:       required(c, "heartbeat.include_section", doc.Heartbeat.IncludeSection),
		HeartbeatPrompt:        required(c, "heartbeat.prompt", doc.Heartbeat.Prompt),
		BootstrapMaxChars:      positive(c, "bootstrap.max_chars", doc.Bootstrap.MaxChars),
		BootstrapTotalMaxChars: positive(c, "bootstrap.total_max_chars", doc.Bootstrap.TotalMaxChars),
		TruncationWarning:      oneOf(c, "bootstrap.truncation_warning", doc.Bootstrap.TruncationWarning, bootstrap.WarningModes),
	}
	if doc.Heartbeat.Prompt != nil && strings.TrimSpace(d.HeartbeatPrompt) == "" {
		c.fail("heartbeat.prompt", "heartbeat.prompt is empty: it is what a heartbeat turn asks by default")
	}
	files := BootstrapFiles{
		Files:    c.names("files", doc.Bootstrap.Files),
		Optional: c.names("optional", doc.Bootstrap.Optional),
		Dynamic:  c.names("dynamic", doc.Bootstrap.Dynamic),
		Subagent: c.names("subagent", doc.Bootstrap.Subagent),
		Cron:     c.names("cron", doc.Bootstrap.Cron),
		Private:  c.names("private", doc.Bootstrap.Private),
	}
	return d, files, c.errs
}

// defaultsCheck collects the problems of templates/defaults.toml, each at
// the key it is about.
type defaultsCheck struct {
	doc  *strict.Scan // positions, for errors only
	errs diag.ErrorList
}

// fail reports a problem with key where it is written; for a key that is
// not, at its table's header, or at the top of the file without one.
func (c *defaultsCheck) fail(key, format string, args ...any) {
	l, col := c.doc.Doc().Locate(key, 1)
	if l == 0 {
		table, _, _ := strings.Cut(key, ".")
		if l, col = c.doc.Doc().Locate(table, 1); l == 0 {
			l, col = 1, 1
		}
	}
	c.errs = append(c.errs, &diag.Error{Phase: diag.PhaseManifest, File: defaultsPath, Line: l, Col: col, Err: fmt.Errorf(format, args...)})
}

// required returns the value of a key every pack must set, reporting it
// when missing.
func required[T any](c *defaultsCheck, key string, v *T) T {
	if v == nil {
		c.fail(key, "%s is missing: %s is the only source of the pack's defaults, so it must set every one", key, defaultsPath)
		var zero T
		return zero
	}
	return *v
}

// names is required for a [bootstrap] file list: workspace-relative
// names, none twice, each reported where it is written.
func (c *defaultsCheck) names(key string, v *[]string) []string {
	list := required(c, "bootstrap."+key, v)
	for i, name := range list {
		err := badName(name, list[:i])
		if err == nil {
			continue
		}
		at := c.doc.Doc().Elements("bootstrap", 0, key)
		pos := strict.Pos{Line: 1, Col: 1}
		if i < len(at) {
			pos = at[i]
		}
		c.errs = append(c.errs, &diag.Error{Phase: diag.PhaseManifest, File: defaultsPath, Line: pos.Line, Col: pos.Col,
			Err: fmt.Errorf("bootstrap.%s: %w", key, err)})
	}
	return list
}

// badName says what is wrong with a file name of a [bootstrap] list, given
// the names before it; nil when nothing is.
func badName(name string, before []string) error {
	if slices.Contains(before, name) {
		return fmt.Errorf("%q is listed twice", name)
	}
	_, err := vfs.Clean(name)
	return err
}

// positive is required for a count that must be above zero.
func positive(c *defaultsCheck, key string, v *int) int {
	n := required(c, key, v)
	if v != nil && n <= 0 {
		c.fail(key, "%s must be a positive number, not %d", key, n)
	}
	return n
}

// oneOf is required for an enumerated value: one of allowed, the list the
// config's own validation uses.
func oneOf(c *defaultsCheck, key string, v *string, allowed []string) string {
	s := required(c, key, v)
	if v != nil && !slices.Contains(allowed, s) {
		c.fail(key, "%s = %q is not allowed (want %s)", key, s, strings.Join(allowed, ", "))
	}
	return s
}

// decodeOptional strictly decodes the pack's TOML file at path into doc
// and returns its text; "" with no errors when the pack has no such file.
func decodeOptional(fsys fs.FS, path string, doc any) (string, diag.ErrorList) {
	src, err := readFile(fsys, path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", diag.ErrorList{{Phase: diag.PhaseManifest, File: path, Err: err}}
	}
	if err := strict.TOML(string(src), doc); err != nil {
		return "", diag.ErrorList{diag.Decode(diag.PhaseManifest, path, err)}
	}
	return string(src), nil
}

// readTools reads templates/tools.toml; a pack without it has no table.
func readTools(fsys fs.FS) ([]ToolEntry, diag.ErrorList) {
	var doc struct {
		Tool []ToolEntry `toml:"tool"`
	}
	src, errs := decodeOptional(fsys, toolsPath, &doc)
	if src == "" || errs != nil {
		return nil, errs
	}
	// The headers' lines are found only for an error.
	line := func(i int) int {
		if headers := strict.Headers(src, "tool"); i < len(headers) {
			return headers[i]
		}
		return 0
	}
	seen := map[string]bool{}
	for i, t := range doc.Tool {
		key := strings.ToLower(t.Name)
		switch {
		case t.Name == "":
			return nil, diag.ErrorList{{Phase: diag.PhaseManifest, File: toolsPath, Line: line(i), Col: 1, Err: fmt.Errorf("[[tool]] entry %d has no name", i+1)}}
		case seen[key]:
			return nil, diag.ErrorList{{Phase: diag.PhaseManifest, File: toolsPath, Line: line(i), Col: 1, Err: fmt.Errorf("tool %q is listed twice", t.Name)}}
		}
		seen[key] = true
	}
	return doc.Tool, nil
}

// Overlay is a model-family prompt contribution declared as data.
type Overlay struct {
	File         string
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
func readOverlays(fsys fs.FS) ([]*Overlay, diag.ErrorList) {
	entries, err := fs.ReadDir(fsys, overlaysDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, diag.ErrorList{{Phase: diag.PhaseManifest, File: overlaysDir, Err: err}}
	}
	var out []*Overlay
	var errs diag.ErrorList
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".toml") {
			continue
		}
		file := path.Join(overlaysDir, e.Name())
		src, err := readFile(fsys, file)
		if err != nil {
			errs = append(errs, &diag.Error{Phase: diag.PhaseManifest, File: file, Err: err})
			continue
		}
		o := &Overlay{File: file}
		if err := strict.TOML(string(src), o); err != nil {
			errs = append(errs, diag.Decode(diag.PhaseManifest, file, err))
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

func (o *Overlay) validate(src string) *diag.Error {
	fail := func(key string, format string, args ...any) *diag.Error {
		l, c := strict.LocateKey(src, key)
		return &diag.Error{Phase: diag.PhaseManifest, File: o.File, Line: l, Col: c, Err: fmt.Errorf(format, args...)}
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
			if !slices.Contains(OverrideKeys, k) {
				return fail("styles."+name+"."+k, "overlay %q: style %q overrides unknown section %q (want one of %s)", o.Name, name, k, strings.Join(OverrideKeys, ", "))
			}
		}
	}
	return nil
}

// Applies reports whether the overlay matches the run's model and provider.
func (o *Overlay) Applies(provider, model string) bool {
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

// Style returns the section overrides the overlay adds for a style
// setting: none for "off"; "on" or "" picks the default style.
func (o *Overlay) Style(setting string) (map[string]string, error) {
	style := setting
	if style == "" || style == "on" {
		style = o.DefaultStyle
	}
	if style == "off" || style == "" {
		return nil, nil
	}
	overrides, ok := o.Styles[style]
	if !ok {
		return nil, &diag.Error{Phase: diag.PhaseConfig, File: o.File,
			Err: fmt.Errorf("overlay %q has no style %q (have %s)", o.Name, style, strings.Join(sortedKeys(o.Styles), ", "))}
	}
	return overrides, nil
}

// Settings maps each overlay setting of the pack to the style names it
// accepts, for checking a config's promptOverlays.
func Settings(overlays []*Overlay) map[string][]string {
	styles := map[string][]string{}
	for _, o := range overlays {
		if o.Setting != "" {
			styles[o.Setting] = append(styles[o.Setting], sortedKeys(o.Styles)...)
		}
	}
	return styles
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
