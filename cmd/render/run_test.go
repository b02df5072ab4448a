package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/report"
)

// request is read from stdin ("-request -"), so most tests need no files.
const request = `mode = "full"
timezone = "Europe/Lisbon"
chat_type = "direct"

[channel]
id = "telegram"

[runtime]
host = "box"
os = "linux"
`

type result struct {
	code           int
	stdout, stderr string
}

func runCLI(stdin string, args ...string) result {
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return result{code, stdout.String(), stderr.String()}
}

// jsonDoc mirrors -format json.
type jsonDoc struct {
	SchemaVersion int    `json:"schema_version"`
	Mode          string `json:"mode"`
	Harness       string `json:"harness"`
	Boundary      string `json:"boundary"`
	Layers        []struct {
		Name         string `json:"name"`
		Stable       string `json:"stable"`
		Dynamic      string `json:"dynamic"`
		Text         string `json:"text"`
		StableSHA256 string `json:"stable_sha256"`
		Sections     []struct {
			ID    string `json:"id"`
			Tier  string `json:"tier"`
			Start int    `json:"start"`
			End   int    `json:"end"`
			Chars int    `json:"chars"`
		} `json:"sections"`
	} `json:"layers"`
}

func renderJSON(t *testing.T, args ...string) jsonDoc {
	t.Helper()
	res := runCLI(request, append([]string{"-request", "-", "-format", "json"}, args...)...)
	require.Equal(t, 0, res.code, res.stderr)
	require.Empty(t, res.stderr)
	var doc jsonDoc
	dec := json.NewDecoder(strings.NewReader(res.stdout))
	require.NoError(t, dec.Decode(&doc))
	require.False(t, dec.More(), "one JSON document")
	require.Equal(t, report.SchemaVersion, doc.SchemaVersion)
	return doc
}

// joinParts joins the non-empty parts with one blank line and ends with a
// newline, the way a layer's text is assembled.
func joinParts(parts ...string) string {
	parts = slices.DeleteFunc(parts, func(s string) bool { return s == "" })
	return strings.Join(parts, "\n\n") + "\n"
}

func TestJSONLayersReassembleText(t *testing.T) {
	tests := []struct {
		mode        string
		wantStable  []string // section ids that must be present, stable tier
		wantDynamic []string
	}{
		{mode: "full", wantStable: []string{"identity", "safety"}, wantDynamic: []string{"runtime"}},
		{mode: "minimal", wantStable: []string{"identity", "safety"}, wantDynamic: []string{"runtime"}},
		{mode: "none", wantStable: []string{"identity"}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			doc := renderJSON(t, "-mode", tt.mode)
			assert.Equal(t, tt.mode, doc.Mode)
			assert.Equal(t, "embedded", doc.Harness)
			require.Len(t, doc.Layers, 1)
			l := doc.Layers[0]
			assert.Equal(t, "system", l.Name)
			if tt.mode == "none" {
				assert.Empty(t, doc.Boundary, "mode none has no marker")
				assert.Equal(t, l.Stable+"\n", l.Text)
				return
			}
			require.NotEmpty(t, doc.Boundary)
			assert.Equal(t, joinParts(l.Stable, doc.Boundary, l.Dynamic), l.Text)
			sum := sha256.Sum256([]byte(l.Stable))
			assert.Equal(t, hex.EncodeToString(sum[:]), l.StableSHA256)

			boundaryAt := strings.Index(l.Text, doc.Boundary)
			require.GreaterOrEqual(t, boundaryAt, 0)
			var stable, dynamic []string
			prevEnd := 0
			for _, s := range l.Sections {
				require.True(t, prevEnd <= s.Start && s.Start < s.End && s.End <= len(l.Text),
					"section %s at [%d,%d) out of order or out of range", s.ID, s.Start, s.End)
				prevEnd = s.End
				body := l.Text[s.Start:s.End]
				assert.Equal(t, utf8.RuneCountInString(body), s.Chars, "chars of %s", s.ID)
				assert.Equal(t, strings.TrimSpace(body), body, "section %s is trimmed", s.ID)
				switch s.Tier {
				case "stable":
					assert.Less(t, s.End, boundaryAt, "stable section %s ends above the boundary", s.ID)
					assert.Contains(t, l.Stable, body)
					stable = append(stable, s.ID)
				case "dynamic":
					assert.Greater(t, s.Start, boundaryAt, "dynamic section %s starts below the boundary", s.ID)
					assert.Contains(t, l.Dynamic, body)
					dynamic = append(dynamic, s.ID)
				default:
					t.Errorf("section %s: tier %q", s.ID, s.Tier)
				}
			}
			assert.Subset(t, stable, tt.wantStable)
			assert.Subset(t, dynamic, tt.wantDynamic)
			if len(tt.wantDynamic) == 0 {
				assert.Empty(t, dynamic)
				assert.Empty(t, l.Dynamic)
			}

			// Text output is the same layer, with or without the marker.
			text := runCLI(request, "-request", "-", "-mode", tt.mode)
			require.Equal(t, 0, text.code, text.stderr)
			assert.Equal(t, l.Text, text.stdout)
			bare := runCLI(request, "-request", "-", "-mode", tt.mode, "-boundary=false")
			require.Equal(t, 0, bare.code, bare.stderr)
			assert.Equal(t, joinParts(l.Stable, l.Dynamic), bare.stdout)

			// Same inputs, same bytes.
			assert.Equal(t, doc, renderJSON(t, "-mode", tt.mode))
		})
	}
}

