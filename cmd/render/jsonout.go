package main

import (
	"encoding/json"
	"io"
)

// encodeJSON prints one JSON document the way every JSON output of the
// CLI looks: two-space indent, one trailing newline, and <, > and &
// left as they are, since prompt text is full of them.
func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
