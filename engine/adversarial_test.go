package engine_test

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf8"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/skills"
	"github.com/sysprompt/sysprompt/vfs"
)

// The tests in this file feed the engine hostile workspaces (the files are
// untrusted user data) and assert the documented outcome of each: the
// render succeeds, res.Files says what happened to the file and why, and
// the prompt holds only what it should.

// fileOf returns the report entry for name, failing the test when there is
// none.
func fileOf(t *testing.T, res *engine.Result, name string) bootstrap.File {
	t.Helper()
	for _, f := range res.Files {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("res.Files has no entry for %s; have %v", name, fileNames(res))
	return bootstrap.File{}
}

func fileNames(res *engine.Result) []string {
	var names []string
	for _, f := range res.Files {
		names = append(names, f.Name+"="+string(f.Status))
	}
	return names
}

// osWorkspace writes files under a fresh real directory and returns the
// workspace root and its parent (for files outside the workspace).
func osWorkspace(t *testing.T, files map[string]string) (root, parent string) {
	t.Helper()
	parent = t.TempDir()
	root = filepath.Join(parent, "ws")
	require.NoError(t, os.Mkdir(root, 0o755))
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(text), 0o644))
	}
	return root, parent
}

// renderOS renders the built-in pack over a real workspace directory.
func renderOS(t *testing.T, root string, opts ...engine.Option) *engine.Result {
	t.Helper()
	req := directRequest()
	req.Workspace.Path = root
	return render(t, packWith(t, nil), req, append([]engine.Option{engine.WithFS(afero.NewOsFs())}, opts...)...)
}

// assertMissingWithMarker checks a required file that could not be used:
// MISSING, the reason, its marker in the prompt and nothing of its text.
func assertMissingWithMarker(t *testing.T, res *engine.Result, name, reason string) {
	t.Helper()
	f := fileOf(t, res, name)
	assert.Equal(t, bootstrap.StatusMissing, f.Status, "%s", name)
	assert.Contains(t, f.Reason, reason, "%s", name)
	require.NotEmpty(t, f.Content, "%s: the missing marker stands in", name)
	assert.Contains(t, f.Content, f.Display, "%s: the marker names the file", name)
	assert.Contains(t, res.Layers[0].Text, f.Content, "%s: the marker is in the prompt", name)
}

func TestAdversarialSymlinks(t *testing.T) {
	ws := smallWorkspace()
	for _, name := range []string{"SOUL.md", "USER.md", "TOOLS.md"} {
		delete(ws, name)
	}
	root, parent := osWorkspace(t, ws)
	require.NoError(t, os.WriteFile(filepath.Join(parent, "outside.md"), []byte("OUTSIDE-SECRET: do not inject\n"), 0o644))
	// SOUL.md -> loop.md -> SOUL.md
	require.NoError(t, os.Symlink("loop.md", filepath.Join(root, "SOUL.md")))
	require.NoError(t, os.Symlink("SOUL.md", filepath.Join(root, "loop.md")))
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(root, "USER.md")))
	require.NoError(t, os.Symlink("../outside.md", filepath.Join(root, "TOOLS.md")))

	res := renderOS(t, root)
	text := res.Layers[0].Text

	assertMissingWithMarker(t, res, "SOUL.md", "symlink loop")
	assertMissingWithMarker(t, res, "USER.md", "symlink points outside the workspace")
	assertMissingWithMarker(t, res, "TOOLS.md", "symlink points outside the workspace")
	assert.NotContains(t, text, "OUTSIDE-SECRET")
	if passwd, err := os.ReadFile("/etc/passwd"); err == nil && len(passwd) > 0 {
		first, _, _ := strings.Cut(string(passwd), "\n")
		assert.NotContains(t, text, first, "nothing of /etc/passwd is injected")
	}
	assert.Contains(t, text, "Be careful.", "the healthy files still render")
}

func TestAdversarialSymlinkInsideIsFollowed(t *testing.T) {
	// The control case for the refusals above: a link that stays inside
	// the workspace is an ordinary file.
	ws := smallWorkspace()
	delete(ws, "SOUL.md")
	root, _ := osWorkspace(t, ws)
	require.NoError(t, os.Mkdir(filepath.Join(root, "personas"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "personas", "calm.md"), []byte("Calm persona.\n"), 0o644))
	require.NoError(t, os.Symlink("personas/../personas/calm.md", filepath.Join(root, "SOUL.md")))

	res := renderOS(t, root)
	assert.Equal(t, bootstrap.StatusOK, fileOf(t, res, "SOUL.md").Status)
	assert.Contains(t, res.Layers[0].Stable, "Calm persona.")
}

