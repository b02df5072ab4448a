package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/skills"
	"github.com/sysprompt/sysprompt/vfs"
)

// skillRoot is one place a skill can live in TestEverySkillRoot*: its
// source, where a skill folder named name goes, and the location the
// model is shown for it.
type skillRoot struct {
	src      skills.Source
	folder   func(name string) string // path of the skill folder in its filesystem
	location func(name string) string
}

// skillRoots lists one root of each source, in the original's precedence
// order: the workspace and the user's folders share one memory fs
// (home /home/ana), the bundled root has its own.
var skillRoots = []skillRoot{
	{skills.Workspace, prefix("/ws/skills/"), prefix("/ws/skills/")},
	{skills.ProjectAgents, prefix("/ws/.agents/skills/"), prefix("/ws/.agents/skills/")},
	{skills.PersonalAgents, prefix("/home/ana/.agents/skills/"), prefix("~/.agents/skills/")},
	{skills.Managed, prefix("/srv/managed/"), prefix("/srv/managed/")},
	{skills.Bundled, prefix("bundled/"), prefix("/opt/app/skills/")},
	{skills.Extra, prefix("/home/ana/team-skills/"), prefix("~/team-skills/")},
}

func prefix(p string) func(string) string { return func(name string) string { return p + name } }

const skillRootsConfig = `
[skills]
managedDir = "/srv/managed"
[skills.load]
extraDirs = ["~/team-skills", "/does/not/exist"]
`

// renderSkillRoots writes a skill named name into each root of roots and
// renders; the section lists "name@location" for every listed skill.
func renderSkillRoots(t *testing.T, roots []skillRoot, name func(skillRoot) string) *engine.Result {
	t.Helper()
	p := minimalPack(t, manifest(`"identity", "skills"`), map[string]string{
		"skills": section(stable, "{{ range .Skills.Listed }}{{ .Name }}@{{ .Location }};{{ end }}"),
	})
	addFile(p, "templates/skills.tmpl", catalogPartial)
	host, bundled := afero.NewMemMapFs(), afero.NewMemMapFs()
	require.NoError(t, host.MkdirAll("/ws", 0o755))
	for _, r := range roots {
		fsys := host
		if r.src == skills.Bundled {
			fsys = bundled
		}
		n := name(r)
		require.NoError(t, afero.WriteFile(fsys, r.folder(n)+"/SKILL.md", []byte(skillFile(n, "from "+string(r.src), "")), 0o644))
	}
	cfg, err := config.Parse("c.toml", []byte(skillRootsConfig))
	require.NoError(t, err)
	return render(t, p, engine.Request{Workspace: engine.Workspace{Path: "/ws"}},
		engine.WithFS(host), engine.WithConfig(cfg), engine.WithSkillHost(engine.SkillHost{Home: "/home/ana"}),
		engine.WithBundledSkills(bundled, "bundled", "/opt/app/skills"))
}

func TestEverySkillRootIsSearched(t *testing.T) {
	res := renderSkillRoots(t, skillRoots, func(r skillRoot) string { return "from-" + string(r.src) })
	var want []string
	for _, r := range skillRoots {
		n := "from-" + string(r.src)
		want = append(want, n+"@"+r.location(n)+"/SKILL.md")
	}
	got := strings.Split(strings.TrimSuffix(strings.TrimPrefix(res.Layers[0].Stable, "I am the agent.\n\n"), ";"), ";")
	assert.ElementsMatch(t, want, got)
	assert.Equal(t, len(skillRoots), res.Skills.Found)
	assert.Empty(t, res.Skills.Problems, "a missing extra folder holds no skills and is no problem")
}

// Each root loses a clash to the one before it, and only to it: with the
// same name in every root from i on, root i wins and the report names it
// for each of the others.
func TestEverySkillRootLosesToTheOneBefore(t *testing.T) {
	for i := range len(skillRoots) - 1 {
		winner := skillRoots[i]
		t.Run(string(winner.src)+">"+string(skillRoots[i+1].src), func(t *testing.T) {
			res := renderSkillRoots(t, skillRoots[i:], func(skillRoot) string { return "shared" })
			require.Len(t, res.Skills.Skills, 1)
			assert.Equal(t, winner.src, res.Skills.Skills[0].Source)
			assert.Equal(t, "from "+string(winner.src), res.Skills.Skills[0].Description)
			require.Len(t, res.Skills.Skipped, len(skillRoots)-i-1)
			for _, sk := range res.Skills.Skipped {
				assert.Equal(t, fmt.Sprintf("shadowed by %s skill at %s/SKILL.md", winner.src, winner.location("shared")), sk.Reason)
			}
			assert.Equal(t, skillRoots[i+1].src, res.Skills.Skipped[slicesIndex(res.Skills.Skipped, skillRoots[i+1].location("shared")+"/SKILL.md")].Source)
		})
	}
}

func slicesIndex(list []skills.Skipped, location string) int {
	for i, s := range list {
		if s.Location == location {
			return i
		}
	}
	return -1
}

