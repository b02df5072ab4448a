package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/report"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/vfs"
)

// wireReply mirrors one line serve writes.
type wireReply struct {
	SchemaVersion int             `json:"schema_version"`
	ID            json.RawMessage `json:"id"`
	Result        *jsonDoc        `json:"result"`
	Error         *struct {
		Message string `json:"message"`
		Phase   string `json:"phase"`
		File    string `json:"file"`
		Line    int    `json:"line"`
		Col     int    `json:"col"`
		Section string `json:"section"`
	} `json:"error"`
}

// exampleRequest is examples/clients/direct.json on one line.
func exampleRequest(t testing.TB) string {
	t.Helper()
	src, err := os.ReadFile("../../examples/clients/direct.json")
	require.NoError(t, err)
	var line bytes.Buffer
	require.NoError(t, json.Compact(&line, src))
	return line.String()
}

func requestLine(id, request string) string {
	return fmt.Sprintf(`{"id":%s,"request":%s}`, id, request)
}

// decodeReply parses one output line, which must be compact JSON.
func decodeReply(t *testing.T, line string) wireReply {
	t.Helper()
	var compact bytes.Buffer
	require.NoError(t, json.Compact(&compact, []byte(line)))
	require.Equal(t, compact.String(), line, "replies are compact JSON")
	var r wireReply
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&r), line)
	require.Equal(t, report.SchemaVersion, r.SchemaVersion)
	require.True(t, (r.Result == nil) != (r.Error == nil), "a result or an error: %s", line)
	return r
}

// serveAll runs serve over stdin to its end and returns its replies.
func serveAll(t *testing.T, stdin string, args ...string) []wireReply {
	t.Helper()
	res := runCLI(stdin, append([]string{"serve"}, args...)...)
	require.Equal(t, 0, res.code, res.stderr)
	var replies []wireReply
	for _, line := range strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n") {
		if line != "" {
			replies = append(replies, decodeReply(t, line))
		}
	}
	return replies
}

func TestServeRendersLikeRender(t *testing.T) {
	t.Parallel()
	req := exampleRequest(t)
	ws := "../../examples/workspace"
	stdin := strings.Join([]string{
		requestLine("1", req),
		requestLine(`"two"`, req),
		"   ", // blank lines get no reply
		`{"request":` + req + `}`,
		requestLine(`"\ud800"`, req),      // echoed as sent, though not UTF-16
		requestLine(`{"k": [1, 2]}`, req), // the last line has no newline
	}, "\n")
	replies := serveAll(t, stdin, "-workspace", ws)

	want := runCLI(req, "-request", "-", "-format", "json", "-workspace", ws)
	require.Equal(t, 0, want.code, want.stderr)
	var doc jsonDoc
	require.NoError(t, json.Unmarshal([]byte(want.stdout), &doc))
	require.NotEmpty(t, doc.Layers[0].StableSHA256)

	require.Len(t, replies, 5)
	for i, wantID := range []string{`1`, `"two"`, `null`, `"\ud800"`, `{"k":[1,2]}`} {
		assert.Equal(t, wantID, string(replies[i].ID))
		require.Nil(t, replies[i].Error)
		assert.Equal(t, doc, *replies[i].Result, "reply %d is what render -format json prints", i)
	}
}

func TestServeErrorLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line    string
		id      string // echoed
		at      string // the column is where this first occurs in line
		message string
	}{
		{`not json`, `null`, `n`, `a line must be one JSON object: {"id": …, "request": {…}}`},
		{`{"id":1 2}`, `1`, `2`, `invalid character '2' after object value (expecting ',' or '}')`},
		{`{id:1}`, `null`, `id`, `invalid character 'i' at start of string (expecting '"')`},
		{`{"id" 1}`, `null`, `1`, `invalid character '1' after object name (expecting ':')`},
		{`{"id":"1`, `null`, ``, `unexpected end of JSON input`},
		{`{"id":[1,],"request":{}}`, `null`, `]`, `invalid character ']' at start of value`},
		{`{"id":1,"request":{"mode":}}`, `1`, `}}`, `invalid character '}' at start of value`},
		{`[1]`, `null`, `[`, `a line must be one JSON object`},
		{`{"id":7,"request":{"mode":"bogus"}}`, `7`, `"mode"`, `mode = "bogus" is not allowed (want full, minimal, none)`},
		{`{"id":8, "request": {"runtime": {"colour": "red"}}}`, `8`, `"colour"`, `unknown key "runtime.colour"`},
		{`{"id":9,"request":{},"extra":1}`, `9`, `"extra"`, `unknown key "extra" (want id and request)`},
		{`{"id":10}`, `10`, `{`, `no "request" key`},
		{`{"id":11,"request":"mode = 'full'"}`, `11`, `"mode`, `request must be a JSON object`},
		{`{"id":12,"request":{}} 12`, `12`, ` 12`, `text after the JSON object`},
		{`{"id":13,"request":{`, `13`, ``, `unexpected end of JSON input`},
		{`{"id":14,"id":15,"request":{}}`, `14`, `"id":15`, `key "id" repeated`},
		{"{\"id\":16,\"request\":{\"agent\":\"\xff\"}}", `null`, "\xff", `line is not valid UTF-8`},
		// A syntax error after values already read is placed in the line.
		{`{"id":17,"re\quest":{}}`, `17`, `\q`, "invalid escape sequence `\\q` in string"},
		{`{"id":18, "request": {"mode": "full",}}`, `18`, `}}`, `invalid character '}' at start of string (expecting '"')`},
		{`{"id":19,}`, `19`, `}`, `invalid character '}' at start of string (expecting '"')`},
		{`  {"id":20, "request": {}, "id": 21}`, `20`, `"id": 21`, `key "id" repeated`},
	}
	var stdin strings.Builder
	for _, tt := range tests {
		stdin.WriteString(tt.line + "\n\n") // the blank lines count in the line numbers
	}
	stdin.WriteString(requestLine("99", "{}") + "\n")
	replies := serveAll(t, stdin.String())
	require.Len(t, replies, len(tests)+1)
	for i, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			r := replies[i]
			assert.Equal(t, tt.id, string(r.ID))
			require.NotNil(t, r.Error)
			col := len(tt.line) + 1
			if tt.at != "" {
				col = strings.Index(tt.line, tt.at) + 1
				if tt.at == " 12" {
					col++ // the space is allowed; the 12 is not
				}
			}
			line := 2*i + 1
			assert.Equal(t, "request", r.Error.Phase)
			assert.Equal(t, "<stdin>", r.Error.File)
			assert.Equal(t, line, r.Error.Line)
			assert.Equal(t, col, r.Error.Col)
			assert.Equal(t, fmt.Sprintf("<stdin>:%d:%d: ", line, col), r.Error.Message[:len(fmt.Sprintf("<stdin>:%d:%d: ", line, col))])
			assert.Contains(t, r.Error.Message, tt.message)
		})
	}
	last := replies[len(tests)]
	assert.Equal(t, `99`, string(last.ID))
	assert.NotNil(t, last.Result, "errors never end serve")
}

