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

// The samples of the project's READMEs are run by TestREADME, so a stale
// one fails CI. The rules a README block follows:
//
//   - Fences are ``` at the start of a line, with at most one word after
//     them: the language.
//   - A ```sh block holds commands, one a line, run top to bottom (a later
//     command sees what an earlier one wrote). "go run ./cmd/render ARGS"
//     runs render in the repository root. "go test PKG… [-run NAME]
//     [-update]" (-race, -short and -v allowed too) and "git diff PATH"
//     are not run (a test cannot run the tests); their packages, test
//     names, flags and paths must exist, and
//     "go test -race ./..." in README.md must be what .ci/run runs.
//     "go build -o FILE PKG" must name a package, and "python3 SCRIPT" or
//     "node SCRIPT" a client that a test of this package runs. Any other
//     command fails the test, so nothing goes unchecked.
//   - A comment right above a command that says "exit N" gives its exit
//     status (default 0). Comment lines right below a command, with no
//     blank line between, are its whole stdout ("#" alone is an empty
//     line); a "# …" after a command on its line is a note.
//   - A block of any other language right after a line
//     "<!-- output of: go run ./cmd/render ARGS -->" is that command's
//     whole stdout.
//   - Other blocks must name a language other than sh (toml, go, text…):
//     they are illustrations, not samples.
//
// Paths under the repository root print as /path/to/sysprompt, HOME is an
// empty folder, as on a fresh machine, PATH holds only git, and every path under /tmp/ lies in
// a temporary folder of the test's, one per README. go test ./cmd/render
// -run TestREADME -update rewrites the expected outputs.

const readmeRoot = "/path/to/sysprompt"

// readmes are the files TestREADME checks, relative to the repository.
var readmes = []string{"README.md", "sections/README.md", "golden/README.md"}

var (
	outputMarker = regexp.MustCompile(`^<!-- output of: (.+) -->$`)
	exitComment  = regexp.MustCompile(`\bexit (\d)\b`)
)

// readmeSample is one command of a README and what it should print.
type readmeSample struct {
	line     int    // 1-based, of the command
	command  string // as written, without a trailing note
	exit     int
	want     string // the expected stdout
	wantFrom int    // 0-based line range of the expected output, to rewrite
	wantTo   int
	comments bool // the output is written as "# " comment lines
}

func TestREADME(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	t.Chdir(root)
	t.Setenv("HOME", t.TempDir())
	// Skills are gated on the binaries they need: the examples need git,
	// which every clone has, and whisper-cli, which the samples assume
	// missing. PATH holds a stand-in git and nothing else.
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\nexit 0\n"), 0o755))
	t.Setenv("PATH", bin)
	for _, name := range readmes {
		checkReadme(t, root, name)
	}
}

// checkReadme runs the samples of one README, rewriting its expected
// outputs with -update.
func checkReadme(t *testing.T, root, name string) {
	src, err := os.ReadFile(filepath.Join(root, name))
	require.NoError(t, err)
	lines := strings.Split(string(src), "\n")
	samples, problems := readmeSamples(lines)
	for _, p := range problems {
		t.Errorf("%s:%s", name, p)
	}
	tmp := t.TempDir()
	got := make([]string, len(samples))
	for i, s := range samples {
		out, err := runReadmeSample(root, name, tmp, s)
		if err != nil {
			t.Errorf("%s:%d: %s: %v", name, s.line, s.command, err)
			continue
		}
		out = strings.ReplaceAll(out, filepath.ToSlash(tmp), "/tmp")
		got[i] = strings.ReplaceAll(out, filepath.ToSlash(root), readmeRoot)
	}
	changed := false
	// Last first, so a rewrite never moves the lines of one still to come.
	for i := len(samples) - 1; i >= 0; i-- {
		s := samples[i]
		if s.wantTo == s.wantFrom || got[i] == s.want {
			continue
		}
		if *update {
			lines, changed = rewriteSample(lines, s, got[i]), true
			continue
		}
		assert.Equal(t, s.want, got[i], "%s:%d: output of %s (after a pack change, rewrite with go test -short ./golden ./cmd/render -update)", name, s.line, s.command)
	}
	if changed {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(strings.Join(lines, "\n")), 0o644))
	}
}

