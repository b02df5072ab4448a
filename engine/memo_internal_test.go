package engine

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/skills"
	"github.com/sysprompt/sysprompt/engine/view"
)

// stableKey writes every field of these types by hand. A field added to
// one of them fails here until stableKey (or catalogKey) writes it too, or
// this table says why it need not.
func TestStableKeyCoversEveryField(t *testing.T) {
	for typ, written := range map[reflect.Type]int{
		reflect.TypeFor[config.Settings]():     21,
		reflect.TypeFor[bootstrap.File]():      13,
		reflect.TypeFor[skills.Skill]():        9,
		reflect.TypeFor[skills.Metadata]():     5,
		reflect.TypeFor[skills.Requirements](): 4,
		reflect.TypeFor[view.SkillsView]():     5,
		reflect.TypeFor[Workspace]():           2,
		reflect.TypeFor[Docs]():                3,
		reflect.TypeFor[Sandbox]():             4,
		reflect.TypeFor[Tool]():                3, // Schema is left out on purpose: templates never see it
	} {
		assert.Equal(t, written, typ.NumField(), "%s changed: update stableKey and this count", typ)
	}
	var stable []string
	for _, f := range requestFields {
		if f.tier == TierStable {
			stable = append(stable, f.key)
		}
	}
	assert.Equal(t, []string{"Mode", "Harness", "Agent", "SessionKind", "ChatType", "Tools", "Workspace", "Docs", "Sandbox", "Timezone", "ModelAliases"}, stable,
		"the stable request fields changed: update stableKey")
	stable = nil
	for _, f := range derivedFields {
		if f.tier == TierStable {
			stable = append(stable, f.key)
		}
	}
	assert.Equal(t, []string{"Config", "Pack", "Files", "StablePrefix", "ToolLines", "Skills", "Overrides", "BootstrapMode"}, stable,
		"the stable derived values changed: update stableKey")
}

// Every stable input moves the key; no volatile one does.
func TestStableKeyFollowsStableInputs(t *testing.T) {
	base := func() (*Request, *derived) {
		list := []string{"a"}
		return &Request{
				Mode: ModeFull, Tools: []Tool{{Name: "read", Description: "Read."}},
				ModelAliases: map[string]string{"s": "x/y"},
			}, &derived{
				Config:    config.Settings{SkillsAllowlist: &list, Plugins: map[string]bool{"p": true}},
				Files:     view.FileList{{Name: "AGENTS.md", Content: "hello"}},
				Overrides: view.OverrideSet{"tool_call_style": "x"},
			}
	}
	r0, d0 := base()
	var k keyEncoder
	want := stableKey(&k, "embedded", r0, d0, memoKey{1, 2})

	stableChanges := map[string]func(r *Request, d *derived){
		"mode":          func(r *Request, d *derived) { r.Mode = ModeMinimal },
		"agent":         func(r *Request, d *derived) { r.Agent = "x" },
		"session kind":  func(r *Request, d *derived) { r.SessionKind = "cron" },
		"tool name":     func(r *Request, d *derived) { r.Tools[0].Name = "write" },
		"tool desc":     func(r *Request, d *derived) { r.Tools[0].Description = "Read it." },
		"no tools":      func(r *Request, d *derived) { r.Tools = nil },
		"empty tools":   func(r *Request, d *derived) { r.Tools = []Tool{} },
		"workspace":     func(r *Request, d *derived) { r.Workspace.Path = "/w" },
		"brand new":     func(r *Request, d *derived) { r.Workspace.BrandNew = new(true) },
		"not new":       func(r *Request, d *derived) { r.Workspace.BrandNew = new(false) },
		"chat type":     func(r *Request, d *derived) { r.ChatType = "group" },
		"setup pending": func(r *Request, d *derived) { d.BootstrapMode = "full" },
		"docs":          func(r *Request, d *derived) { r.Docs.URL = "u" },
		"sandbox":       func(r *Request, d *derived) { r.Sandbox.Elevated = true },
		"timezone":      func(r *Request, d *derived) { r.Timezone = "Europe/Lisbon" },
		"alias":         func(r *Request, d *derived) { r.ModelAliases["s"] = "x/z" },
		"nil aliases":   func(r *Request, d *derived) { r.ModelAliases = nil },
		"setting":       func(r *Request, d *derived) { d.Config.TimeFormat = "24" },
		"allowlist":     func(r *Request, d *derived) { (*d.Config.SkillsAllowlist)[0] = "b" },
		"no allowlist":  func(r *Request, d *derived) { d.Config.SkillsAllowlist = nil },
		"plugin":        func(r *Request, d *derived) { d.Config.Plugins["p"] = false },
		"file content":  func(r *Request, d *derived) { d.Files[0].Content = "hello!" },
		"file status":   func(r *Request, d *derived) { d.Files[0].Status = bootstrap.StatusTruncated },
		"file private":  func(r *Request, d *derived) { d.Files[0].Private = true },
		"no files":      func(r *Request, d *derived) { d.Files = nil },
		"stable prefix": func(r *Request, d *derived) { d.StablePrefix = "p" },
		"override":      func(r *Request, d *derived) { d.Overrides["tool_call_style"] = "y" },
	}
	for name, change := range stableChanges {
		r, d := base()
		change(r, d)
		assert.NotEqual(t, want, stableKey(&k, "embedded", r, d, memoKey{1, 2}), name)
	}
	assert.NotEqual(t, want, stableKey(&k, "codex", r0, d0, memoKey{1, 2}), "harness")
	assert.NotEqual(t, want, stableKey(&k, "embedded", r0, d0, memoKey{1, 3}), "skills")

	r, d := base()
	r.Date, r.Channel.ID, r.Owners, r.Session.Key = "2026-01-01T00:00:00Z", "discord", []string{"x"}, "k"
	d.DynamicFiles, d.DynamicSuffix, d.Truncation.Warn = view.FileList{{Name: "HEARTBEAT.md"}}, "s", true
	assert.Equal(t, want, stableKey(&k, "embedded", r, d, memoKey{1, 2}), "volatile inputs must not move the key")
}

// The catalog key moves with what templates see of the catalog.
func TestCatalogKeyFollowsTheView(t *testing.T) {
	var k keyEncoder
	newView := func() *view.SkillsView {
		return &view.SkillsView{Listed: []skills.Skill{{Name: "a", Version: "v1", Meta: skills.Metadata{OS: []string{"linux"}}}}, Descriptions: true}
	}
	want := catalogKey(&k, newView())
	for name, change := range map[string]func(v *view.SkillsView){
		"version":      func(v *view.SkillsView) { v.Listed[0].Version = "v2" },
		"os":           func(v *view.SkillsView) { v.Listed[0].Meta.OS = nil },
		"descriptions": func(v *view.SkillsView) { v.Descriptions = false },
		"note":         func(v *view.SkillsView) { v.Note = "1 of 2" },
		"eligible":     func(v *view.SkillsView) { v.Eligible = 2 },
		"catalog":      func(v *view.SkillsView) { v.Catalog = "<available_skills/>" },
		"none":         func(v *view.SkillsView) { v.Listed = nil },
	} {
		v := newView()
		change(v)
		assert.NotEqual(t, want, catalogKey(&k, v), name)
	}
	assert.Equal(t, want, catalogKey(&k, newView()))
}
