package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/sysprompt/sysprompt/internal/echo"
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
		return "", fmt.Errorf("bootstrap: invalid truncation warning mode %s (allowed: %s)", echo.Quote(s), strings.Join(WarningModes, ", "))
	}
	return WarningMode(s), nil
}

// Store remembers which truncation signatures have had their notice
// shown. It must be safe for concurrent use.
//
// An error from either method fails the render, so a store that can carry
// on without its backing state, as FileStore does, answers as best it can
// and reports the problem some other way.
type Store interface {
	// Claim reports whether the notice for signature should show: the
	// signature has not been remembered, and no other store sharing this
	// one's state holds a claim on it. Of overlapping Claims on different
	// stores that share state, at most one wins; a store is one party, so
	// its own Claims need not exclude each other. A claim that is never
	// remembered (the render failed, or had no notice section) must lapse,
	// so that the notice can still show.
	Claim(ctx context.Context, signature string) (bool, error)
	// Remember records that the notice for signature reached a prompt.
	Remember(ctx context.Context, signature string) error
}

// ShouldWarn reports whether the truncation notice should show for
// signature under mode: off never shows; always shows whenever something
// was cut; once shows only a signature the store lets this render claim,
// so that renders sharing a store's state do not all show it. Record it
// with Record once the notice has actually reached a prompt; a claim that
// a failed render, or one without the notice, leaves unrecorded lapses.
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
	return store.Claim(ctx, signature)
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

// MaxSeen bounds how many signatures a store keeps; the oldest go first.
const MaxSeen = 32

// AppendSeen appends sig as the newest entry of seen, moving it if present,
// and evicts the oldest beyond MaxSeen.
func AppendSeen(seen []string, sig string) []string {
	seen = slices.DeleteFunc(seen, func(s string) bool { return s == sig })
	seen = append(seen, sig)
	if len(seen) > MaxSeen {
		seen = slices.Delete(seen, 0, len(seen)-MaxSeen)
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

// Claim reports whether signature was not remembered. A MemoryStore has
// one party, so a claim holds nothing back: a render that failed after it
// leaves the notice free for the next.
func (s *MemoryStore) Claim(ctx context.Context, signature string) (bool, error) {
	seen, err := s.Seen(ctx, signature)
	return !seen, err
}

// Remember records signature.
func (s *MemoryStore) Remember(_ context.Context, signature string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = AppendSeen(s.seen, signature)
	return nil
}

// problemsKey is the context key of CollectProblems' list.
type problemsKey struct{}

// CollectProblems returns ctx carrying list: each problem a Store works
// around in a call made with the returned context is added to it with
// AddProblem, so that one render can tell of its own.
func CollectProblems(ctx context.Context, list *[]error) context.Context {
	return context.WithValue(ctx, problemsKey{}, list)
}

// AddProblem adds err to the list ctx carries, if it carries one.
func AddProblem(ctx context.Context, err error) {
	if list, ok := ctx.Value(problemsKey{}).(*[]error); ok {
		*list = append(*list, err)
	}
}
