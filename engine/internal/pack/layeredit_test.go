package pack

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine/internal/diag"
)

// editPack loads a pack whose default harness has one layer, system:
// identity s1 s2 s3 (stable) d1 d2 (dynamic), with the [[harness]] tables
// of harnesses appended; n1 (stable) and n2 (dynamic) are listed nowhere.
// The first harness table's base key, if any, is on line 10.
func editPack(t *testing.T, harnesses string) (*Pack, diag.ErrorList) {
	t.Helper()
	defaults, err := fs.ReadFile(sysprompt.Pack, defaultsPath)
	require.NoError(t, err)
	manifest := `identity_section = "identity"
boundary = "<!-- B -->"
[[layer]]
name = "system"
sections = ["identity", "s1", "s2", "s3", "d1", "d2"]
` + harnesses
	fsys := fstest.MapFS{
		manifestPath:                {Data: []byte(manifest)},
		defaultsPath:                {Data: defaults},
		"sections/identity.md.tmpl": {Data: []byte("+++\nmodes = [\"full\", \"minimal\", \"none\"]\ntier = \"stable\"\n+++\nme")},
	}
	for id, tier := range map[string]string{"s1": "stable", "s2": "stable", "s3": "stable", "n1": "stable",
		"d1": "dynamic", "d2": "dynamic", "n2": "dynamic"} {
		fsys["sections/"+id+".md.tmpl"] = &fstest.MapFile{Data: []byte("+++\nmodes = [\"full\"]\ntier = \"" + tier + "\"\n+++\n" + id)}
	}
	return Load(fsys)
}

func layerIDs(l *Layer) []string {
	var ids []string
	for _, s := range l.Sections {
		ids = append(ids, s.ID)
	}
	return ids
}

func TestEditedLayers(t *testing.T) {
	cases := []struct {
		name, edits string
		want        string
	}{
		{"base alone", "", "identity s1 s2 s3 d1 d2"},
		{"remove and add after", "remove = [\"s2\"]\nadd = [\"n1\"]\nafter = \"s1\"\n", "identity s1 n1 s3 d1 d2"},
		{"add before", "add = [\"n2\"]\nbefore = \"d2\"\n", "identity s1 s2 s3 d1 n2 d2"},
		{"add at the end", "add = [\"n2\"]\n", "identity s1 s2 s3 d1 d2 n2"},
		{"after the last", "add = [\"n2\"]\nafter = \"d2\"\n", "identity s1 s2 s3 d1 d2 n2"},
		{"before the first", "remove = [\"identity\"]\nadd = [\"n1\", \"identity\"]\nbefore = \"s1\"\n", "n1 identity s1 s2 s3 d1 d2"},
		{"move", "remove = [\"s3\"]\nadd = [\"s3\"]\nafter = \"identity\"\n", "identity s3 s1 s2 d1 d2"},
		{"remove only", "remove = [\"d1\", \"s1\"]\n", "identity s2 s3 d2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, errs := editPack(t, "[[harness]]\nname = \"h\"\n[[harness.layer]]\nname = \"system\"\nbase = \"system\"\n"+tc.edits)
			require.Empty(t, errs)
			require.Len(t, p.Harnesses["h"].Layers, 1)
			assert.Equal(t, strings.Fields(tc.want), layerIDs(p.Harnesses["h"].Layers[0]))
			assert.Equal(t, strings.Fields("identity s1 s2 s3 d1 d2"), layerIDs(p.Harnesses[DefaultHarness].Layers[0]), "the base is not changed")
		})
	}
}

