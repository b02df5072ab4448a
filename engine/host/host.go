// Package host is what a program embedding the engine takes from its
// machine: the real skill host (the OS filesystem, PATH, the environment
// and the home folder), a state file shared between processes for the
// "once" truncation notice, the command hook runner, and a folder watch
// that tells a long-lived engine when to look again. The engine itself
// never reads the environment, runs a command or starts a goroutine; the
// render CLI is built from these pieces, so a Go program using them gets
// the CLI's exact bytes.
package host

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/vfs"
)

// Skills returns this machine's facts for skills: its OS, which binaries
// are on PATH, the environment, and the home folder, with the user's
// skills folders (~/.agents/skills, skills.managedDir,
// skills.load.extraDirs) read from the real disk. Pass it to
// engine.WithSkillHost; without it the engine sees no binaries, no
// environment and no home.
func Skills() engine.SkillHost {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	home, _ := os.UserHomeDir()
	if !filepath.IsAbs(home) {
		home = "" // a relative $HOME names no one folder: no home
	}
	return engine.SkillHost{
		OS:       runtime.GOOS,
		LookPath: func(bin string) bool { _, err := exec.LookPath(bin); return err == nil },
		Env:      env,
		Home:     filepath.ToSlash(home),
		FS:       vfs.OS(),
	}
}

// ReadOnly is s for a preview (a report, a diff, a watch): it sees which
// truncation notices were shown, and claims and records none.
func ReadOnly(s *FileStore) bootstrap.Store { return readOnly{s} }

type readOnly struct{ *FileStore }

func (s readOnly) Claim(ctx context.Context, signature string) (bool, error) {
	seen, err := s.Seen(ctx, signature)
	return !seen, err
}

func (readOnly) Remember(context.Context, string) error { return nil }
