package skills

import (
	"slices"
	"strconv"

	"github.com/sysprompt/sysprompt/vfs"
)

// Source says which kind of root a skill came from.
type Source string

// The sources, in precedence order: on a name clash the earlier one wins.
// It is the original product's order: the workspace's own folders, then the
// user's, then what was installed, then the extra folders the config adds.
const (
	Workspace      Source = "workspace"       // <workspace>/skills
	ProjectAgents  Source = "agents-project"  // <workspace>/.agents/skills
	PersonalAgents Source = "agents-personal" // ~/.agents/skills
	Managed        Source = "managed"         // skills.managedDir
	Bundled        Source = "bundled"         // the embedding program's roots (and -bundled-skills)
	Extra          Source = "extra"           // skills.load.extraDirs
)

// sources lists every source in precedence order.
var sources = []Source{Workspace, ProjectAgents, PersonalAgents, Managed, Bundled, Extra}

// Sources returns every source in precedence order, highest first.
func Sources() []Source { return slices.Clone(sources) }

// rank orders sources by precedence; ok is false for an unknown source.
func (s Source) rank() (rank int, ok bool) {
	i := slices.Index(sources, s)
	return i, i >= 0
}

// Files is what discovery reads a root through; a *vfs.Workspace is one,
// so no read leaves the directory it was opened on.
type Files interface {
	Stat(name string) (vfs.FileID, error)
	Lstat(name string) (vfs.FileID, error)
	// ReadDirN lists at most n entries of a directory, sorted by name;
	// more reports that it holds others, which are left unread.
	ReadDirN(name string, n int) (entries []vfs.Entry, more bool, err error)
	ReadFile(name string, maxBytes int64) ([]byte, vfs.FileID, error)
}

// Root is one directory searched for skills.
type Root struct {
	Source Source
	Files  Files
	// Dir is the directory inside Files holding the skill folders, unrooted
	// and slash-separated ("skills", or "." for the top of Files).
	Dir string
	// Display is how Dir is shown to the model, usually its absolute path
	// ("/home/ana/agent/skills"). Empty means Dir.
	Display string
	// Plugin, when set, marks every skill of this root as belonging to that
	// plugin, so it is eligible only while the plugin is enabled.
	Plugin string
}

// Options tune discovery.
type Options struct {
	// Home is the user's home directory as an absolute path. Locations under
	// it start with "~" instead. Empty means no shortening.
	Home string
}

// Skill is one discovered SKILL.md. Treat its slices as read-only: a
// catalog shares them with the discovery it was built from.
type Skill struct {
	Name        string
	Description string
	// Key is the skill's key under skills.entries: metadata skillKey, else Name.
	Key    string
	Source Source
	Plugin string
	// Path is the SKILL.md path inside its root's Files.
	Path string
	// Location is the SKILL.md path as shown to the model, home shortened to "~".
	Location string
	// Version is "sha256:" followed by the hex digest of the SKILL.md bytes.
	Version string
	Meta    Metadata
}

// Metadata holds the gating fields of a skill's front matter.
type Metadata struct {
	OS         []string
	Always     bool
	SkillKey   string
	PrimaryEnv string
	Requires   Requirements
}

// Requirements are the metadata.requires gates.
type Requirements struct {
	Bins    []string
	AnyBins []string
	Env     []string
	Config  []string
}

// Problem is a SKILL.md or folder that could not be loaded, or, as a
// warning, a flaw in a skill that was. Problems never fail a build.
type Problem struct {
	// Path is the display path of the file or folder, like Skill.Location.
	Path string `json:"path"`
	// Line is the 1-based line in the file, or 0 when there is none.
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// String formats the problem as "path:line: message".
func (p Problem) String() string {
	if p.Line > 0 {
		return p.Path + ":" + strconv.Itoa(p.Line) + ": " + p.Message
	}
	return p.Path + ": " + p.Message
}

// Cut is a discovery bound that stopped part of a search, so that a huge
// skills folder costs bounded time and memory.
type Cut struct {
	// Root is the display path of the root whose search was cut.
	Root string
	// Reason names the bound.
	Reason string
	// Skipped counts the skill folders found there but not read. A cut
	// by the entries bound leaves the rest of the root unlisted, so what
	// that holds is not counted.
	Skipped int
}

// Skipped is a skill left out of the catalog and why.
type Skipped struct {
	Name     string `json:"name"`
	Location string `json:"location"`
	Source   Source `json:"source"`
	Reason   string `json:"reason"`
}
