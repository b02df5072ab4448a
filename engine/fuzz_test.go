package engine

import (
	"strings"
	"testing"
)

// The fuzz targets check that bad input of any shape gets an *Error with
// a one-line message, never a panic.

func FuzzParseRequest(f *testing.F) {
	f.Add([]byte("mode = \"full\"\n[channel]\nid = \"x\"\n"))
	f.Add([]byte(`{"mode": "minimal", "tools": [{"name": "read", "schema": {"type": "object"}}]}`))
	f.Add([]byte("date = \"2026-11-30T09:15:00Z\"\ntimezone = \"Europe/Lisbon\"\n"))
	f.Add([]byte("{\"contributions\": [{\"section_overrides\": {\"x\": \"y\"}}]}"))
	f.Fuzz(func(t *testing.T, src []byte) {
		_, err := ParseRequest("r", src)
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error: %q", err.Error())
		}
	})
}