func TestAdversarialDirectoryNamedLikeAFile(t *testing.T) {
	ws := smallWorkspace()
	delete(ws, "AGENTS.md")
	fsys := workspaceFS(t, ws)
	require.NoError(t, fsys.MkdirAll("/ws/AGENTS.md/nested", 0o755))
	require.NoError(t, afero.WriteFile(fsys, "/ws/AGENTS.md/nested/x.md", []byte("INSIDE-DIR"), 0o644))

	res := render(t, packWith(t, nil), directRequest(), engine.WithFS(fsys))
	assertMissingWithMarker(t, res, "AGENTS.md", bootstrap.ReasonDirectory)
	assert.NotContains(t, res.Layers[0].Text, "INSIDE-DIR")
}

func TestAdversarialUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: mode 000 does not stop root from reading, so there is no unreadable file to test")
	}
	ws := smallWorkspace()
	ws["SOUL.md"] = "SECRET-SOUL\n"
	root, _ := osWorkspace(t, ws)
	require.NoError(t, os.Chmod(filepath.Join(root, "SOUL.md"), 0))
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(root, "SOUL.md"), 0o644) })

	res := renderOS(t, root)
	assertMissingWithMarker(t, res, "SOUL.md", "permission denied")
	assert.NotContains(t, res.Layers[0].Text, "SECRET-SOUL")
}

func TestAdversarialBinaryFile(t *testing.T) {
	ws := smallWorkspace()
	ws["TOOLS.md"] = "BINARY-HEAD\x00\x01\x02ELF tail"
	res := render(t, packWith(t, nil), directRequest(), engine.WithFS(workspaceFS(t, ws)))
	text := res.Layers[0].Text

	f := fileOf(t, res, "TOOLS.md")
	assert.Equal(t, bootstrap.StatusSkipped, f.Status)
	assert.Equal(t, bootstrap.ReasonBinary, f.Reason)
	assert.Zero(t, f.RawChars)
	require.NotEmpty(t, f.Content, "the binary marker stands in")
	assert.Contains(t, f.Content, f.Display)
	assert.Contains(t, text, f.Content)
	assert.NotContains(t, text, "BINARY-HEAD")
	assert.NotContains(t, text, "\x00")
}

func TestAdversarialInvalidUTF8(t *testing.T) {
	ws := smallWorkspace()
	ws["SOUL.md"] = "good \xff\xfe bad \xe2\x82 cut € end\n"
	res := render(t, packWith(t, nil), directRequest(), engine.WithFS(workspaceFS(t, ws)))
	text := res.Layers[0].Text

	assert.True(t, utf8.ValidString(text), "the prompt is valid UTF-8")
	f := fileOf(t, res, "SOUL.md")
	assert.Equal(t, bootstrap.StatusOK, f.Status)
	// One U+FFFD per invalid byte, as Go's []rune conversion does.
	assert.Equal(t, "good \uFFFD\uFFFD bad \uFFFD\uFFFD cut € end", f.Content)
	assert.Contains(t, text, f.Content)
}

func TestAdversarialCRLF(t *testing.T) {
	ws := map[string]string{}
	for name, text := range smallWorkspace() {
		ws[name] = strings.ReplaceAll(text, "\n", "\r\n") + "second line\r\n\r\n"
	}
	res := render(t, packWith(t, nil), directRequest(), engine.WithFS(workspaceFS(t, ws)))
	for _, l := range res.Layers {
		assert.NotContains(t, l.Text, "\r\n", "layer %s holds a CRLF", l.Name)
		assert.NotContains(t, l.Text, "\r", "layer %s holds a CR", l.Name)
	}
	assert.Contains(t, res.Layers[0].Stable, "Warm", "a file is still injected")
	assert.Contains(t, res.Layers[0].Dynamic, "check the inbox\nsecond line")
}

