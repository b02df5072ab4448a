package request_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/request"
)

// A map key may hold a dot (a model alias "sonnet-4.5"): the error on its
// value is still placed where the key is written, as before 13cb644.
func TestJSONKeyErrorPlacedUnderDottedName(t *testing.T) {
	for _, tt := range []struct{ src, at string }{
		{"{\"chat_type\": \"direct\",\n \"model_aliases\": {\"sonnet-4.5\": \"a\\nb\"}}", "r.json:2:20: "},
		{"{\"chat_type\": \"direct\",\n \"contributions\": [{\"section_overrides\": {\"x.y\": \"v\"}}]}", "r.json:2:43: "},
	} {
		_, err := request.Parse("r.json", []byte(tt.src))
		require.Error(t, err)
		assert.Contains(t, err.Error(), tt.at)
	}
}
