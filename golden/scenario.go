// Package golden renders scenario archives into Markdown snapshots of the
// prompt a model would see, so that every change to the pack or the engine
// is reviewed as a diff of those snapshots.
//
// A scenario is golden/scenarios/<name>.txtar: a one-paragraph description
// as the archive comment, request.toml, an optional next-turn.toml (a later
// turn of the same session, which must keep every stable prefix), an
// optional config.toml and workspace files under workspace/, placed under the request's workspace
// path (DefaultWorkspace when it names none). Its snapshot is
// golden/snapshots/<name>.md. Render is hermetic: workspace files live in a
// fresh in-memory filesystem and nothing reads the clock, the environment
// or the real disk. Generate rewrites the snapshots, Check reports the ones
// that are missing, differ or are stale.
package golden

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/spf13/afero"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/config"
)

// DefaultWorkspace is where workspace files are placed when the scenario's
// request names no workspace path.
const DefaultWorkspace = "/workspace"

// Archive member names.
const (
	requestFile     = "request.toml"
	nextTurnFile    = "next-turn.toml"
	configFile      = "config.toml"
	workspacePrefix = "workspace/"
)

// Scenario is one parsed scenario archive.
type Scenario struct {
	Name        string // the archive's base name without .txtar
	Description string // the archive comment, trimmed

	request   engine.Request
	nextTurn  *engine.Request   // nil when the archive has no next-turn.toml
	config    *config.Config    // nil when the archive has no config.toml
	workspace map[string][]byte // workspace-relative slash path → content
}

// Load reads and parses the scenario archive at path; the scenario's name is
// the file's base name without the .txtar extension.
func Load(path string) (*Scenario, error) {
	data, err := readGoldenFile(afero.NewOsFs(), path)
	if err != nil {
		return nil, fmt.Errorf("golden: %w", err)
	}
	return parse(strings.TrimSuffix(filepath.Base(path), ".txtar"), path, data)
}

// Parse parses a scenario archive. name becomes the snapshot's name; errors
// name the archive as <name>.txtar.
func Parse(name string, data []byte) (*Scenario, error) {
	return parse(name, name+".txtar", data)
}

// parse is Parse with the label errors use for the archive (its path when
// it came from disk). Errors about a member name it as label/member.
func parse(name, label string, data []byte) (*Scenario, error) {
	if err := checkName(name); err != nil {
		return nil, fmt.Errorf("golden: %s: %w", label, err)
	}
	// Archives edited on Windows must render the same bytes.
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	ar := txtar.Parse(data)
	sc := &Scenario{
		Name:        name,
		Description: strings.TrimSpace(string(ar.Comment)),
		workspace:   map[string][]byte{},
	}
	if sc.Description == "" {
		return nil, fmt.Errorf("golden: %s: the archive comment (the scenario's description) is empty", label)
	}
	var request, nextTurn []byte
	seen := map[string]bool{}
	for _, f := range ar.Files {
		member := label + "/" + f.Name
		if seen[f.Name] {
			return nil, fmt.Errorf("golden: %s: the archive holds this file twice", member)
		}
		seen[f.Name] = true
		switch {
		case f.Name == requestFile:
			request = f.Data
		case f.Name == nextTurnFile:
			nextTurn = f.Data
		case f.Name == configFile:
			cfg, err := config.Parse(member, f.Data)
			if err != nil {
				return nil, fmt.Errorf("golden: %w", err)
			}
			sc.config = cfg
		case strings.HasPrefix(f.Name, workspacePrefix):
			rel := strings.TrimPrefix(f.Name, workspacePrefix)
			if !fs.ValidPath(rel) || rel == "." {
				return nil, fmt.Errorf("golden: %s: not a valid workspace-relative path (want workspace/<slash/separated/path>)", member)
			}
			sc.workspace[rel] = f.Data
		default:
			return nil, fmt.Errorf("golden: %s: unknown file (want %s, %s, %s or %s<path>)", member, requestFile, nextTurnFile, configFile, workspacePrefix)
		}
	}
	if request == nil {
		return nil, fmt.Errorf("golden: %s: no %s in the archive", label, requestFile)
	}
	req, err := sc.parseRequest(label+"/"+requestFile, request)
	if err != nil {
		return nil, err
	}
	sc.request = req
	if nextTurn != nil {
		next, err := sc.parseRequest(label+"/"+nextTurnFile, nextTurn)
		if err != nil {
			return nil, err
		}
		sc.nextTurn = &next
	}
	return sc, nil
}

// parseRequest parses a request member, placing it in DefaultWorkspace
// when it names no workspace and the archive has workspace files.
func (sc *Scenario) parseRequest(member string, data []byte) (engine.Request, error) {
	req, err := engine.ParseRequest(member, data)
	if err != nil {
		return engine.Request{}, fmt.Errorf("golden: %w", err)
	}
	if req.Workspace.Path == "" && len(sc.workspace) > 0 {
		req.Workspace.Path = DefaultWorkspace
	}
	return req, nil
}

// checkName refuses names that cannot be a snapshot file name.
func checkName(name string) error {
	switch {
	case name == "", name == ".", name == "..":
		return fmt.Errorf("scenario name %q is not a file name", name)
	case strings.ContainsAny(name, `/\`):
		return fmt.Errorf("scenario name %q holds a path separator", name)
	}
	return nil
}

// workspaceFiles returns the workspace-relative paths, sorted.
func (sc *Scenario) workspaceFiles() []string {
	names := make([]string, 0, len(sc.workspace))
	for n := range sc.workspace {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// workspacePath is where a workspace-relative file lives in the in-memory
// filesystem.
func (sc *Scenario) workspacePath(rel string) string {
	return path.Join(sc.request.Workspace.Path, rel)
}