// huge makes TestAdversarialHugeFile write its text file at the full
// 2 GiB, more bytes than an int32 counts, as every run used to:
//
//	go test ./engine -run TestAdversarialHugeFile -huge
//
// (name the package: the other packages' tests do not know the flag.)
// By default the text is 64 MiB (16 MiB under -race), which takes the same
// streaming path and is still hundreds of times every budget.
var huge = flag.Bool("huge", false, "TestAdversarialHugeFile: write a 2 GiB text file (slow, needs 2 GiB of disk)")

// TestAdversarialHugeFile reads huge files from a real directory: the read
// is streamed, so the render holds a few budgets' worth of text, not the
// file.
func TestAdversarialHugeFile(t *testing.T) {
	const sparseSize = 2 << 30 // a sparse file costs no disk, so always the full size

	t.Run("sparse", func(t *testing.T) {
		// A hole reads as NUL bytes, so a sparse file is binary, as any file holding NUL is:
		// the reader stops at the first NUL and the file is not injected.
		root, _ := osWorkspace(t, smallWorkspace())
		f, err := os.Create(filepath.Join(root, "MEMORY.md"))
		require.NoError(t, err)
		_, err = f.WriteString("SPARSE-HEAD\n")
		require.NoError(t, err)
		require.NoError(t, f.Truncate(sparseSize))
		require.NoError(t, f.Close())

		res, growth := renderMeasured(t, root)
		m := fileOf(t, res, "MEMORY.md")
		assert.Equal(t, bootstrap.StatusSkipped, m.Status)
		assert.Equal(t, bootstrap.ReasonBinary, m.Reason)
		assert.NotContains(t, res.Layers[0].Text, "SPARSE-HEAD")
		assert.Less(t, growth, uint64(64<<20))
	})

	// 64 MiB is over 3,000 times the per-file budget (20,000 characters),
	// 1,000 times the total one and 2,000 read buffers (32 KiB), so the
	// file goes through the same streaming loop as a 2 GiB one. The race
	// detector slows that loop to 20 MB/s or less (a 256 MiB render took
	// 44 s on a busy 2-core machine), so a -race run streams 16 MiB, still
	// 512 read buffers.
	size := 64 << 20
	if raceEnabled {
		size = 16 << 20
	}
	if *huge {
		size = 2 << 30
	}
	// A render that held the file would allocate at least size bytes; the
	// bound stays well under that for the small sizes.
	maxGrowth := uint64(min(64<<20, size/4))

	t.Run("text", func(t *testing.T) {
		if testing.Short() {
			t.Skipf("writes %d MiB to the temp dir", size>>20)
		}
		// Text written in full: it must be counted by streaming and
		// injected TRUNCATED.
		root, _ := osWorkspace(t, smallWorkspace())
		writeHugeText(t, filepath.Join(root, "MEMORY.md"), size)

		res, growth := renderMeasured(t, root)
		m := fileOf(t, res, "MEMORY.md")
		assert.Equal(t, bootstrap.StatusTruncated, m.Status)
		assert.Equal(t, []bootstrap.Cause{bootstrap.CausePerFile}, m.Causes)
		assert.LessOrEqual(t, m.InjectedChars, res.Settings.BootstrapMaxChars)
		assert.Equal(t, utf8.RuneCountInString(m.Content), m.InjectedChars)
		assert.Greater(t, m.RawChars, size/2, "raw size counted over the whole file")
		assert.True(t, strings.HasPrefix(m.Content, "HUGE-HEAD"), "keeps the head")
		assert.True(t, strings.HasSuffix(m.Content, "HUGE-TAIL"), "keeps the tail")
		assert.Contains(t, res.Layers[0].Stable, m.Content)
		assert.True(t, utf8.ValidString(res.Layers[0].Text))
		assert.Less(t, growth, maxGrowth)
	})
}

// writeHugeText writes size bytes of text (with multi-byte characters)
// starting with HUGE-HEAD and ending with HUGE-TAIL.
func writeHugeText(t *testing.T, name string, size int) {
	t.Helper()
	start := time.Now()
	head, tail := "HUGE-HEAD\n", "\nHUGE-TAIL\n"
	line := "a memory line with ünïcødé and € signs, long enough to matter\n"
	chunk := []byte(strings.Repeat(line, (1<<20)/len(line))) // whole lines only
	f, err := os.Create(name)
	require.NoError(t, err)
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	body := size - len(head) - len(tail)
	_, err = w.WriteString(head)
	require.NoError(t, err)
	for ; body >= len(chunk); body -= len(chunk) {
		_, err = w.Write(chunk)
		require.NoError(t, err)
	}
	_, err = w.WriteString(strings.Repeat("x", body) + tail)
	require.NoError(t, err)
	require.NoError(t, w.Flush())
	t.Logf("wrote %d MiB in %v", size>>20, time.Since(start).Round(time.Millisecond))
}