func TestAnthropicCachesOnlyTheStableBlock(t *testing.T) {
	tests := []struct {
		mode       string
		wantBlocks int
	}{
		{mode: "full", wantBlocks: 2},
		{mode: "none", wantBlocks: 1}, // no dynamic tier, no empty block
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			res := runCLI(request, "-request", "-", "-mode", tt.mode, "-format", "anthropic", "-model", "claude-sonnet-4-5")
			require.Equal(t, 0, res.code, res.stderr)
			require.Empty(t, res.stderr)
			// Raw messages, so a "cache_control": null would count as present.
			var doc struct {
				Model     string                       `json:"model"`
				MaxTokens int                          `json:"max_tokens"`
				System    []map[string]json.RawMessage `json:"system"`
				Messages  []json.RawMessage            `json:"messages"`
			}
			require.NoError(t, json.Unmarshal([]byte(res.stdout), &doc))
			assert.Equal(t, "claude-sonnet-4-5", doc.Model)
			assert.Equal(t, 8192, doc.MaxTokens)
			assert.NotNil(t, doc.Messages, "messages is [], for the caller to fill")
			assert.Empty(t, doc.Messages)
			require.Len(t, doc.System, tt.wantBlocks)

			layer := renderJSON(t, "-mode", tt.mode).Layers[0]
			wantTexts := []string{layer.Stable, layer.Dynamic}
			for i, block := range doc.System {
				var typ, text string
				require.NoError(t, json.Unmarshal(block["type"], &typ))
				require.NoError(t, json.Unmarshal(block["text"], &text))
				assert.Equal(t, "text", typ)
				assert.Equal(t, wantTexts[i], text, "block %d", i)
				assert.NotContains(t, text, "SYSPROMPT_CACHE_BOUNDARY", "block %d", i)
				cc, cached := block["cache_control"]
				if i == 0 {
					require.True(t, cached, "the stable block carries cache_control")
					assert.JSONEq(t, `{"type": "ephemeral"}`, string(cc))
				} else {
					assert.False(t, cached, "block %d must not carry cache_control", i)
				}
			}
		})
	}
}

// renderFlags are the flags the manual (main.go) documents for a render.
var renderFlags = []string{
	"-pack", "-workspace", "-request", "-config", "-agent", "-mode", "-harness",
	"-state", "-hook", "-format", "-boundary", "-o",
	"-model", "-max-tokens", "-message",
}

func TestHelp(t *testing.T) {
	tests := []struct {
		args      []string
		wantFlags []string
	}{
		{args: []string{"-h"}, wantFlags: renderFlags},
		{args: []string{"-help"}, wantFlags: renderFlags},
		{args: []string{"help"}},
		{args: []string{"lint", "-h"}, wantFlags: []string{"-pack"}},
		{args: []string{"eject", "-h"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			res := runCLI("", tt.args...)
			require.Equal(t, 0, res.code, res.stderr)
			out := res.stdout + res.stderr
			assert.Contains(t, out, "Usage:")
			assert.NotContains(t, out, "render: ", "help is not an error")
			var missing []string
			for _, f := range tt.wantFlags {
				if !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(f) + `\b`).MatchString(out) {
					missing = append(missing, f)
				}
			}
			assert.Empty(t, missing, "flags the help does not list; it says:\n%s", out)
		})
	}
}