func TestServeSkipsAnOversizeLine(t *testing.T) {
	t.Parallel()
	// A request padded to exactly the bound, and one a byte over it.
	pad := func(n int) string {
		head, tail := `{"id":1,"request":{"tools":[{"name":"x","schema":{"d":"`, `"}}]}}`
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	atBound, overBound := pad(maxServeLine), pad(maxServeLine+1)
	replies := serveAll(t, overBound+"\n"+atBound+"\n"+requestLine("3", "{}")+"\n")
	require.Len(t, replies, 3)
	require.NotNil(t, replies[0].Error)
	assert.Equal(t, "null", string(replies[0].ID), "nothing of the line was read")
	assert.Equal(t, 1, replies[0].Error.Line)
	assert.Equal(t, maxServeLine+1, replies[0].Error.Col)
	assert.Contains(t, replies[0].Error.Message, fmt.Sprintf("line is longer than %d bytes; skipped", maxServeLine))
	assert.Equal(t, "1", string(replies[1].ID))
	assert.NotNil(t, replies[1].Result, "a line at the bound is read and rendered")
	assert.Equal(t, "3", string(replies[2].ID))
	assert.NotNil(t, replies[2].Result)
}

// hugeLine reads as one line of n bytes, then a good request, without
// holding either.
type hugeLine struct{ left int }

func (h *hugeLine) Read(p []byte) (int, error) {
	if h.left == 0 {
		return copy(p, "\n"+requestLine("2", "{}")+"\n"), io.EOF
	}
	n := min(len(p), h.left)
	for i := range n {
		p[i] = 'x'
	}
	h.left -= n
	return n, nil
}

// A line far over the bound is read past in pieces, not held whole; so
// is not a speed check but an allocation one.
func TestServeDoesNotHoldALongLine(t *testing.T) {
	const size = 128 << 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var stdout, stderr bytes.Buffer
	code := run([]string{"serve"}, &hugeLine{left: size}, &stdout, &stderr)
	runtime.ReadMemStats(&after)
	require.Equal(t, 0, code, stderr.String())
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	require.Len(t, lines, 2)
	assert.Contains(t, decodeReply(t, lines[0]).Error.Message, "line is longer than")
	assert.NotNil(t, decodeReply(t, lines[1]).Result)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(size/4), "bytes allocated while skipping a %d-byte line", size)
}

func TestServeUsage(t *testing.T) {
	t.Parallel()
	badPack := writeFiles(t, map[string]string{"sections/identity.md.tmpl": "+++\ntier = \"stable\"\n+++\n{{ .Nope "})
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"-request", "r.toml"}, 2, "flag provided but not defined: -request"},
		{[]string{"-mode", "bogus"}, 2, `-mode "bogus"`},
		{[]string{"extra"}, 2, `unexpected argument "extra"`},
		{[]string{"-pack", filepath.Join(t.TempDir(), "missing")}, 1, "-pack: "},
		{[]string{"-pack", badPack}, 1, filepath.ToSlash(filepath.Join(badPack, "sections", "identity.md.tmpl"))},
	}
	for _, tt := range tests {
		res := runCLI(requestLine("1", "{}"), append([]string{"serve"}, tt.args...)...)
		assert.Equal(t, tt.code, res.code, "%v: %s", tt.args, res.stderr)
		assert.Contains(t, res.stderr, tt.stderr, "%v", tt.args)
		assert.Empty(t, res.stdout, "%v: serve refuses to start", tt.args)
	}
}

// session drives an in-process serve one request at a time.
type session struct {
	in     *io.PipeWriter
	out    *bufio.Reader
	code   chan int
	stderr *syncBuffer
}