// renderMeasured renders over root and returns the result with the bytes
// allocated during the render, an upper bound on its peak heap growth.
func renderMeasured(t *testing.T, root string) (*engine.Result, uint64) {
	t.Helper()
	req := directRequest()
	req.Workspace.Path = root
	e, err := engine.New(packWith(t, nil), engine.WithFS(afero.NewOsFs()))
	require.NoError(t, err)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	res, err := e.Render(context.Background(), req)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	growth := after.TotalAlloc - before.TotalAlloc
	t.Logf("render took %v; allocated %.1f MiB during it (bound on peak heap growth); HeapAlloc %.1f -> %.1f MiB",
		took.Round(time.Millisecond), mib(growth), mib(before.HeapAlloc), mib(after.HeapAlloc))
	return res, growth
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }

// A skills folder of 10,000 skills is read only up to the per-root bound
// of 1,000 entries, and the result says the search was cut.
func TestAdversarialManySkills(t *testing.T) {
	const n, bound = 10000, 1000
	fsys := workspaceFS(t, smallWorkspace())
	for i := range n {
		body := "---\nname: skill-" + pad5(i) + "\ndescription: Does task " + pad5(i) +
			" <script>alert(1)</script> & more, with a description long enough to weigh on the budget.\n---\nSteps.\n"
		require.NoError(t, afero.WriteFile(fsys, "/ws/skills/skill-"+pad5(i)+"/SKILL.md", []byte(body), 0o644))
	}
	e, err := engine.New(packWith(t, nil), engine.WithFS(fsys))
	require.NoError(t, err)
	for _, pass := range []string{"cold", "warm"} {
		start := time.Now()
		res, err := e.Render(context.Background(), directRequest())
		require.NoError(t, err)
		t.Logf("%s render with %d skill folders took %v", pass, n, time.Since(start).Round(time.Millisecond))

		cat := res.Skills
		assert.Equal(t, bound, cat.Found)
		assert.Equal(t, bound, cat.Eligible)
		assert.Equal(t, []skills.Cut{{Root: "/ws/skills", Reason: "search stopped: at most 1000 entries are read per skills folder"}}, cat.Cuts)
		assert.Empty(t, cat.Problems)
		assert.Empty(t, cat.Warnings)
		assert.Positive(t, cat.Listed)
		assert.LessOrEqual(t, cat.Listed, res.Settings.MaxSkillsInPrompt)
		assert.Len(t, cat.Skills, cat.Listed)
		assert.NotEmpty(t, cat.Note, "the catalog says how many of how many are listed")

		stable := res.Layers[0].Stable
		assert.NotContains(t, stable, "<script>", "descriptions are XML-escaped")
		catalog := catalogText(t, stable)
		assert.LessOrEqual(t, utf8.RuneCountInString(catalog), res.Settings.MaxSkillsPromptChars,
			"the catalog fits maxSkillsPromptChars")
		assert.Equal(t, cat.Listed, strings.Count(catalog, "<skill>"))
		assert.Contains(t, catalog, "<name>skill-00000</name>", "sorted by name")
	}
}

// catalogText cuts the <available_skills> block and its note out of text.
func catalogText(t *testing.T, text string) string {
	t.Helper()
	start := strings.Index(text, "<available_skills>")
	require.GreaterOrEqual(t, start, 0, "no catalog in the prompt")
	const closing = "</available_skills>"
	end := strings.Index(text[start:], closing)
	require.GreaterOrEqual(t, end, 0, "catalog not closed")
	end += start + len(closing)
	if rest, ok := strings.CutPrefix(text[end:], "\nNote: "); ok {
		line, _, _ := strings.Cut(rest, "\n")
		end += len("\nNote: ") + len(line)
	}
	return text[start:end]
}

func pad5(i int) string { return fmt.Sprintf("%05d", i) }

