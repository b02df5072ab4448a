package engine_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
)

// Every way a pack can be broken is a load error at file:line:col.
func TestBrokenPacks(t *testing.T) {
	ok := section(stable, "ok")
	cases := []struct {
		name     string
		manifest string
		sections map[string]string
		partials map[string]string
		want     string // the whole first error line
	}{
		{
			name:     "unknown front matter key",
			manifest: manifest(`"identity", "a"`),
			sections: map[string]string{"a": "+++\nmodes = [\"full\"]\ntier = \"stable\"\ncolour = \"red\"\n+++\nbody"},
			want:     `sections/a.md.tmpl:4:1: section a: unknown key "colour"`,
		},
		{
			name:     "missing modes",
			manifest: manifest(`"identity", "a"`),
			sections: map[string]string{"a": "+++\ntier = \"stable\"\n+++\nbody"},
			want:     "sections/a.md.tmpl:1:1: section a: front matter needs modes (a subset of full, minimal, none)",
		},
		{
			name:     "missing tier",
			manifest: manifest(`"identity", "a"`),
			sections: map[string]string{"a": "+++\nmodes = [\"full\"]\n+++\nbody"},
			want:     "sections/a.md.tmpl:1:1: section a: front matter needs tier (stable or dynamic)",
		},
		{
			name:     "unknown mode",
			manifest: manifest(`"identity", "a"`),
			sections: map[string]string{"a": "+++\ntier = \"stable\"\nmodes = [\"full\", \"tiny\"]\n+++\nbody"},
			want:     `sections/a.md.tmpl:3:1: section a: unknown mode "tiny" (want full, minimal or none)`,
		},
		{
			name:     "unknown tier",
			manifest: manifest(`"identity", "a"`),
			sections: map[string]string{"a": "+++\nmodes = [\"full\"]\ntier = \"cached\"\n+++\nbody"},
			want:     `sections/a.md.tmpl:3:1: section a: unknown tier "cached" (want stable or dynamic)`,
		},
		{
			name:     "front matter not closed",
			manifest: manifest(`"identity", "a"`),
			sections: map[string]string{"a": "+++\nmodes = [\"full\"]\n"},
			want:     `sections/a.md.tmpl:1:1: section a: front matter is not closed by a "+++" line`,
		},
		{
			name:     "front matter syntax",
			manifest: manifest(`"identity", "a"`),
			sections: map[string]string{"a": "+++\nmodes = [\"full\"\ntier = \"stable\"\n+++\nbody"},
			want:     "sections/a.md.tmpl:3:1: section a: expected a comma (',') or array terminator (']'), but got 't' (key \"modes\")",
		},
		{
			name:     "unknown manifest key",
			manifest: "identity_section = \"identity\"\nboundary = \"<!-- B -->\"\nboundry = \"x\"\n[[layer]]\nname = \"system\"\nsections = [\"identity\"]\n",
			want:     `sections/manifest.toml:3:1: unknown key "boundry" (did you mean boundary?)`,
		},
		{
			name:     "listed section without a file",
			manifest: "identity_section = \"identity\"\nboundary = \"<!-- B -->\"\n[[layer]]\nname = \"system\"\nsections = [\"identity\",\n  \"ghost\"]\n",
			want:     `sections/manifest.toml:6:3: section "ghost" has no file sections/ghost.md.tmpl`,
		},
		{
			name:     "duplicate id",
			manifest: "identity_section = \"identity\"\nboundary = \"<!-- B -->\"\n[[layer]]\nname = \"system\"\nsections = [\"identity\", \"a\", \"a\"]\n",
			sections: map[string]string{"a": ok},
			want:     `sections/manifest.toml:5:30: section "a" is listed twice in harness "embedded" (already in layer "system")`,
		},
		{
			name:     "stable after dynamic",
			manifest: "identity_section = \"identity\"\nboundary = \"<!-- B -->\"\n[[layer]]\nname = \"system\"\nsections = [\n  \"identity\",\n  \"late\",\n  \"early\",\n]\n",
			sections: map[string]string{"late": section(dynamic, "x"), "early": section(stable, "y")},
			want:     `sections/manifest.toml:8:3: stable section "early" is listed after dynamic section "late" in layer "system": every stable section must come before the cache boundary`,
		},
		{
			name:     "partial defined twice",
			manifest: manifest(`"identity"`),
			partials: map[string]string{"templates/zz.tmpl": "\n\n{{ define \"file_block\" }}again{{ end }}"},
			want:     `templates/zz.tmpl:3:1: template "file_block" is defined twice: here and at templates/bootstrap.tmpl:7:1`,
		},
		{
			name:     "volatile field in a stable section",
			manifest: manifest(`"identity", "a"`),
			sections: map[string]string{"a": section(stable, "line one\n{{ if .Channel.ID }}chat{{ end }}")},
			want:     "sections/a.md.tmpl:6:7: section a: stable section uses volatile field Channel: the cached prefix must not depend on it (move the use to a dynamic section)",
		},
		{
			name:     "volatile field through $ in a range",
			manifest: manifest(`"identity", "a"`),
			sections: map[string]string{"a": section(stable, "{{ range .Tools }}{{ $.Date }}{{ end }}")},
			want:     "sections/a.md.tmpl:5:22: section a: stable section uses volatile field Date: the cached prefix must not depend on it (move the use to a dynamic section)",
		},
		{
			name:     "volatile field in a partial called with the view",
			manifest: manifest(`"identity", "a"`),
			sections: map[string]string{"a": section(stable, `{{ template "owners" . }}`)},
			partials: map[string]string{"templates/owners.tmpl": "{{ define \"owners\" }}\n{{ .Owners }}{{ end }}"},
			want:     "templates/owners.tmpl:2:4: section a: stable section uses volatile field Owners: the cached prefix must not depend on it (move the use to a dynamic section)",
		},
		{
			name:     "unknown field",
			manifest: manifest(`"identity", "a"`),
			sections: map[string]string{"a": section(dynamic, "{{ .Chanel.ID }}")},
			want:     "sections/a.md.tmpl:5:4: section a: the section data has no field Chanel (did you mean Channel?)",
		},
		{
			name:     "volatile field through a variable holding the view",
			manifest: manifest(`"identity", "a"`),
			sections: map[string]string{"a": section(stable, "{{ $v := . }}{{ if .Workspace.BrandNew }}{{ $v.Date }}{{ end }}")},
			want:     "sections/a.md.tmpl:5:45: section a: stable section uses volatile field Date: the cached prefix must not depend on it (move the use to a dynamic section)",
		},
		{
			name:     "volatile field inside with $",
			manifest: manifest(`"identity", "a"`),
			sections: map[string]string{"a": section(stable, "{{ range .Tools }}{{ with $ }}{{ .Owners }}{{ end }}{{ end }}")},
			want:     "sections/a.md.tmpl:5:34: section a: stable section uses volatile field Owners: the cached prefix must not depend on it (move the use to a dynamic section)",
		},
		{
			name:     "undefined function",
			manifest: manifest(`"identity", "a"`),
			sections: map[string]string{"a": section(stable, "\n{{ env \"HOME\" }}")},
			want:     `sections/a.md.tmpl:6:4: section a: function "env" not defined`,
		},
		{
			name:     "undefined partial",
			manifest: manifest(`"identity", "a"`),
			sections: map[string]string{"a": section(stable, `{{ template "nope" . }}`)},
			want:     `sections/a.md.tmpl:5:13: section a: template "nope" is not defined in the pack`,
		},
		{
			name:     "layer in front matter",
			manifest: manifest(`"identity", "a"`),
			sections: map[string]string{"a": section(stable+"\nlayer = \"developer\"", "x")},
			want:     `sections/a.md.tmpl:4:1: section a: unknown key "layer" (a section's layer is set by the manifest's layer lists)`,
		},
		{
			name:     "bootstrap table in the manifest",
			manifest: manifest(`"identity"`) + "\n[bootstrap]\nfiles = [\"AGENTS.md\"]\nmax_chars = 20000\n",
			want:     `sections/manifest.toml:8:2: unknown key "bootstrap" (it moved to templates/defaults.toml)`,
		},
		{
			name:     "skills table in the manifest",
			manifest: manifest(`"identity"`) + "\n[skills]\nmax_prompt_chars = 18000\nmax_in_prompt = 150\n",
			want:     `sections/manifest.toml:8:2: unknown key "skills" (it moved to templates/defaults.toml)`,
		},
		{
			name:     "moved manifest key",
			manifest: "product = \"X\"\nbootstrap.max_chars = 20000\n" + manifest(`"identity"`),
			want:     `sections/manifest.toml:2:1: unknown key "bootstrap.max_chars" (it moved to templates/defaults.toml)`,
		},
		{
			name:     "unknown key in a moved table, written on its own",
			manifest: manifest(`"identity"`) + "\n[bootstrap.extra]\nx = 1\n",
			want:     `sections/manifest.toml:8:2: unknown key "bootstrap.extra"`,
		},
		{
			name:     "identity without mode none",
			manifest: manifest(`"identity"`),
			sections: map[string]string{"identity": section(stable, "me")},
			want:     "sections/identity.md.tmpl:2:1: section identity: the identity section must declare mode none: it is what mode none renders",
		},
		{
			name:     "harness without layers",
			manifest: manifest(`"identity"`) + "\n[[harness]]\nname = \"empty\"\n",
			want:     `sections/manifest.toml:8:1: harness "empty" declares no [[harness.layer]], so it would render nothing`,
		},
		{
			name:     "two sections claim one override",
			manifest: manifest(`"identity", "a", "b"`),
			sections: map[string]string{"a": section(stable+"\noverride = \"tool_call_style\"", "x"), "b": section(stable+"\noverride = \"tool_call_style\"", "y")},
			want:     `sections/manifest.toml:6:30: sections "a" and "b" both declare override "tool_call_style" in harness "embedded": a provider's text would appear twice`,
		},
		{
			name:     "headers with spaces and comments keep positions",
			manifest: "identity_section = \"identity\"\nboundary = \"<!-- B -->\"\n[[ layer ]] # the only one\nname = \"system\"\nsections = [\"identity\", \"ghost\"]\n",
			want:     `sections/manifest.toml:5:25: section "ghost" has no file sections/ghost.md.tmpl`,
		},
		{
			name:     "unknown override",
			manifest: manifest(`"identity", "a"`),
			sections: map[string]string{"a": section(stable+"\noverride = \"tone\"", "x")},
			want:     `sections/a.md.tmpl:4:1: section a: unknown override "tone" (want one of execution_bias, interaction_style, tool_call_style)`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := minimalPack(t, tc.manifest, tc.sections)
			for name, text := range tc.partials {
				addFile(p, name, text)
			}
			res := engine.Lint(p)
			require.NotEmpty(t, res.Errors, "the pack should not load")
			assert.Equal(t, tc.want, res.Errors[0].Error())
			var e *engine.Error
			require.True(t, errors.As(res.Errors, &e))
		})
	}
}

func TestModeNoneOutsideIdentityIsAWarning(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "extra"`), map[string]string{"extra": section("modes = [\"full\", \"none\"]\ntier = \"stable\"", "x")})
	res := engine.Lint(p)
	require.Empty(t, res.Errors)
	require.Len(t, res.Warnings, 1)
	assert.Equal(t, `sections/extra.md.tmpl:2:1: section extra: declares mode none, but mode none renders only the identity section "identity"`, res.Warnings[0].Error())
}

func TestUnlistedSectionIsAWarning(t *testing.T) {
	p := minimalPack(t, manifest(`"identity"`), map[string]string{"spare": section(stable, "x")})
	res := engine.Lint(p)
	require.Empty(t, res.Errors)
	require.Len(t, res.Warnings, 1)
	assert.Contains(t, res.Warnings[0].Error(), `section "spare" is listed in no layer`)
}