// runReadmeSample runs or checks one command and returns its stdout.
func runReadmeSample(root, readme, tmp string, s readmeSample) (string, error) {
	words, err := shellWords(s.command)
	if err != nil {
		return "", err
	}
	for i, w := range words {
		if rest, ok := strings.CutPrefix(w, "/tmp/"); ok {
			words[i] = filepath.Join(tmp, rest)
		}
	}
	if args, ok := cutPrefixWords(words, "go", "run", "./cmd/render"); ok {
		var out, errOut bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &errOut); code != s.exit {
			return "", fmt.Errorf("exit status %d, want %d; stderr:\n%s", code, s.exit, errOut.String())
		}
		return out.String(), nil
	}
	if readme == "README.md" && s.command == "go test -race ./..." {
		ci, err := os.ReadFile(filepath.Join(root, ".ci/run"))
		if err == nil && !regexp.MustCompile(`(?m)^go test -race \./\.\.\.$`).Match(ci) {
			err = fmt.Errorf(".ci/run does not run the README's test command")
		}
		return "", err
	}
	return "", checkNotRun(root, words)
}

// checkInstall checks a go install argument: this module's path, a
// package of it, and a version.
func checkInstall(root, arg string) error {
	target, version, ok := strings.Cut(arg, "@")
	if !ok || version == "" {
		return fmt.Errorf("go install %s: no @version", arg)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	module := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(string(mod), "\n", 2)[0], "module"))
	pkg, ok := strings.CutPrefix(target, module+"/")
	if !ok {
		return fmt.Errorf("go install %s: not a package of module %s", arg, module)
	}
	return checkPackageDir(root, "./"+pkg)
}

// checkNotRun checks a command the test cannot run: its packages, test
// names, flags and paths must exist.
func checkNotRun(root string, words []string) error {
	if args, ok := cutPrefixWords(words, "git", "diff"); ok && len(args) > 0 {
		for _, p := range args {
			if _, err := os.Stat(filepath.Join(root, p)); err != nil {
				return err
			}
		}
		return nil
	}
	if args, ok := cutPrefixWords(words, "go", "build", "-o"); ok && len(args) == 2 {
		return checkPackageDir(root, args[1])
	}
	if len(words) > 1 && (words[0] == "python3" || words[0] == "node") {
		return checkClientTested(root, words[1])
	}
	if args, ok := cutPrefixWords(words, "go", "install"); ok && len(args) == 1 {
		return checkInstall(root, args[0])
	}
	args, ok := cutPrefixWords(words, "go", "test")
	if !ok {
		return fmt.Errorf("not a command this test can run or check (go run ./cmd/render, go test, go build -o, go install, git diff, a tested client)")
	}
	var pkgs, tests []string
	var needUpdate bool
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-run" && i+1 < len(args):
			tests, i = append(tests, args[i+1]), i+1
		case a == "-update":
			needUpdate = true
		case a == "-race" || a == "-v" || a == "-short":
		case strings.HasPrefix(a, "./"):
			pkgs = append(pkgs, strings.TrimSuffix(a, "/..."))
		default:
			return fmt.Errorf("go test argument %q: the test knows no such flag", a)
		}
	}
	for _, pkg := range pkgs {
		src := testSources(filepath.Join(root, pkg))
		if src == "" {
			return fmt.Errorf("package %s has no tests", pkg)
		}
		for _, name := range tests {
			if !strings.Contains(src, "func "+name+"(") {
				return fmt.Errorf("package %s has no test %s", pkg, name)
			}
		}
		if needUpdate && !strings.Contains(src, `flag.Bool("update"`) {
			return fmt.Errorf("package %s has no -update flag", pkg)
		}
	}
	return nil
}

// checkPackageDir checks that pkg ("./cmd/render") is a folder of Go code.
func checkPackageDir(root, pkg string) error {
	if files, _ := filepath.Glob(filepath.Join(root, pkg, "*.go")); len(files) == 0 {
		return fmt.Errorf("%s holds no Go package", pkg)
	}
	return nil
}

// checkClientTested checks that a client script exists and that a test
// of this package runs it (TestPythonClient, TestNodeClient).
func checkClientTested(root, script string) error {
	if _, err := os.Stat(filepath.Join(root, script)); err != nil {
		return err
	}
	if !strings.Contains(testSources(filepath.Join(root, "cmd/render")), `"../../`+script+`"`) {
		return fmt.Errorf("no test in cmd/render runs %s", script)
	}
	return nil
}

// testSources is the text of the _test.go files in dir.
func testSources(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	var b strings.Builder
	for _, f := range files {
		src, _ := os.ReadFile(f)
		b.Write(src)
	}
	return b.String()
}

