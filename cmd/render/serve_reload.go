package main

import (
	"io"
	"path/filepath"
	"sync"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/host"
)

// server holds serve's one engine. The engine re-reads workspace files
// itself, by file identity, on every render; what it compiled once, the
// -pack's folders and the -config file, is checked the same way on every
// request, and the engine is built again when either changed.
type server struct {
	c       *common
	sources *host.Sources // nil without -pack and -config
	e       *engine.Engine
	err     error // why the changed sources do not build, until they do
	stderr  io.Writer

	mu      sync.Mutex // held while a reply is written, and for stopped
	stopped bool       // by a signal: answer no more lines
}

// newServer builds the engine the flags describe, after stamping its
// sources, so that an edit made during the build shows as a change.
func newServer(c *common) (*server, error) {
	if err := checkPackDir(c.pack); err != nil {
		return nil, err
	}
	var sources *host.Sources
	if c.pack != "" || c.config != "" {
		sources = c.sources()
	}
	e, err := c.engine()
	if err != nil {
		return nil, inPack(err, c.pack)
	}
	return &server{c: c, sources: sources, e: e, stderr: c.stderr}, nil
}

// sources stamps what c.engine is built from: the -config file, and the
// folders of the -pack that the pack is read from. The rest of that
// folder (a .git, a project around it) is none of the pack's, and could
// fill the bound on what a Sources looks at before them.
func (c *common) sources() *host.Sources {
	paths := []string{c.config}
	if c.pack != "" {
		for _, sub := range packReadFolders {
			paths = append(paths, filepath.Join(c.pack, sub))
		}
	}
	return host.NewSources(paths...)
}

// engine returns the engine for a request, rebuilt when a source changed
// since the last one, or the error the sources give while they do not
// build.
func (s *server) engine() (*engine.Engine, error) {
	if s.sources != nil && s.sources.Changed() {
		s.rebuild()
	}
	return s.e, s.err
}

// rebuild replaces the engine; a pack or config that fails leaves none,
// since rendering with the old one would hide the edit. Its errors go to
// stderr in full, once, and to each request as one line.
func (s *server) rebuild() {
	prev := s.err
	s.e = nil
	// A pack emptied while serve runs stands for the built-in pack again;
	// only a folder that is gone is an error. cmdServe checked the start.
	s.err = checkPackFolder(s.c.pack)
	if s.err == nil {
		s.e, s.err = s.c.engine()
		s.err = inPack(s.err, s.c.pack)
	}
	// A source changed just now is built again on the next request too
	// (see host.Sources): the same error is not printed again.
	if s.err != nil && (prev == nil || prev.Error() != s.err.Error()) {
		printError(s.err, s.stderr) // every error of a list, one a line
	}
}