// mutatingFs changes one file's data underneath a reader: after the first
// Read of name, mutate runs against the underlying filesystem, as another
// process writing the file would. err is what mutate returned.
type mutatingFs struct {
	afero.Fs
	name   string
	mutate func(fsys afero.Fs, name string) error
	err    error
}

func (m *mutatingFs) Open(name string) (afero.File, error) {
	f, err := m.Fs.Open(name)
	if err != nil || name != m.name {
		return f, err
	}
	return &mutatingFile{File: f, fs: m}, nil
}

type mutatingFile struct {
	afero.File
	fs   *mutatingFs
	done bool
}

func (f *mutatingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	if !f.done {
		f.done = true
		f.fs.err = f.fs.mutate(f.fs.Fs, f.fs.name)
	}
	return n, err
}

func TestAdversarialFileChangesWhileRead(t *testing.T) {
	euros := strings.Repeat("€", 400<<10/3) // 3-byte runes, about 400 KiB
	appendText := func(text string) func(afero.Fs, string) error {
		return func(fsys afero.Fs, name string) error {
			w, err := fsys.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return err
			}
			defer w.Close()
			_, err = w.Write([]byte(text))
			return err
		}
	}
	truncateTo := func(size int64) func(afero.Fs, string) error {
		return func(fsys afero.Fs, name string) error {
			w, err := fsys.OpenFile(name, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer w.Close()
			return w.Truncate(size)
		}
	}
	cases := []struct {
		name    string
		initial string
		mutate  func(afero.Fs, string) error
		status  bootstrap.Status
	}{
		// Stat says 1 KiB, the reader finds 400 KiB more.
		{"grows", strings.Repeat("x", 1024), appendText(euros + "GROWN-TAIL"), bootstrap.StatusTruncated},
		// Stat says 400 KiB; after the first 32 KiB read the file is cut
		// to 64 KiB plus one byte, mid-character.
		{"shrinks", euros, truncateTo(64<<10 + 1), bootstrap.StatusTruncated},
		// Cut below what was already read: the reader sees an error, the
		// file is reported, the render goes on.
		{"shrinks below the read offset", euros, truncateTo(10), bootstrap.StatusMissing},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := smallWorkspace()
			ws["SOUL.md"] = c.initial
			fsys := &mutatingFs{Fs: workspaceFS(t, ws), name: "/ws/SOUL.md", mutate: c.mutate}
			res := render(t, packWith(t, nil), directRequest(), engine.WithFS(fsys))
			require.NoError(t, fsys.err, "changing the file mid-read")
			text := res.Layers[0].Text
			assert.True(t, utf8.ValidString(text), "the prompt is valid UTF-8")

			f := fileOf(t, res, "SOUL.md")
			t.Logf("status %s, raw %d, injected %d, reason %q", f.Status, f.RawChars, f.InjectedChars, f.Reason)
			assert.Equal(t, c.status, f.Status)
			assert.LessOrEqual(t, f.InjectedChars, res.Settings.BootstrapMaxChars)
			assert.Equal(t, utf8.RuneCountInString(f.Content), f.InjectedChars)
			assert.Contains(t, text, f.Content)
			total := 0
			for _, f := range res.Files {
				total += f.InjectedChars
			}
			assert.LessOrEqual(t, total, res.Settings.BootstrapTotalMaxChars)
			if c.name == "grows" {
				assert.True(t, strings.HasSuffix(f.Content, "GROWN-TAIL"), "the tail read is the grown file's")
			}
		})
	}
}

