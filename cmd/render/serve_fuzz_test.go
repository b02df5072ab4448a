package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxFuzzServeInput keeps an iteration fast while still letting one line
// run past maxServeLine, so the skip path is fuzzed too.
const maxFuzzServeInput = maxServeLine + 4<<10

// FuzzServeLines feeds arbitrary bytes to serve as stdin: whatever comes
// in, serve keeps running and answers each non-blank line with one well
// formed reply, in order.
func FuzzServeLines(f *testing.F) {
	req := exampleRequest(f)
	f.Add([]byte(req + "\n"))
	f.Add([]byte(requestLine(`"a"`, req) + "\n" + requestLine("2", "{}")))
	f.Add([]byte(`{"id":3,"request":{"mode":}}` + "\nnot json\n{\"id\":[1,],\"request\":{}}\n"))
	f.Add([]byte("\n \t\r\n" + requestLine("4", "{}") + "\n\n"))
	f.Add([]byte(strings.Repeat("x", maxServeLine+1) + "\n" + requestLine("5", "{}") + "\n"))
	f.Fuzz(func(t *testing.T, stdin []byte) {
		if len(stdin) > maxFuzzServeInput {
			t.Skip()
		}
		// The input lines that must get a reply, by 1-based number: serve
		// skips blank ones and answers an over-long one with an error.
		var want []int
		for i, line := range bytes.Split(stdin, []byte("\n")) {
			if len(line) > maxServeLine || len(bytes.TrimSpace(line)) > 0 {
				want = append(want, i+1)
			}
		}

		var stdout, stderr bytes.Buffer
		code := run([]string{"serve", "-workspace", "../../examples/workspace"}, bytes.NewReader(stdin), &stdout, &stderr)
		require.Equal(t, 0, code, "stderr: %s", stderr.String())
		// Without -pack, -config or -state nothing has cause to warn.
		require.Empty(t, stderr.String())

		out := stdout.String()
		if len(want) == 0 {
			require.Empty(t, out)
			return
		}
		require.True(t, strings.HasSuffix(out, "\n"), "every reply ends its line")
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		require.Len(t, lines, len(want), "one reply per non-blank line")
		for i, line := range lines {
			r := decodeReply(t, line)
			// An error about the line itself points at that line.
			if r.Error != nil && r.Error.File == serveInput {
				assert.Equal(t, want[i], r.Error.Line, "reply %d: %s", i, line)
			}
		}
	})
}

// FuzzServeParseLine checks parseLine's one pass against reading the
// envelope and the request in turn, which places errors: a line either
// way reads as the same id and request, or fails either way.
func FuzzServeParseLine(f *testing.F) {
	req := exampleRequest(f)
	for _, line := range []string{
		requestLine("1", req), requestLine(`{"k":[1,{"a":null}]}`, req), `{"request":{}}`, `{"id":null,"request":{"mode":"minimal"}}`,
		`{"ID":1,"request":{}}`, `{"id":1,"id":2,"request":{}}`, `{"id":{"a":1,"a":2},"request":{}}`, `{"id":1,"request":null}`,
		`{"id":1,"request":{"mode":"loud"}}`, `{"id":1,"request":{"tools":[{"name":"x","schema":[1]}]}} `, "\xef\xbb\xbf" + `{"request":{}}`,
	} {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if len(text) > maxServeLine || bytes.ContainsAny(text, "\n") {
			t.Skip()
		}
		in := inputLine{n: 1, text: text}
		id, req, err := parseLine(in)
		wantID, wantReq, wantErr := parseLineInParts(in)
		assert.Equal(t, string(wantID), string(id))
		assert.Equal(t, wantReq, req)
		assert.Equal(t, wantErr, err)
	})
}
