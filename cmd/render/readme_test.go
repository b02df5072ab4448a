package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The README's samples are run by TestREADME, so a stale one fails CI.
// The rules a README block follows:
//
//   - A ```sh block holds commands, one a line. "go run ./cmd/render ARGS"
//     runs render in the repository root; "go test -race ./..." must be
//     the test command .ci/run runs. Any other command fails the test, so
//     nothing in the README goes unchecked.
//   - A comment right above a command that says "exit N" gives its exit
//     status (default 0). Comment lines right below a command, with no
//     blank line between, are its whole stdout.
//   - A block of any other language right after a line
//     "<!-- output of: go run ./cmd/render ARGS -->" is that command's
//     whole stdout.
//   - Other blocks must name a language other than sh (toml, go, text…):
//     they are illustrations, not samples.
//
// Paths under the repository root print as /path/to/sysprompt, and HOME
// is an empty folder, as on a fresh machine; -o FILE writes into a
// temporary folder. go test ./cmd/render -run
// TestREADME -update rewrites the expected outputs.

const readmeRoot = "/path/to/sysprompt"

var (
	outputMarker = regexp.MustCompile(`^<!-- output of: (.+) -->$`)
	exitComment  = regexp.MustCompile(`\bexit (\d)\b`)
)

// readmeSample is one command of the README and what it should print.
type readmeSample struct {
	line     int    // 1-based, of the command
	command  string // as written
	exit     int
	want     string // the expected stdout
	wantFrom int    // 0-based line range of the expected output, to rewrite
	wantTo   int
	comments bool // the output is written as "# " comment lines
}

func TestREADME(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	src, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	lines := strings.Split(string(src), "\n")
	samples, problems := readmeSamples(lines)
	for _, p := range problems {
		t.Errorf("README.md:%s", p)
	}
	require.NotEmpty(t, samples)
	ci, err := os.ReadFile(filepath.Join(root, ".ci/run"))
	require.NoError(t, err)

	t.Chdir(root)
	t.Setenv("HOME", t.TempDir())
	outDir := t.TempDir()
	changed := false
	// Last first, so a rewrite never moves the lines of one still to come.
	for i := len(samples) - 1; i >= 0; i-- {
		s := samples[i]
		if s.command == "go test -race ./..." {
			assert.Regexp(t, `(?m)^`+regexp.QuoteMeta(s.command)+`$`, string(ci), "README.md:%d: .ci/run runs the README's test command", s.line)
			continue
		}
		got, stderr, code, err := runReadmeCommand(s.command, outDir)
		if err != nil {
			t.Errorf("README.md:%d: %s: %v", s.line, s.command, err)
			continue
		}
		got = strings.ReplaceAll(got, filepath.ToSlash(root), readmeRoot)
		assert.Equal(t, s.exit, code, "README.md:%d: exit status of %s; stderr:\n%s", s.line, s.command, stderr)
		if s.wantTo > s.wantFrom && got != s.want {
			if *update {
				lines = rewriteSample(lines, s, got)
				changed = true
				continue
			}
			assert.Equal(t, s.want, got, "README.md:%d: output of %s (rewrite with -update)", s.line, s.command)
		}
	}
	if changed {
		require.NoError(t, os.WriteFile(filepath.Join(root, "README.md"), []byte(strings.Join(lines, "\n")), 0o644))
	}
}

// readmeSamples finds every command and output sample in the README's
// lines, and the blocks that break the rules above.
func readmeSamples(lines []string) (samples []readmeSample, problems []string) {
	for i := 0; i < len(lines); i++ {
		lang, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		end := i + 1
		for end < len(lines) && lines[end] != "```" {
			end++
		}
		if end == len(lines) {
			return samples, append(problems, fmt.Sprintf("%d: code block is never closed", i+1))
		}
		marker := ""
		if i > 0 {
			if m := outputMarker.FindStringSubmatch(lines[i-1]); m != nil {
				marker = m[1]
			}
		}
		switch {
		case lang == "sh":
			samples = append(samples, shellSamples(lines, i+1, end)...)
		case marker != "":
			want := strings.Join(lines[i+1:end], "\n") + "\n"
			samples = append(samples, readmeSample{line: i, command: marker, want: want, wantFrom: i + 1, wantTo: end})
		case lang == "":
			problems = append(problems, fmt.Sprintf("%d: a block with no language and no output-of line: mark it as an illustration (```text) or as a sample", i+1))
		}
		i = end
	}
	return samples, problems
}

