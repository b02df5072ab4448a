package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/sysprompt/sysprompt/internal/echo"
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

// formatFlag registers -format, the one switch to machine output of the
// commands that print text or JSON (report, diff, explain); checkFormat
// checks its value.
func formatFlag(fs *flag.FlagSet) *string {
	return fs.String("format", "text", "output `FORMAT`: text or json")
}

func checkFormat(format string) error {
	if format != "text" && format != "json" {
		return &usageError{fmt.Sprintf("-format %s: want text or json", echo.Quote(format))}
	}
	return nil
}