// TestHelpNamesEverySubcommand checks that every command run dispatches
// to is in the overview, in main.go's package doc, and has help of its
// own that starts with its synopsis.
func TestHelpNamesEverySubcommand(t *testing.T) {
	usage := runCLI("", "help")
	require.Equal(t, 0, usage.code)
	manual := packageDoc(t)
	for _, c := range commands() {
		if c.name == "render" || c.name == "help" {
			continue // the default command: every line names it
		}
		assert.Contains(t, usage.stdout, "render "+c.name, "usage mentions %q", c.name)
		assert.Contains(t, manual, "render "+c.name, "main.go's package doc mentions %q", c.name)
		help := runCLI("", "help", c.name)
		assert.Equal(t, 0, help.code, help.stderr)
		assert.True(t, strings.HasPrefix(help.stdout, "Usage: render "+c.name), "render help %s starts with its synopsis:\n%s", c.name, help.stdout)
	}
}

func packageDoc(t *testing.T) string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	require.NotNil(t, f.Doc, "main.go has a package doc")
	return f.Doc.Text()
}

func TestOutputFile(t *testing.T) {
	const badRequest = "mode = \"full\"\n\n[runtime]\ncolour = \"red\"\n"
	tests := []struct {
		name     string
		stdin    string
		existing string // content of out.md before the run; "" means none
		outIsDir bool   // out.md is a directory, so the final rename fails
		wantCode int
		wantErr  string
	}{
		{name: "new file", stdin: request},
		{name: "replaces a file", stdin: request, existing: "old prompt\n"},
		{name: "bad request, no file", stdin: badRequest, wantCode: 1, wantErr: `render: <stdin>:4:1: unknown key "runtime.colour"`},
		{name: "bad request keeps the old file", stdin: badRequest, existing: "old prompt\n", wantCode: 1, wantErr: "render: <stdin>:4:1: "},
		{name: "rename fails, no temp file left", stdin: request, outIsDir: true, wantCode: 1, wantErr: "out.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "out.md")
			switch {
			case tt.outIsDir:
				require.NoError(t, os.Mkdir(out, 0o755))
			case tt.existing != "":
				require.NoError(t, os.WriteFile(out, []byte(tt.existing), 0o644))
			}
			before := dirNames(t, dir)

			res := runCLI(tt.stdin, "-request", "-", "-o", out)
			require.Equal(t, tt.wantCode, res.code, res.stderr)
			assert.Empty(t, res.stdout, "-o writes nothing to stdout")

			if tt.wantCode != 0 {
				first, _, _ := strings.Cut(res.stderr, "\n")
				assert.Contains(t, first, tt.wantErr)
				assert.Equal(t, before, dirNames(t, dir), "a failed run leaves the directory as it was")
				if tt.existing != "" {
					got, err := os.ReadFile(out)
					require.NoError(t, err)
					assert.Equal(t, tt.existing, string(got))
				}
				return
			}
			assert.Empty(t, res.stderr)
			assert.Equal(t, []string{"out.md"}, dirNames(t, dir), "no temp file left")
			got, err := os.ReadFile(out)
			require.NoError(t, err)
			want := runCLI(tt.stdin, "-request", "-")
			assert.Equal(t, want.stdout, string(got))
		})
	}
}

// TestOutputFileMode checks -o creates the file the way a shell redirect
// would (0666 less the umask), not private to its owner.
func TestOutputFileMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix permissions")
	}
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref")
	require.NoError(t, os.WriteFile(ref, nil, 0o666))
	out := filepath.Join(dir, "out.md")
	res := runCLI(request, "-request", "-", "-o", out)
	require.Equal(t, 0, res.code, res.stderr)

	refInfo, err := os.Stat(ref)
	require.NoError(t, err)
	outInfo, err := os.Stat(out)
	require.NoError(t, err)
	assert.Equal(t, refInfo.Mode().Perm().String(), outInfo.Mode().Perm().String())
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// panicWriter stands in for a bug anywhere below run.
type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("write refused") }

// TestPanicIsInternalError: a crash is a failure (exit 1, one line), not a
// usage error (2, the status Go gives an unrecovered panic).
func TestPanicIsInternalError(t *testing.T) {
	var stderr bytes.Buffer
	var code int
	require.NotPanics(t, func() { code = run([]string{"help"}, strings.NewReader(""), panicWriter{}, &stderr) })
	assert.Equal(t, exitFail, code)
	assert.Equal(t, "render: internal error: write refused\n", stderr.String())
}

