package bootstrap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/afero"

	"github.com/sysprompt/sysprompt/vfs"
)

// WarningMode says when the truncation notice is shown
// (bootstrapPromptTruncationWarning).
type WarningMode string

// The truncation warning modes.
const (
	WarningOff    WarningMode = "off"    // never shown, nothing recorded
	WarningOnce   WarningMode = "once"   // shown the first time a signature is seen
	WarningAlways WarningMode = "always" // shown whenever something was cut
)

// WarningModes are the accepted values, for validating a config.
var WarningModes = []string{string(WarningOff), string(WarningOnce), string(WarningAlways)}

// ParseWarningMode parses a config value; anything but off, once or always
// is an error naming the allowed values.
func ParseWarningMode(s string) (WarningMode, error) {
	if !slices.Contains(WarningModes, s) {
		return "", fmt.Errorf("bootstrap: invalid truncation warning mode %q (allowed: %s)", s, strings.Join(WarningModes, ", "))
	}
	return WarningMode(s), nil
}

// Store remembers which truncation signatures have been shown. It must be
// safe for concurrent use.
type Store interface {
	Seen(ctx context.Context, signature string) (bool, error)
	Remember(ctx context.Context, signature string) error
}

// ShouldWarn reports whether the truncation notice should show for
// signature under mode, without recording anything: off never shows;
// always shows whenever something was cut; once shows only a signature the
// store has not seen. Record it with Record once the notice has actually
// reached a prompt, so a failed or preview render does not use it up.
func ShouldWarn(ctx context.Context, mode WarningMode, signature string, store Store) (bool, error) {
	switch mode {
	case WarningOff:
		return false, nil
	case WarningAlways, WarningOnce:
	default:
		_, err := ParseWarningMode(string(mode))
		return false, err
	}
	if signature == "" {
		return false, nil
	}
	if mode == WarningAlways {
		return true, nil
	}
	if store == nil {
		return false, errors.New("bootstrap: truncation warning mode once needs a state store")
	}
	seen, err := store.Seen(ctx, signature)
	if err != nil {
		return false, err
	}
	return !seen, nil
}

// Record remembers that the notice for signature was shown. It records
// under always too, so switching to once later does not repeat a notice
// the model has already seen. off records nothing.
func Record(ctx context.Context, mode WarningMode, signature string, store Store) error {
	if mode == WarningOff || signature == "" || store == nil {
		return nil
	}
	return store.Remember(ctx, signature)
}

// maxSeen bounds how many signatures a store keeps; the oldest go first.
const maxSeen = 32

// remember appends sig as the newest entry of seen, moving it if present,
// and evicts the oldest beyond maxSeen.
func remember(seen []string, sig string) []string {
	seen = slices.DeleteFunc(seen, func(s string) bool { return s == sig })
	seen = append(seen, sig)
	if len(seen) > maxSeen {
		seen = slices.Delete(seen, 0, len(seen)-maxSeen)
	}
	return seen
}

// MemoryStore is a Store that lives as long as the process.
type MemoryStore struct {
	mu   sync.Mutex
	seen []string
}

// NewMemoryStore returns an empty in-memory Store.
func NewMemoryStore() *MemoryStore { return &MemoryStore{} }

// Seen reports whether signature was remembered.
func (s *MemoryStore) Seen(_ context.Context, signature string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.seen, signature), nil
}

// Remember records signature.
func (s *MemoryStore) Remember(_ context.Context, signature string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = remember(s.seen, signature)
	return nil
}

// FileStore is a Store persisted as a JSON file (the CLI's -state FILE):
//
//	{"seen": ["<signature>", …]}
//
// oldest first, at most 32 entries. Every Remember rewrites the file
// atomically (temporary file, then rename). A missing file is an empty store;
// a file that does not parse is an error naming it, never silently reset.
// Concurrent use within one process is safe; two processes sharing a file
// may lose each other's updates, which costs at most a repeated notice.
type FileStore struct {
	fsys afero.Fs
	path string
	mu   sync.Mutex
}

// NewFileStore returns a Store kept in the file at path on fsys.
func NewFileStore(fsys afero.Fs, path string) *FileStore {
	return &FileStore{fsys: fsys, path: path}
}

type stateFile struct {
	Seen []string `json:"seen"`
}

// Seen reports whether signature is in the state file.
func (s *FileStore) Seen(_ context.Context, signature string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen, err := s.load()
	if err != nil {
		return false, err
	}
	return slices.Contains(seen, signature), nil
}

// Remember adds signature to the state file.
func (s *FileStore) Remember(_ context.Context, signature string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen, err := s.load()
	if err != nil {
		return err
	}
	return s.save(remember(seen, signature))
}

func (s *FileStore) load() ([]string, error) {
	data, err := afero.ReadFile(s.fsys, s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bootstrap: read state file %s: %w", s.path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var st stateFile
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("bootstrap: state file %s is corrupt: %w", s.path, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("bootstrap: state file %s is corrupt: data after the JSON object", s.path)
	}
	return st.Seen, nil
}

func (s *FileStore) save(seen []string) error {
	data, err := json.MarshalIndent(stateFile{Seen: seen}, "", "  ")
	if err != nil {
		return fmt.Errorf("bootstrap: encode state file %s: %w", s.path, err)
	}
	data = append(data, '\n')
	// A new state file is private (0600); one replaced keeps its mode.
	if err := vfs.WriteFileAtomic(s.fsys, s.path, data, 0o600); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // it names s.path, as the message below does
		}
		return fmt.Errorf("bootstrap: write state file %s: %w", s.path, err)
	}
	return nil
}
