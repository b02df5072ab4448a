package skills_test

import (
	"context"
	"fmt"

	"github.com/spf13/afero"

	"github.com/sysprompt/sysprompt/engine/skills"
	"github.com/sysprompt/sysprompt/vfs"
)

func Example() {
	fsys := afero.NewMemMapFs()
	_ = afero.WriteFile(fsys, "skills/tools/git/SKILL.md", []byte("---\nname: git\ndescription: Work with git repositories.\nmetadata:\n  requires:\n    bins: [git]\n---\n# Git\n"), 0o644)
	_ = afero.WriteFile(fsys, "skills/mac/SKILL.md", []byte("---\nname: mac\nmetadata:\n  os: [darwin]\n---\n"), 0o644)

	// A workspace keeps every read inside the directory it was opened on;
	// on the real disk it would be vfs.OpenWorkspace(vfs.OS(), "/home/ana/agent").
	ws := vfs.OpenWorkspace(fsys, "")
	defer ws.Close()
	roots := []skills.Root{{Source: skills.Workspace, Files: ws, Dir: "skills", Display: "/home/ana/agent/skills"}}
	found, err := skills.Discover(context.Background(), roots, skills.Options{Home: "/home/ana"})
	if err != nil {
		fmt.Println(err)
		return
	}
	policy := skills.Policy{OS: "linux", LookPath: func(bin string) bool { return bin == "git" }}
	// The real measure renders the catalog partial; here, a rough length.
	measure := func(list []skills.Skill, descriptions bool, note string) (int, error) {
		n := len(note)
		for _, s := range list {
			n += len(s.Name) + len(s.Location) + len(s.Version)
			if descriptions {
				n += len(s.Description)
			}
		}
		return n, nil
	}
	// The limits are required; the engine takes them from the pack's
	// templates/defaults.toml or the agent config.
	cat, err := skills.Build(found, policy, skills.Limits{MaxChars: 18000, MaxSkills: 150}, measure)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range cat.Skills {
		fmt.Println(s.Name, s.Location, s.Version[:15])
	}
	for _, s := range cat.Skipped {
		fmt.Println("skipped", s.Name+":", s.Reason)
	}
	// Output:
	// git ~/agent/skills/tools/git/SKILL.md sha256:df680851
	// skipped mac: os: needs darwin
}
