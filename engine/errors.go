package engine

import (
	"github.com/sysprompt/sysprompt/engine/internal/diag"
	"github.com/sysprompt/sysprompt/engine/internal/pack"
)

// The vocabulary a caller needs to read errors and results; the types
// live with the code that produces them.

// Error is the one error type of loading and rendering. Error() is a
// single line: "file:line:col: section id: message". Its fields: Phase,
// File (pack-relative or as the caller named it), Line and Col (1-based,
// 0 when unknown), Section (the section id, when it has one) and Err.
type Error = diag.Error

// ErrorList holds every problem found while loading a pack. Error() names
// the first and counts the rest; range over it for all of them.
type ErrorList = diag.ErrorList

// TierError is a stable section reaching for a volatile request field.
type TierError = diag.TierError

// Phase names the stage of work an error comes from.
type Phase = diag.Phase

// The phases of loading and rendering: "manifest", "front matter",
// "parse", "exec", "tier", "config", "request" and "workspace".
const (
	PhaseManifest    = diag.PhaseManifest
	PhaseFrontMatter = diag.PhaseFrontMatter
	PhaseParse       = diag.PhaseParse
	PhaseExec        = diag.PhaseExec
	PhaseTier        = diag.PhaseTier
	PhaseConfig      = diag.PhaseConfig
	PhaseRequest     = diag.PhaseRequest
	PhaseWorkspace   = diag.PhaseWorkspace
)

// Nearest returns the candidate within two edits of name, if one is: the
// "did you mean" of the engine's errors, for callers to give their own.
func Nearest(name string, candidates []string) string { return diag.Nearest(name, candidates) }

// Mode is a prompt mode: full for the main agent, minimal for sub-agents,
// none for the bare identity line.
type Mode = pack.Mode

// The prompt modes: "full", "minimal" and "none".
const (
	ModeFull    = pack.ModeFull
	ModeMinimal = pack.ModeMinimal
	ModeNone    = pack.ModeNone
)

// Tier says on which side of the cache boundary a section renders.
type Tier = pack.Tier

// The cache tiers: "stable" (above the boundary) and "dynamic".
const (
	TierStable  = pack.TierStable
	TierDynamic = pack.TierDynamic
)

// DefaultHarness is the harness used when a request names none.
const DefaultHarness = pack.DefaultHarness
