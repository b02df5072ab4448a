package request_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/request"
)

// A JSON request decodes to what encoding/json makes of it: every example
// request, written as JSON, and the example client's own request.
func TestJSONRequestsDecodeAsEncodingJSONDoes(t *testing.T) {
	files, err := filepath.Glob("../../examples/requests/*.toml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	docs := map[string][]byte{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		r, err := request.Parse(f, src)
		require.NoError(t, err)
		docs[f], err = json.MarshalIndent(r, "", "  ")
		require.NoError(t, err)
	}
	docs["direct.json"], err = os.ReadFile("../../examples/clients/direct.json")
	require.NoError(t, err)
	for name, doc := range docs {
		var got, want request.Request
		require.NoError(t, request.DecodeJSON(name, doc, &got), name)
		require.NoError(t, json.Unmarshal(doc, &want), name)
		assert.Equal(t, want, got, name)
	}
}