// shellSamples reads the commands of the sh block in lines[from:to].
func shellSamples(lines []string, from, to int) []readmeSample {
	var out []readmeSample
	for i := from; i < to; i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s := readmeSample{line: i + 1, command: line}
		if i > from {
			if m := exitComment.FindStringSubmatch(lines[i-1]); m != nil && strings.HasPrefix(lines[i-1], "#") {
				s.exit, _ = strconv.Atoi(m[1])
			}
		}
		j := i + 1
		var want []string
		for j < to && strings.HasPrefix(lines[j], "# ") {
			want = append(want, strings.TrimPrefix(lines[j], "# "))
			j++
		}
		if len(want) > 0 {
			s.want, s.wantFrom, s.wantTo, s.comments = strings.Join(want, "\n")+"\n", i+1, j, true
		}
		out = append(out, s)
		i = j - 1
	}
	return out
}

// rewriteSample puts got in place of the sample's expected output.
func rewriteSample(lines []string, s readmeSample, got string) []string {
	repl := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if s.comments {
		for i, l := range repl {
			repl[i] = strings.TrimRight("# "+l, " ")
		}
	}
	out := append([]string{}, lines[:s.wantFrom]...)
	out = append(out, repl...)
	return append(out, lines[s.wantTo:]...)
}

// runReadmeCommand runs one README command in-process.
// An -o FILE is written into outDir instead, so the test leaves no file
// behind.
func runReadmeCommand(command, outDir string) (stdout, stderr string, code int, err error) {
	words, err := shellWords(command)
	if err != nil {
		return "", "", 0, err
	}
	args, ok := cutPrefixWords(words, "go", "run", "./cmd/render")
	if !ok {
		return "", "", 0, fmt.Errorf("not a command this test can run (want go run ./cmd/render …)")
	}
	for i := 1; i < len(args); i++ {
		if args[i-1] == "-o" {
			args[i] = filepath.Join(outDir, filepath.Base(args[i]))
		}
	}
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), code, nil
}

func cutPrefixWords(words []string, prefix ...string) ([]string, bool) {
	if len(words) < len(prefix) {
		return nil, false
	}
	for i, p := range prefix {
		if words[i] != p {
			return nil, false
		}
	}
	return words[len(prefix):], true
}

// shellWords splits a command line on spaces, honouring single and
// double quotes; anything that needs a real shell is refused.
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case strings.ContainsRune("$|<>;&`\\*?()", r):
			return nil, fmt.Errorf("%q needs a shell; README commands must be plain", r)
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// TestREADMERules checks the reader of the README's samples on a small
// document, so a rule that stops matching cannot pass TestREADME vacuously.
func TestREADMERules(t *testing.T) {
	doc := strings.Split("intro\n"+
		"```sh\n"+
		"# a failing one, exit 1\n"+
		"go run ./cmd/render diff a b\n"+
		"# line one\n"+
		"#   line two\n"+
		"\n"+
		"go run ./cmd/render lint\n"+
		"```\n"+
		"<!-- output of: go run ./cmd/render help -->\n"+
		"```text\n"+
		"Usage:\n"+
		"```\n"+
		"```toml\n"+
		"a = 1\n"+
		"```\n"+
		"```\n"+
		"unmarked\n"+
		"```\n", "\n")
	samples, problems := readmeSamples(doc)
	require.Len(t, samples, 3)
	assert.Equal(t, readmeSample{line: 4, command: "go run ./cmd/render diff a b", exit: 1, want: "line one\n  line two\n", wantFrom: 4, wantTo: 6, comments: true}, samples[0])
	assert.Equal(t, readmeSample{line: 8, command: "go run ./cmd/render lint"}, samples[1])
	assert.Equal(t, readmeSample{line: 10, command: "go run ./cmd/render help", want: "Usage:\n", wantFrom: 11, wantTo: 12}, samples[2])
	assert.Equal(t, []string{"17: a block with no language and no output-of line: mark it as an illustration (```text) or as a sample"}, problems)

	rewritten := rewriteSample(doc, samples[0], "new\n")
	assert.Equal(t, "# new", rewritten[4])
	assert.Equal(t, "", rewritten[5])

	words, err := shellWords(`go run ./cmd/render -hook 'echo "hi"' x`)
	require.NoError(t, err)
	assert.Equal(t, []string{"go", "run", "./cmd/render", "-hook", `echo "hi"`, "x"}, words)
	for _, bad := range []string{"render | head", "render > out", "echo $HOME", "render 'open"} {
		_, err := shellWords(bad)
		assert.Error(t, err, bad)
	}
	_, _, _, err = runReadmeCommand("curl https://example.com", t.TempDir())
	assert.ErrorContains(t, err, "not a command this test can run")
}
