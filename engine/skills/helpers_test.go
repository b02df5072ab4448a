package skills

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/vfs"
)

// memFiles opens fsys as a skills root's Files: a workspace rooted at the
// top of fsys, so its unrooted paths are the workspace's own.
func memFiles(fsys afero.Fs) *vfs.Workspace { return vfs.OpenWorkspace(fsys, "") }

// memFS builds a MemMapFs holding files (unrooted slash paths).
func memFS(t testing.TB, files map[string]string) afero.Fs {
	t.Helper()
	fsys := afero.NewMemMapFs()
	for name, body := range files {
		require.NoError(t, afero.WriteFile(fsys, name, []byte(body), 0o644))
	}
	return fsys
}

// skillMD is a SKILL.md with the given front-matter lines.
func skillMD(lines ...string) string {
	return "---\n" + strings.Join(lines, "\n") + "\n---\n# Body\n"
}

// shuffledFS lists directories in a random order, as real disks may.
type shuffledFS struct {
	afero.Fs
	rng *rand.Rand
}

func (s shuffledFS) Open(name string) (afero.File, error) {
	f, err := s.Fs.Open(name)
	if err != nil {
		return nil, err
	}
	return shuffledFile{File: f, rng: s.rng}, nil
}

type shuffledFile struct {
	afero.File
	rng *rand.Rand
}

func (f shuffledFile) Readdir(n int) ([]os.FileInfo, error) {
	infos, err := f.File.Readdir(n)
	f.rng.Shuffle(len(infos), func(i, j int) { infos[i], infos[j] = infos[j], infos[i] })
	return infos, err
}

// symlinkFS reports the paths in links as symlinks, in listings and in Lstat.
type symlinkFS struct {
	afero.Fs
	links map[string]bool
}

func (s symlinkFS) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	info, err := s.Fs.Stat(name)
	if err == nil && s.links[strings.TrimPrefix(name, "/")] {
		info = linkInfo{info}
	}
	return info, true, err
}

func (s symlinkFS) Open(name string) (afero.File, error) {
	f, err := s.Fs.Open(name)
	if err != nil {
		return nil, err
	}
	return symlinkFile{File: f, dir: strings.TrimPrefix(name, "/"), links: s.links}, nil
}

type symlinkFile struct {
	afero.File
	dir   string
	links map[string]bool
}

func (f symlinkFile) Readdir(n int) ([]os.FileInfo, error) {
	infos, err := f.File.Readdir(n)
	for i, info := range infos {
		if f.links[f.dir+"/"+info.Name()] {
			infos[i] = linkInfo{info}
		}
	}
	return infos, err
}

type linkInfo struct{ os.FileInfo }

func (l linkInfo) Mode() fs.FileMode { return fs.ModeSymlink | 0o777 }
func (l linkInfo) IsDir() bool       { return false }

func names(skills []Skill) []string {
	out := make([]string, 0, len(skills))
	for _, s := range skills {
		out = append(out, s.Name)
	}
	return out
}