// With no home the personal folder is not searched, and a "~" extra
// folder cannot be expanded: New says so at the config's line.
func TestSkillRootsWithoutAHome(t *testing.T) {
	cfg, err := config.Parse("c.toml", []byte(skillRootsConfig))
	require.NoError(t, err)
	_, err = engine.New(packWith(t, nil), engine.WithFS(afero.NewMemMapFs()), engine.WithConfig(cfg))
	require.EqualError(t, err, `c.toml:5:14: skills.load.extraDirs[0] = "~/team-skills": the host's home directory is not known, so "~" cannot be expanded`)

	res := renderSkillRoots(t, skillRoots[2:3], func(skillRoot) string { return "mine" })
	require.Len(t, res.Skills.Skills, 1, "with a home, ~/.agents/skills is read")
	p := minimalPack(t, manifest(`"identity", "skills"`), map[string]string{"skills": section(stable, "{{ range .Skills.Listed }}{{ .Name }};{{ end }}")})
	addFile(p, "templates/skills.tmpl", catalogPartial)
	host := afero.NewMemMapFs()
	require.NoError(t, afero.WriteFile(host, "/home/ana/.agents/skills/mine/SKILL.md", []byte(skillFile("mine", "d", "")), 0o644))
	res = render(t, p, engine.Request{}, engine.WithFS(host))
	assert.Zero(t, res.Skills.Found)
}

// SkillHost.FS is where the user's folders are read from, apart from the
// workspace's filesystem, so they work with no workspace at all.
func TestSkillHostFSWithoutAWorkspace(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "skills"`), map[string]string{"skills": section(stable, "{{ range .Skills.Listed }}{{ .Name }}@{{ .Location }};{{ end }}")})
	addFile(p, "templates/skills.tmpl", catalogPartial)
	host := afero.NewMemMapFs()
	require.NoError(t, afero.WriteFile(host, "/home/ana/.agents/skills/mine/SKILL.md", []byte(skillFile("mine", "d", "")), 0o644))
	res := render(t, p, engine.Request{}, engine.WithSkillHost(engine.SkillHost{Home: "/home/ana", FS: host}))
	assert.Equal(t, "I am the agent.\n\nmine@~/.agents/skills/mine/SKILL.md;", res.Layers[0].Stable)
}

// The workspace's .agents/skills is read through the workspace like
// skills/: on disk, a symlink out of the workspace is refused.
func TestProjectAgentsSkillsStayInTheWorkspace(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside", "spy")
	require.NoError(t, os.MkdirAll(outside, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".agents"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "SKILL.md"), []byte(skillFile("spy", "OUTSIDE-SKILL", "")), 0o644))
	require.NoError(t, os.Symlink(filepath.Dir(outside), filepath.Join(ws, ".agents", "skills")))

	e, err := engine.New(os.DirFS(".."), engine.WithFS(vfs.OS()))
	require.NoError(t, err)
	res, err := e.Render(context.Background(), engine.Request{Workspace: engine.Workspace{Path: filepath.ToSlash(ws)}})
	require.NoError(t, err)
	assert.NotContains(t, res.Layers[0].Text, "OUTSIDE-SKILL")
	assert.Zero(t, res.Skills.Found)
	require.Len(t, res.Skills.Problems, 1)
	assert.Equal(t, filepath.ToSlash(filepath.Join(ws, ".agents", "skills")), res.Skills.Problems[0].Path)
	assert.Contains(t, res.Skills.Problems[0].Message, "symlink points outside the workspace")
}

// A home of "/" is a home: "~" expands against it and its .agents/skills
// is read. A relative one would be read from wherever the process runs,
// so New refuses it.
func TestSkillRootsWithAnOddHome(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "skills"`), map[string]string{"skills": section(stable, "{{ range .Skills.Listed }}{{ .Name }}@{{ .Location }};{{ end }}")})
	addFile(p, "templates/skills.tmpl", catalogPartial)
	host := afero.NewMemMapFs()
	require.NoError(t, afero.WriteFile(host, "/.agents/skills/mine/SKILL.md", []byte(skillFile("mine", "d", "")), 0o644))
	require.NoError(t, afero.WriteFile(host, "/team/ours/SKILL.md", []byte(skillFile("ours", "d", "")), 0o644))
	cfg, err := config.Parse("c.toml", []byte("[skills.load]\nextraDirs = [\"~/team\"]\n"))
	require.NoError(t, err)
	res := render(t, p, engine.Request{}, engine.WithConfig(cfg), engine.WithSkillHost(engine.SkillHost{Home: "/", FS: host}))
	assert.Equal(t, "I am the agent.\n\nmine@/.agents/skills/mine/SKILL.md;ours@/team/ours/SKILL.md;", res.Layers[0].Stable)

	_, err = engine.New(p, engine.WithSkillHost(engine.SkillHost{Home: "home/ana", FS: host}))
	require.EqualError(t, err, `skill host: home "home/ana" is not an absolute path`)
}

// A folder the config names again, under another source or spelled with a
// trailing slash, is read once, for the source that wins: its skill is
// found once and not reported as shadowed by itself.
func TestSkillFolderNamedTwiceIsReadOnce(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "skills"`), map[string]string{"skills": section(stable, "{{ range .Skills.Listed }}{{ .Name }}@{{ .Location }};{{ end }}")})
	addFile(p, "templates/skills.tmpl", catalogPartial)
	host := afero.NewMemMapFs()
	require.NoError(t, afero.WriteFile(host, "/home/ana/.agents/skills/mine/SKILL.md", []byte(skillFile("mine", "d", "")), 0o644))
	cfg, err := config.Parse("c.toml", []byte("[skills]\nmanagedDir = \"~/.agents/skills\"\n[skills.load]\nextraDirs = [\"/home/ana/.agents/skills/\"]\n"))
	require.NoError(t, err)
	res := render(t, p, engine.Request{}, engine.WithConfig(cfg), engine.WithSkillHost(engine.SkillHost{Home: "/home/ana", FS: host}))
	assert.Equal(t, "I am the agent.\n\nmine@~/.agents/skills/mine/SKILL.md;", res.Layers[0].Stable)
	assert.Equal(t, 1, res.Skills.Found)
	assert.Empty(t, res.Skills.Skipped)
	assert.Equal(t, skills.PersonalAgents, res.Skills.Skills[0].Source)
}
