package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
)

// A reply line is byte for byte what encoding/json writes for it, with
// kept stable texts and without: the same writer answers turn after
// turn, as serve does, and sees its stable texts change.
func TestServeReplyIsWhatEncodingJSONWrites(t *testing.T) {
	c := common{workspace: benchWorkspace}
	e, err := c.engine()
	require.NoError(t, err)
	var replies []serveReply
	for _, harness := range []string{"embedded", "codex", "embedded"} {
		for _, mode := range []engine.Mode{engine.ModeFull, engine.ModeMinimal, engine.ModeNone} {
			req, err := engine.ParseRequest("r.json", []byte(exampleRequest(t)))
			require.NoError(t, err)
			req.Harness, req.Mode = harness, mode
			res, err := e.Render(context.Background(), req)
			require.NoError(t, err)
			doc := renderDocument(res)
			replies = append(replies, serveReply{SchemaVersion: serveSchemaVersion, ID: json.RawMessage(`"` + harness + `"`), Result: &doc})
		}
	}
	layer := func(stable, text string) jsonLayer {
		return jsonLayer{Name: "system", Stable: stable, Dynamic: "d", Text: text, Sections: []jsonSection{}}
	}
	for _, l := range [][]jsonLayer{
		{layer("a <b> & \"c\"\n\t\x01 \u2028", "a <b> & \"c\"\n\t\x01 \u2028\n\n<!-- boundary -->\n\nd\n")},
		{layer("ends in half a rune \xe2\x80", "ends in half a rune \xe2\x80\xa8 and the text completes it")},
		{layer("bad \xff byte", "bad \xff byte\u2029")},
		{layer(`"stable":""`, `"stable":"" "text":"`), layer("", "")},
		{layer("not the start", "the text does not start with it")},
		{layer("", "no stable text")},
	} {
		replies = append(replies, serveReply{SchemaVersion: serveSchemaVersion, ID: json.RawMessage(`1`), Result: &renderDoc{Layers: l}})
	}
	// The id is the client's JSON: the keys spliced after may be in it.
	replies = append(replies, serveReply{SchemaVersion: serveSchemaVersion, ID: json.RawMessage(`{"stable":"", "text":"x"}`), Result: replies[0].Result})
	replies = append(replies, serveReply{SchemaVersion: serveSchemaVersion, Error: &serveError{Message: "<bad> & \"worse\""}})

	var got, want bytes.Buffer
	w := newReplyWriter(&got)
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	for i, r := range replies {
		got.Reset()
		want.Reset()
		require.NoError(t, w.write(r))
		require.NoError(t, enc.Encode(r))
		assert.Equal(t, want.String(), got.String(), "reply %d", i)
	}
	assert.LessOrEqual(t, len(w.kept), 3, "one kept text a layer")
}

// FuzzServeReply holds a reply line to what encoding/json writes for any
// id, stable text and text, the second time (its stable text kept) too.
func FuzzServeReply(f *testing.F) {
	f.Add(`{"stable":""}`, "a\n", "a\n\nd\n", "d")
	f.Add(`1`, "\xe2\x80", "\xe2\x80\xa8", "")
	f.Fuzz(func(t *testing.T, id, stable, text, dynamic string) {
		if !json.Valid([]byte(id)) {
			t.Skip()
		}
		l := jsonLayer{Name: "system", Stable: stable, Dynamic: dynamic, Text: text, Sections: []jsonSection{}}
		r := serveReply{SchemaVersion: serveSchemaVersion, ID: json.RawMessage(id), Result: &renderDoc{Layers: []jsonLayer{l, l}}}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(r))
		var got bytes.Buffer
		w := newReplyWriter(&got)
		for range 2 {
			got.Reset()
			require.NoError(t, w.write(r))
			require.Equal(t, want.String(), got.String())
		}
	})
}
