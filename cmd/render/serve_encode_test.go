package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
)

// encodingJSON is a reply as encoding/json writes it.
func encodingJSON(t *testing.T, reply serveReply) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(reply))
	return b.String()
}

// exampleDocs renders every example request on the example workspace.
func exampleDocs(t *testing.T) []renderDoc {
	t.Helper()
	c := common{workspace: "../../examples/workspace"}
	e, err := c.engine()
	require.NoError(t, err)
	files, err := filepath.Glob("../../examples/requests/*.toml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var docs []renderDoc
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		req, err := engine.ParseRequest(f, src)
		require.NoError(t, err)
		c.override(e, &req)
		for _, mode := range []engine.Mode{"", engine.ModeMinimal, engine.ModeNone} {
			if mode != "" {
				req.Mode = mode
			}
			res, err := e.Render(context.Background(), req)
			require.NoError(t, err, f)
			docs = append(docs, renderDocument(res))
		}
	}
	return docs
}

func layer(name, stable, between, dynamic string) jsonLayer {
	return jsonLayer{Name: name, Stable: stable, Dynamic: dynamic, Text: stable + between + dynamic + "\n", Sections: []jsonSection{}}
}

func TestReplyWriterWritesWhatEncodingJSONWrites(t *testing.T) {
	tricky := "quote \" backslash \\ tab \t control \x01 html <&> separators \u2028\u2029 é 😀"
	docs := append(exampleDocs(t),
		renderDoc{Mode: "full", Boundary: "<!-- B -->", Layers: []jsonLayer{layer("system", tricky, "\n\n<!-- B -->\n\n", "dynamic \xff\xfe invalid "+tricky)}},
		// Two layers, and then the first one's stable prefix changes.
		renderDoc{Layers: []jsonLayer{layer("a", "one", "\n\n", "x"), layer("b", "two", "\n\n", "y")}},
		renderDoc{Layers: []jsonLayer{layer("a", "one, changed", "\n\n", "x"), layer("b", "two", "\n\n", "y")}},
		// A text that does not start with its stable prefix.
		renderDoc{Layers: []jsonLayer{{Name: "odd", Stable: "abc", Dynamic: "d", Text: "xabc d"}}},
		// A stable prefix cut inside a rune: U+2028 is e2 80 a8.
		renderDoc{Layers: []jsonLayer{{Name: "cut", Stable: "a\xe2\x80", Text: "a\xe2\x80\xa8"}}},
		// A name holding a marker: the reply is encoded whole.
		renderDoc{Layers: []jsonLayer{layer("\x00sysprompt-serve:stable:0", "s", "\n", "d")}},
	)
	var out bytes.Buffer
	w := newReplyWriter(&out)
	for round := range 2 { // the second round finds each stable prefix kept
		for i := range docs {
			reply := serveReply{SchemaVersion: serveSchemaVersion, ID: json.RawMessage(`{"k": [1, 2]}`), Result: &docs[i]}
			out.Reset()
			require.NoError(t, w.write(reply))
			assert.Equal(t, encodingJSON(t, reply), out.String(), "round %d, document %d", round, i)
		}
	}
	failed := serveReply{SchemaVersion: serveSchemaVersion, Error: &serveError{Message: "x <&> \u2028", Line: 1}}
	out.Reset()
	require.NoError(t, w.write(failed))
	assert.Equal(t, encodingJSON(t, failed), out.String())
}