// Every edit is checked, with the position of what is wrong.
func TestEditedLayerErrors(t *testing.T) {
	const h = "[[harness]]\nname = \"h\"\n[[harness.layer]]\nname = \"system\"\n"
	cases := []struct {
		name, harnesses string
		want            string // the whole first error
	}{
		{"unknown base", h + "base = \"System\"\n",
			`10:8: base "System" is not a layer of the embedded harness (did you mean system?)`},
		{"sections and base", h + "base = \"system\"\nsections = [\"s1\"]\n",
			`11:1: layer "system" of harness "h" has both sections and base: list its sections or edit a base layer, not both`},
		{"add without base", h + "sections = [\"identity\"]\n  add = [\"n1\"]\n",
			`11:3: layer "system" of harness "h" has add but no base: remove, add, after and before edit a base layer`},
		{"after and before", h + "base = \"system\"\nadd = [\"n1\"]\nafter = \"s1\"\nbefore = \"s2\"\n",
			`13:1: layer "system" of harness "h" has both after and before: add goes in one place`},
		{"after without add", h + "base = \"system\"\nafter = \"s1\"\n",
			`11:1: layer "system" of harness "h" has after but nothing to add`},
		{"remove an id not in the base", h + "base = \"system\"\nremove = [\"s1\", \"n1\"]\n",
			`11:17: remove: section "n1" is not in base layer "system" (did you mean s1?)`},
		{"remove twice", h + "base = \"system\"\nremove = [\n  \"s1\",\n  \"s1\",\n]\n",
			`13:3: remove: section "s1" is listed twice`},
		{"after an id not in the base", h + "base = \"system\"\nadd = [\"n1\"]\nafter = \"n2\"\n",
			`12:9: after: section "n2" is not in base layer "system" (did you mean s2?)`},
		{"before a removed id", h + "base = \"system\"\nremove = [\"s2\"]\nadd = [\"n1\"]\nbefore =   \"s2\"\n",
			`13:12: before: section "s2" is removed from this layer`},
		{"add an id the base has", h + "base = \"system\"\nadd = [\"n1\", \"s3\"]\n",
			`11:14: add: section "s3" is already in base layer "system"`},
		{"add an id twice", h + "base = \"system\"\nadd = [\"n2\", \"n2\"]\n",
			`11:14: section "n2" is listed twice in harness "h" (already in layer "system")`},
		{"add an id without a file", h + "base = \"system\"\nadd = [\"ghost\"]\n",
			`11:8: section "ghost" has no file sections/ghost.md.tmpl`},
		{"add a stable section after a dynamic one", h + "base = \"system\"\nadd = [\"n1\"]\nafter = \"d1\"\n",
			`11:8: stable section "n1" is listed after dynamic section "d1" in layer "system": every stable section must come before the cache boundary`},
		{"add a dynamic section before a stable one", h + "base = \"system\"\nadd = [\"n2\"]\nafter = \"s1\"\n",
			`11:8: stable section "s2" is listed after dynamic section "n2" in layer "system": every stable section must come before the cache boundary`},
		{"a base id listed in an earlier layer", "[[harness]]\nname = \"h\"\n[[harness.layer]]\nname = \"dev\"\nsections = [\"s1\"]\n[[harness.layer]]\nname = \"system\"\nbase = \"system\"\n",
			`13:8: section "s1" is listed twice in harness "h" (already in layer "dev")`},
		{"a base id listed in a later layer", h + "base = \"system\"\n[[harness.layer]]\nname = \"dev\"\nsections = [\"s1\"]\n",
			`13:13: section "s1" is listed twice in harness "h" (already in layer "system")`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := editPack(t, tc.harnesses)
			require.NotEmpty(t, errs)
			assert.Equal(t, manifestPath+":"+tc.want, errs[0].Error())
		})
	}
}

// base and the edit keys belong to a [[harness.layer]]; in a [[layer]]
// they are unknown keys.
func TestBaseInADefaultLayerIsUnknown(t *testing.T) {
	_, errs := editPack(t, "[[layer]]\nname = \"other\"\nbase = \"system\"\n")
	require.Len(t, errs, 1)
	assert.Equal(t, manifestPath+`:8:1: unknown key "layer.base"`, errs[0].Error())
}

// An id the base lists without a file is reported once, where the base
// lists it, not again for each harness that edits the base.
func TestMissingBaseSectionIsReportedOnce(t *testing.T) {
	defaults, err := fs.ReadFile(sysprompt.Pack, defaultsPath)
	require.NoError(t, err)
	_, errs := Load(fstest.MapFS{
		manifestPath: {Data: []byte("identity_section = \"identity\"\nboundary = \"B\"\n[[layer]]\nname = \"system\"\nsections = [\"identity\", \"ghost\"]\n" +
			"[[harness]]\nname = \"h\"\n[[harness.layer]]\nname = \"system\"\nbase = \"system\"\n")},
		defaultsPath:                {Data: defaults},
		"sections/identity.md.tmpl": {Data: []byte("+++\nmodes = [\"full\", \"minimal\", \"none\"]\ntier = \"stable\"\n+++\nme")},
	})
	require.Len(t, errs, 1)
	assert.Equal(t, manifestPath+`:5:25: section "ghost" has no file sections/ghost.md.tmpl`, errs[0].Error())
}

// The built-in codex harness sends no system layer: Codex keeps its own
// model instructions, and ours go to a developer and a collaboration layer.
func TestCodexLayers(t *testing.T) {
	p, errs := Load(sysprompt.Pack)
	require.Empty(t, errs)
	codex := p.Harnesses["codex"]
	require.NotNil(t, codex)
	got := map[string][]string{}
	var names []string
	for _, l := range codex.Layers {
		names = append(names, l.Name)
		got[l.Name] = layerIDs(l)
	}
	assert.Equal(t, []string{"developer", "collaboration"}, names)
	assert.Equal(t, []string{"codex_runtime", "codex_subagents", "codex_delegation", "codex_tools_file"}, got["developer"])
	assert.Equal(t, strings.Fields(`codex_cron codex_project_context codex_conversation codex_memory_note memory_recall codex_skills
		truncation_notice dynamic_context codex_temporal codex_delivery extra_context codex_heartbeat_note`), got["collaboration"])
}