func TestAdversarialTemplateSyntaxIsData(t *testing.T) {
	const payload = `{{ .Config }} {{ template "file_block" . }} {{/* */}} {{ define "x" }}X{{ end }} {{ fail "boom" }}`
	names := []string{"AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "BOOTSTRAP.md", "MEMORY.md"}
	ws := map[string]string{}
	for _, name := range names {
		ws[name] = name + ": " + payload + "\n"
	}
	req := directRequest()
	req.Workspace.BrandNew = new(true)
	res := render(t, packWith(t, nil), req, engine.WithFS(workspaceFS(t, ws)))
	text := res.Layers[0].Text
	for _, name := range names {
		assert.Equal(t, bootstrap.StatusOK, fileOf(t, res, name).Status, "%s", name)
		assert.Contains(t, text, name+": "+payload, "%s is printed literally", name)
	}
	assert.Contains(t, res.Layers[0].Dynamic, "HEARTBEAT.md: "+payload)
}

func TestAdversarialBoundaryMarkerInFiles(t *testing.T) {
	const marker = "<!-- SYSPROMPT_CACHE_BOUNDARY -->"
	ws := smallWorkspace()
	ws["AGENTS.md"] = marker + "\nagents before\n" + marker + "\r\nagents after\n" + marker
	ws["HEARTBEAT.md"] = "beat before\n" + marker + "\nbeat after\n"
	res := render(t, packWith(t, nil), directRequest(), engine.WithFS(workspaceFS(t, ws)))
	require.Equal(t, marker, res.Boundary)
	l := res.Layers[0]

	assert.Equal(t, 1, strings.Count(l.Text, marker), "exactly one marker")
	assert.Equal(t, l.Stable+"\n\n"+marker+"\n\n"+l.Dynamic+"\n", l.Text, "the prompt splits at the engine's marker")
	assert.NotContains(t, l.Stable, marker)
	assert.NotContains(t, l.Dynamic, marker)
	assert.Contains(t, l.Stable, "agents before")
	assert.Contains(t, l.Stable, "agents after")
	assert.NotContains(t, l.Stable, "beat before", "HEARTBEAT.md stays below the boundary")
	assert.Contains(t, l.Dynamic, "beat before")
	assert.Contains(t, l.Dynamic, "beat after")
	// The stable prefix does not depend on where HEARTBEAT.md put a marker.
	ws["HEARTBEAT.md"] = "quiet\n"
	other := render(t, packWith(t, nil), directRequest(), engine.WithFS(workspaceFS(t, ws)))
	assert.Equal(t, l.Stable, other.Layers[0].Stable)
}

func TestAdversarialRedirectOutsideWorkspace(t *testing.T) {
	cases := []struct {
		name, target, reason string
	}{
		{"parent", "../../etc/passwd", "path escapes the workspace"},
		{"absolute", "/etc/passwd", "absolute path"},
		{"dot-dot after a folder", "personas/../../x.md", "path escapes the workspace"},
		{"backslashes", `..\..\etc\passwd`, "path escapes the workspace"},
	}
	for _, c := range cases {
		t.Run("replace/"+c.name, func(t *testing.T) {
			cfg, err := config.Parse("agents.toml", []byte("[bootstrap.replace]\n\"SOUL.md\" = '"+c.target+"'\n"))
			require.NoError(t, err)
			// A config mistake, refused as the engine is made, at its line.
			_, err = engine.New(packWith(t, nil), engine.WithFS(workspaceFS(t, smallWorkspace())), engine.WithConfig(cfg))
			require.ErrorAs(t, err, new(*vfs.RefusedError))
			ee, ok := errors.AsType[*engine.Error](err)
			require.True(t, ok, "%T", err)
			assert.Equal(t, engine.PhaseConfig, ee.Phase)
			assert.Equal(t, "agents.toml:2:1: [bootstrap.replace] \"SOUL.md\": path "+strconv.Quote(c.target)+" refused: "+c.reason, err.Error())
		})
		t.Run("hook/"+c.name, func(t *testing.T) {
			hook := func(_ context.Context, ev bootstrap.Event) ([]bootstrap.Entry, error) {
				return append(ev.Files, bootstrap.Entry{Name: "EXTRA.md", Path: c.target}), nil
			}
			e, err := engine.New(packWith(t, nil), engine.WithFS(workspaceFS(t, smallWorkspace())), engine.WithBootstrapHook(hook))
			require.NoError(t, err)
			_, err = e.Render(context.Background(), directRequest())
			assertRefused(t, err, c.target)
		})
	}

	// A redirect to an in-workspace symlink that leaves the root is
	// refused the same way once resolved.
	t.Run("replace/symlink out", func(t *testing.T) {
		root, _ := osWorkspace(t, smallWorkspace())
		require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(root, "pirate.md")))
		cfg, err := config.Parse("agents.toml", []byte("[bootstrap.replace]\n\"SOUL.md\" = \"pirate.md\"\n"))
		require.NoError(t, err)
		req := directRequest()
		req.Workspace.Path = root
		e, err := engine.New(packWith(t, nil), engine.WithFS(afero.NewOsFs()), engine.WithConfig(cfg))
		require.NoError(t, err)
		_, err = e.Render(context.Background(), req)
		assertRefused(t, err, "pirate.md")
	})
}