// readmeSamples finds every command and output sample in a README's
// lines, and the blocks that break the rules above.
func readmeSamples(lines []string) (samples []readmeSample, problems []string) {
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimLeft(lines[i], " \t")
		if strings.HasPrefix(trimmed, "~~~") || (strings.HasPrefix(trimmed, "```") && trimmed != lines[i]) {
			problems = append(problems, fmt.Sprintf("%d: use a ``` fence at the start of the line, so the sample is checked", i+1))
			continue
		}
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
		case strings.ContainsAny(lang, " \t"):
			problems = append(problems, fmt.Sprintf("%d: one word after a fence, the language", i+1))
		case lang == "sh":
			samples = append(samples, shellSamples(lines, i+1, end)...)
		case lang == "bash" || lang == "shell" || lang == "console":
			problems = append(problems, fmt.Sprintf("%d: write commands in a ```sh block", i+1))
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
		if note := strings.Index(line, " # "); note >= 0 {
			s.command = strings.TrimSpace(line[:note])
		}
		if i > from {
			if m := exitComment.FindStringSubmatch(lines[i-1]); m != nil && strings.HasPrefix(lines[i-1], "#") {
				s.exit, _ = strconv.Atoi(m[1])
			}
		}
		j := i + 1
		var want []string
		for ; j < to && (lines[j] == "#" || strings.HasPrefix(lines[j], "# ")); j++ {
			want = append(want, strings.TrimPrefix(strings.TrimPrefix(lines[j], "#"), " "))
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

// TestREADMERules checks the reader of the README samples on a small
// document, so a rule that stops matching cannot pass TestREADME vacuously.
func TestREADMERules(t *testing.T) {
	doc := strings.Split("intro\n"+
		"```sh\n"+
		"# a failing one, exit 1\n"+
		"go run ./cmd/render diff a b\n"+
		"# line one\n"+
		"#\n"+
		"#   line three\n"+
		"\n"+
		"go run ./cmd/render lint # a note\n"+
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
		"```\n"+
		"~~~sh\n"+
		"  ```sh\n"+
		"```sh title=x\n"+
		"```\n"+
		"```bash\n"+
		"```\n", "\n")
	samples, problems := readmeSamples(doc)
	require.Len(t, samples, 3)
	assert.Equal(t, readmeSample{line: 4, command: "go run ./cmd/render diff a b", exit: 1, want: "line one\n\n  line three\n", wantFrom: 4, wantTo: 7, comments: true}, samples[0])
	assert.Equal(t, readmeSample{line: 9, command: "go run ./cmd/render lint"}, samples[1])
	assert.Equal(t, readmeSample{line: 11, command: "go run ./cmd/render help", want: "Usage:\n", wantFrom: 12, wantTo: 13}, samples[2])
	assert.Equal(t, []string{
		"18: a block with no language and no output-of line: mark it as an illustration (```text) or as a sample",
		"21: use a ``` fence at the start of the line, so the sample is checked",
		"22: use a ``` fence at the start of the line, so the sample is checked",
		"23: one word after a fence, the language",
		"25: write commands in a ```sh block",
	}, problems)

	// A rewrite reads back as what was written, blank lines included.
	rewritten := rewriteSample(doc, samples[0], "new\n\nend\n")
	again, _ := readmeSamples(rewritten)
	assert.Equal(t, "new\n\nend\n", again[0].want)
	assert.Equal(t, "#", rewritten[5])

	words, err := shellWords(`go run ./cmd/render -hook 'echo "hi"' x`)
	require.NoError(t, err)
	assert.Equal(t, []string{"go", "run", "./cmd/render", "-hook", `echo "hi"`, "x"}, words)
	for _, bad := range []string{"render | head", "render > out", "echo $HOME", "render 'open", "a \\"} {
		_, err := shellWords(bad)
		assert.Error(t, err, bad)
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	for cmd, want := range map[string]string{
		"curl https://example.com":          "not a command this test can run or check",
		"go test ./golden -run TestNothing": "package ./golden has no test TestNothing",
		"go test ./vfs -update":             "package ./vfs has no -update flag",
		"go test ./golden -count 2":         `go test argument "-count"`,
		"git diff no/such/path":             "no such file",
	} {
		_, err := runReadmeSample(root, "x.md", t.TempDir(), readmeSample{command: cmd})
		assert.ErrorContains(t, err, want, cmd)
	}
	_, err = runReadmeSample(root, "x.md", t.TempDir(), readmeSample{command: "go test ./golden -run TestSnapshots -update"})
	assert.NoError(t, err)
}
