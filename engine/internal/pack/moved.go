package pack

import (
	"errors"

	"github.com/sysprompt/sysprompt/engine/internal/strict"
)

// Keys a pack once had that now live elsewhere. A pack ejected before the
// move still has them; the unknown-key error they cause says where they
// went, so its owner need not guess.
var (
	// movedManifestKeys are the manifest's old settings and bootstrap file
	// lists, and their tables, now all in templates/defaults.toml.
	movedManifestKeys = movedTo("it moved to "+defaultsPath,
		"bootstrap", "bootstrap.files", "bootstrap.optional", "bootstrap.dynamic", "bootstrap.subagent",
		"bootstrap.max_chars", "bootstrap.total_max_chars", "bootstrap.truncation_warning",
		"skills", "skills.max_prompt_chars", "skills.max_in_prompt")
	// movedFrontMatterKeys are the front matter keys a section no longer
	// declares.
	movedFrontMatterKeys = movedTo("a section's layer is set by the manifest's layer lists", "layer")
)

// movedTo maps each key to the same hint.
func movedTo(hint string, keys ...string) map[string]string {
	m := make(map[string]string, len(keys))
	for _, k := range keys {
		m[k] = hint
	}
	return m
}

// hintMoved appends where a key went to the unknown-key error err
// reports, when moved knows the key; other errors are returned as they are.
func hintMoved(err error, moved map[string]string) error {
	var pe *strict.PosError
	if errors.As(err, &pe) && pe.Unknown {
		if hint, ok := moved[pe.Key]; ok {
			pe.Msg += " (" + hint + ")"
		}
	}
	return err
}