// fullWriter fails every write, as stdout on a full disk does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// A command whose output could not be written fails, rather than exit 0
// with its output lost; diff's 0 and 1 are answers, so it exits 2.
func TestStdoutWriteErrorFails(t *testing.T) {
	req := "../../examples/requests/direct.toml"
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"-request", req}, exitFail},
		{[]string{"explain", "-request", req}, exitFail},
		{[]string{"lint"}, exitFail},
		{[]string{"version"}, exitFail},
		{[]string{"help"}, exitFail},
		{[]string{"help", "diff"}, exitFail},
		{[]string{"diff", req, req}, exitUsage},
		{[]string{"diff", req, "../../examples/requests/group.toml"}, exitUsage},
	} {
		var stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(""), fullWriter{}, &stderr)
		assert.Equal(t, tc.code, code, "%v: %s", tc.args, stderr.String())
		assert.Contains(t, stderr.String(), "no space left on device", tc.args)
	}
}

// The request is read while the pack compiles. When both are wrong, the
// pack's error is the one reported, as when they were read in turn; a
// panic while reading the request is still an internal error.
func TestPackErrorBeforeRequestError(t *testing.T) {
	dir := t.TempDir()
	pack := brokenPack(t, dir)
	badRequest := filepath.Join(dir, "request.toml")
	require.NoError(t, os.WriteFile(badRequest, []byte("mode = \n"), 0o644))

	r := runCLI("", "-pack", pack, "-request", badRequest)
	assert.Equal(t, exitFail, r.code)
	assert.Contains(t, r.stderr, "sections/safety.md.tmpl")
	assert.NotContains(t, r.stderr, "request.toml")

	r = runCLI("", "-request", badRequest)
	assert.Equal(t, exitFail, r.code)
	assert.Contains(t, r.stderr, "request.toml:1:")

	var stderr bytes.Buffer
	var code int
	require.NotPanics(t, func() { code = run([]string{"-request", "-"}, panicReader{}, io.Discard, &stderr) })
	assert.Equal(t, exitFail, code)
	assert.Equal(t, "render: internal error: read refused\n", stderr.String())
}

// brokenPack ejects a pack into dir/pack whose safety section has a
// bad front matter, and returns its path.
func brokenPack(t *testing.T, dir string) string {
	t.Helper()
	pack := filepath.Join(dir, "pack")
	require.Equal(t, 0, runCLI("", "eject", pack, "sections/safety.md.tmpl").code)
	require.NoError(t, os.WriteFile(filepath.Join(pack, "sections", "safety.md.tmpl"), []byte("+++\ntier = 3\n+++\n"), 0o644))
	return pack
}

type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("read refused") }

// Stdin is read only once the pack has compiled, as when the two ran in
// turn: a broken pack is reported at once, not after whatever feeds
// stdin (a terminal, a pipe left open) has closed it, and report and
// explain, which load the same way, leave it unread too.
func TestPackErrorLeavesStdinUnread(t *testing.T) {
	pack := brokenPack(t, t.TempDir())
	for _, args := range [][]string{{"-request", "-"}, {"report", "-request", "-"}, {"explain", "-request", "-"}} {
		var stdin readCounter
		var stderr bytes.Buffer
		code := run(append(args, "-pack", pack), &stdin, io.Discard, &stderr)
		assert.Equal(t, exitFail, code, args)
		assert.Contains(t, stderr.String(), "sections/safety.md.tmpl", args)
		assert.Zero(t, stdin.reads, "%v: stdin read though the pack failed", args)
	}
}

// readCounter counts its reads and is always at its end.
type readCounter struct{ reads int }

func (r *readCounter) Read([]byte) (int, error) { r.reads++; return 0, io.EOF }

// A flag given and then ignored is refused: "-o" given empty (an unset
// variable in a script) would print to stdout, and a text format asked
// of a view that has none would print JSON or HTML all the same.
func TestFlagsGivenButMeaningless(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", ""}, "-o needs a FILE; leave it out to print to stdout"},
		{[]string{"report", "html", "-o="}, "-o needs a FILE; leave it out to print to stdout"},
		{[]string{"report", "json", "-format", "text"}, "report json -format text: the json view has no text form"},
		{[]string{"report", "html", "-format", "text"}, "report html -format text: the html view has no text form"},
	} {
		code, stdout, errOut := cli(tt.args...)
		assert.Equal(t, 2, code, "%q", tt.args)
		assert.Empty(t, stdout, "%q", tt.args)
		assert.Contains(t, errOut, tt.want, "%q", tt.args)
	}
	for _, view := range []string{"list", "detail"} {
		code, _, errOut := cli("report", view, "-format", "text")
		assert.Equal(t, 0, code, "report %s -format text: %s", view, errOut)
	}
}