func startServe(t *testing.T, args ...string) *session {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{in: inW, out: bufio.NewReader(outR), code: make(chan int, 1), stderr: &syncBuffer{}}
	go func() {
		s.code <- run(append([]string{"serve"}, args...), inR, outW, s.stderr)
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return s
}

func (s *session) ask(t *testing.T, line string) wireReply {
	t.Helper()
	_, err := io.WriteString(s.in, line+"\n")
	require.NoError(t, err)
	reply, err := s.out.ReadString('\n')
	require.NoError(t, err, "serve ended: %s", s.stderr.String())
	return decodeReply(t, strings.TrimSuffix(reply, "\n"))
}

// end closes stdin and returns the exit code.
func (s *session) end(t *testing.T) int {
	t.Helper()
	require.NoError(t, s.in.Close())
	rest, _ := io.ReadAll(s.out)
	assert.Empty(t, rest)
	return <-s.code
}

func textOf(t *testing.T, r wireReply) string {
	t.Helper()
	require.Nil(t, r.Error)
	return r.Result.Layers[0].Text
}

func TestServeSeesWorkspaceEdits(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	require.NoError(t, os.CopyFS(ws, os.DirFS("../../examples/workspace")))
	req := exampleRequest(t)
	s := startServe(t, "-workspace", ws)

	first := s.ask(t, requestLine("1", req))
	assert.NotContains(t, textOf(t, first), "Pixel")
	memory := filepath.Join(ws, "MEMORY.md")
	original, err := os.ReadFile(memory)
	require.NoError(t, err)
	// Two same-size edits in a row: the second must show too, though its
	// file identity may differ from the first's only in its content.
	for _, cat := range []string{"Pixel-1", "Pixel-2"} {
		require.NoError(t, os.WriteFile(memory, append(bytes.Clone(original), "\nAna's cat is "+cat+".\n"...), 0o644))
		r := s.ask(t, requestLine("2", req))
		assert.Contains(t, textOf(t, r), "Ana's cat is "+cat+".")
		assert.NotEqual(t, first.Result.Layers[0].StableSHA256, r.Result.Layers[0].StableSHA256, "MEMORY.md is above the boundary")
	}
	require.NoError(t, os.WriteFile(memory, original, 0o644))
	assert.Equal(t, first.Result.Layers[0].Text, textOf(t, s.ask(t, requestLine("3", req))))
	assert.Equal(t, 0, s.end(t))
}

func TestServeSeesPackEdits(t *testing.T) {
	t.Parallel()
	pack := t.TempDir()
	section := filepath.Join(pack, "sections", "user_identity.md.tmpl")
	require.NoError(t, os.Mkdir(filepath.Dir(section), 0o755))
	write := func(body string) {
		require.NoError(t, os.WriteFile(section, []byte("+++\nmodes = [\"full\"]\ntier = \"dynamic\"\n+++\n"+body+"\n"), 0o644))
	}
	const req = `{"owners":["ana"]}`
	write("Version 0.")
	s := startServe(t, "-pack", pack)
	assert.Contains(t, textOf(t, s.ask(t, requestLine("0", req))), "\nVersion 0.\n")

	// Every edit shows on the very next request: no wait in between.
	for i := 1; i <= 20; i++ {
		write(fmt.Sprintf("Version %d.", i))
		assert.Contains(t, textOf(t, s.ask(t, requestLine("1", req))), fmt.Sprintf("\nVersion %d.\n", i))
	}

	// A pack that does not compile: error lines, not the old pack.
	write("{{ .Owners ")
	for range 2 {
		r := s.ask(t, requestLine("2", req))
		require.NotNil(t, r.Error)
		assert.Equal(t, filepath.ToSlash(section), r.Error.File)
		assert.Equal(t, 6, r.Error.Line)
		assert.Contains(t, r.Error.Message, "unclosed action")
	}
	assert.Equal(t, 1, strings.Count(s.stderr.String(), "unclosed action"), "the build error is printed once: %s", s.stderr.String())

	write("Version fixed.")
	assert.Contains(t, textOf(t, s.ask(t, requestLine("3", req))), "\nVersion fixed.\n")
	// A file removed from the pack: the built-in one shows again.
	require.NoError(t, os.Remove(section))
	assert.Contains(t, textOf(t, s.ask(t, requestLine("4", req))), "Senders allowed to command you: ana.")
	// A folder made again after serve started is watched again.
	require.NoError(t, os.RemoveAll(filepath.Dir(section)))
	assert.Contains(t, textOf(t, s.ask(t, requestLine("5", req))), "Senders allowed to command you: ana.")
	require.NoError(t, os.Mkdir(filepath.Dir(section), 0o755))
	for _, v := range []string{"Version in a new folder.", "Version edited there."} {
		write(v)
		assert.Contains(t, textOf(t, s.ask(t, requestLine("6", req))), "\n"+v+"\n")
	}
	assert.Equal(t, 0, s.end(t))
}

// A pack folder may hold much the pack never reads (a .git folder, a
// project around it, as with -pack . in a checkout): however much, an
// edit to a section or to the config still shows on the next request.
func TestServeSeesEditsInABigPackFolder(t *testing.T) {
	t.Parallel()
	pack := t.TempDir()
	for i := range 9000 {
		name := filepath.Join(pack, ".git", "objects", fmt.Sprintf("%02x", i%256), fmt.Sprint(i))
		require.NoError(t, os.MkdirAll(filepath.Dir(name), 0o755))
		require.NoError(t, os.WriteFile(name, nil, 0o644))
	}
	section := filepath.Join(pack, "sections", "user_identity.md.tmpl")
	require.NoError(t, os.Mkdir(filepath.Dir(section), 0o755))
	write := func(body string) {
		require.NoError(t, os.WriteFile(section, []byte("+++\nmodes = [\"full\"]\ntier = \"dynamic\"\n+++\n"+body+"\n"), 0o644))
	}
	config := filepath.Join(t.TempDir(), "agents.toml")
	zone := func(z string) {
		require.NoError(t, os.WriteFile(config, []byte("[agents.defaults]\nuserTimezone = \""+z+"\"\n"), 0o644))
	}
	write("Version 0.")
	zone("Asia/Kolkata")
	time.Sleep(vfs.RacyWindow) // younger files rebuild the engine on every request
	s := startServe(t, "-pack", pack, "-config", config)
	assert.Contains(t, textOf(t, s.ask(t, requestLine("0", "{}"))), "\nVersion 0.\n")
	write("Version 1.")
	assert.Contains(t, textOf(t, s.ask(t, requestLine("1", "{}"))), "\nVersion 1.\n")
	zone("Europe/Lisbon")
	assert.Contains(t, textOf(t, s.ask(t, requestLine("2", "{}"))), "Time zone: Europe/Lisbon\n")
	assert.Equal(t, 0, s.end(t))
}

func TestServeSeesConfigEdits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	config := filepath.Join(dir, "agents.toml")
	zone := func(z string) {
		require.NoError(t, os.WriteFile(config, []byte("[agents.defaults]\nuserTimezone = \""+z+"\"\n"), 0o644))
	}
	zone("Asia/Kolkata")
	s := startServe(t, "-config", config)
	assert.Contains(t, textOf(t, s.ask(t, requestLine("1", "{}"))), "Time zone: Asia/Kolkata\n")
	zone("Europe/Lisbon")
	assert.Contains(t, textOf(t, s.ask(t, requestLine("2", "{}"))), "Time zone: Europe/Lisbon\n")

	require.NoError(t, os.WriteFile(config, []byte("[agents.defaults]\nuserTimezone = 3\n"), 0o644))
	r := s.ask(t, requestLine("3", "{}"))
	require.NotNil(t, r.Error)
	assert.Equal(t, filepath.ToSlash(config), filepath.ToSlash(r.Error.File))
	assert.Equal(t, 2, r.Error.Line)

	zone("America/Lima")
	assert.Contains(t, textOf(t, s.ask(t, requestLine("4", "{}"))), "Time zone: America/Lima\n")
	assert.Equal(t, 0, s.end(t))
}

// buildRender builds this command into a temporary folder: the clients
// and the benchmark run a real binary, not the test binary.
func buildRender(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: builds the render binary")
	}
	goCmd, err := exec.LookPath("go") // go test puts its own go first on PATH
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "render")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.Command(goCmd, "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// The clients send examples/clients/direct.json, the JSON twin of the
// README's request: it must stay the same request, schemas included.
func TestClientRequestIsTheExample(t *testing.T) {
	t.Parallel()
	parse := func(name string) []byte {
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		req, err := engine.ParseRequest(name, src)
		require.NoError(t, err)
		out, err := json.Marshal(req)
		require.NoError(t, err)
		return out
	}
	assert.JSONEq(t, string(parse("../../examples/requests/direct.toml")), string(parse("../../examples/clients/direct.json")))
}