// assertRefused checks a render error for a path the user redirected
// outside the workspace: typed, one line, naming the path.
func assertRefused(t *testing.T, err error, path string) {
	t.Helper()
	require.Error(t, err)
	var refused *vfs.RefusedError
	assert.True(t, errors.As(err, &refused), "want a *vfs.RefusedError, got %T: %v", err, err)
	var ee *engine.Error
	if assert.True(t, errors.As(err, &ee), "want an *engine.Error, got %T", err) {
		assert.Equal(t, engine.PhaseWorkspace, ee.Phase)
	}
	assert.Contains(t, err.Error(), strconv.Quote(path), "the error names the path")
	assert.NotContains(t, err.Error(), "\n")
}

// A wrapper over the real disk other than vfs.OS would read workspaces
// by checking and then opening, so New refuses it with the way out; the
// disk itself, and filesystems that are not the disk, are taken.
func TestWrappedDiskIsRefused(t *testing.T) {
	for name, fsys := range map[string]afero.Fs{
		"read-only":           afero.NewReadOnlyFs(afero.NewOsFs()),
		"base path":           afero.NewBasePathFs(afero.NewOsFs(), t.TempDir()),
		"read-only base path": afero.NewReadOnlyFs(afero.NewBasePathFs(afero.NewOsFs(), t.TempDir())),
	} {
		_, err := engine.New(packWith(t, nil), engine.WithFS(fsys))
		assert.ErrorContains(t, err, "reads the real disk through a wrapper", name)
		assert.ErrorContains(t, err, "use vfs.OS() or vfs.OSAt(dir)", name)
		_, err = engine.New(packWith(t, nil), engine.WithSkillHost(engine.SkillHost{FS: fsys}))
		assert.ErrorContains(t, err, "reads the real disk through a wrapper", name)
	}
	for name, fsys := range map[string]afero.Fs{"OS": vfs.OS(), "OSAt": vfs.OSAt(t.TempDir()), "OsFs": afero.NewOsFs(), "memory": afero.NewMemMapFs(), "read-only memory": afero.NewReadOnlyFs(afero.NewMemMapFs())} {
		_, err := engine.New(packWith(t, nil), engine.WithFS(fsys))
		assert.NoError(t, err, name)
	}
}

// TestAdversarialShortBoundaryInFileBudget: a pack whose boundary marker is
// shorter than what the prompt prints in its place still keeps every
// workspace file, as printed, within its budget.
func TestAdversarialShortBoundaryInFileBudget(t *testing.T) {
	const marker = "<!--B-->"
	p := packWith(t, nil)
	m := p.(fstest.MapFS)
	text := string(m["sections/manifest.toml"].Data)
	text = regexp.MustCompile(`(?m)^boundary = .*$`).ReplaceAllString(text, `boundary = "`+marker+`"`)
	addFile(p, "sections/manifest.toml", text)
	setDefault(t, p, "max_chars", "300")
	ws := smallWorkspace()
	for _, body := range []string{
		strings.Repeat("x", 274) + strings.Repeat(marker, 3) + "yy", // 300 as read, fits only as read
		strings.Repeat(marker, 100),                                 // cut, and every kept marker grows
	} {
		ws["AGENTS.md"] = body
		res := render(t, p, directRequest(), engine.WithFS(workspaceFS(t, ws)))
		require.Equal(t, marker, res.Boundary)
		f := res.Files[0]
		require.Equal(t, "AGENTS.md", f.Name)
		printed := strings.ReplaceAll(f.Content, marker, engine.BoundaryRemoved)
		assert.Equal(t, utf8.RuneCountInString(printed), f.InjectedChars)
		assert.LessOrEqual(t, f.InjectedChars, 300, "as printed: %q", printed)
		assert.Contains(t, res.Layers[0].Stable, printed)
		assert.Greater(t, f.InjectedChars, 250, "the budget is used, not given up: %q", printed)
		assert.Equal(t, bootstrap.StatusTruncated, f.Status)
		assert.Equal(t, []bootstrap.Cause{bootstrap.CausePerFile}, f.Causes)
	}
}
