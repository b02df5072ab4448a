package bootstrap

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/vfs"
)

type testMarkers struct{}

func (testMarkers) Missing(display string) string { return "[MISSING] Expected at: " + display }
func (testMarkers) Truncated(display string, kept, raw int) string {
	return fmt.Sprintf("\n[...%s: kept %d of %d...]\n", display, kept, raw)
}
func (testMarkers) Binary(display string) string { return "[BINARY] " + display }

// memWorkspace writes files under "ws" in a MemMapFs.
func memWorkspace(t testing.TB, files map[string]string) (afero.Fs, *vfs.Workspace) {
	t.Helper()
	fsys := afero.NewMemMapFs()
	for name, body := range files {
		if body == dirMark {
			require.NoError(t, fsys.MkdirAll("ws/"+name, 0o755))
			continue
		}
		require.NoError(t, afero.WriteFile(fsys, "ws/"+name, []byte(body), 0o644))
	}
	ws := vfs.OpenWorkspace(fsys, "ws")
	t.Cleanup(func() { ws.Close() })
	return fsys, ws
}

const dirMark = "\x00dir" // memWorkspace makes a directory for this body

// testOptions returns the options the product renders with (the file
// lists and budgets of templates/defaults.toml) and test markers, changed
// by edits.
func testOptions(edits ...func(*Options)) Options {
	opts := Options{
		Files: []string{"AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md",
			"HEARTBEAT.md", "BOOTSTRAP.md", "MEMORY.md", "memory.md"},
		Optional:      []string{"HEARTBEAT.md", "BOOTSTRAP.md", "MEMORY.md", "memory.md"},
		DynamicFiles:  []string{"HEARTBEAT.md"},
		SubagentFiles: []string{"AGENTS.md", "TOOLS.md"},
		CronFiles:     []string{"AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md"},
		Private:       []string{"MEMORY.md", "memory.md", "memory/"},
		MaxChars:      20000,
		TotalMaxChars: 60000,
		Markers:       testMarkers{},
	}
	for _, edit := range edits {
		edit(&opts)
	}
	return opts
}

func mustLoad(t testing.TB, ws *vfs.Workspace, opts Options) Result {
	t.Helper()
	res, err := Load(context.Background(), ws, opts)
	require.NoError(t, err)
	return res
}

// outline lists each file as "name status[ reason]" for compact assertions.
func outline(res Result) []string {
	var out []string
	for _, f := range res.Files {
		s := f.Name + " " + string(f.Status)
		if f.Reason != "" {
			s += " (" + f.Reason + ")"
		}
		if f.Dynamic {
			s += " dynamic"
		}
		out = append(out, s)
	}
	return out
}

func allFiles() map[string]string {
	files := map[string]string{}
	for _, n := range []string{"AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md",
		"HEARTBEAT.md", "BOOTSTRAP.md", "MEMORY.md"} {
		files[n] = "# " + n + "\ncontent of " + n + "\n"
	}
	return files
}

func with(files map[string]string, kv ...string) map[string]string {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(files, kv[i])
		} else {
			files[kv[i]] = kv[i+1]
		}
	}
	return files
}

func TestLoadResolution(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		opts  Options
		want  []string
	}{
		{
			name:  "gates closed",
			files: allFiles(),
			opts:  testOptions(),
			want:  []string{"AGENTS.md OK", "SOUL.md OK", "TOOLS.md OK", "IDENTITY.md OK", "USER.md OK", "MEMORY.md OK"},
		},
		{
			name:  "brand new with heartbeat: heartbeat goes last, dynamic",
			files: allFiles(),
			opts:  testOptions(func(o *Options) { o.Setup, o.Heartbeat = SetupInject, true }),
			want: []string{"AGENTS.md OK", "SOUL.md OK", "TOOLS.md OK", "IDENTITY.md OK", "USER.md OK",
				"BOOTSTRAP.md OK", "MEMORY.md OK", "HEARTBEAT.md OK dynamic"},
		},
		{
			name:  "empty workspace: required missing, optional absent",
			files: map[string]string{},
			opts:  testOptions(func(o *Options) { o.Setup, o.Heartbeat = SetupInject, true }),
			want: []string{"AGENTS.md MISSING (not found)", "SOUL.md MISSING (not found)", "TOOLS.md MISSING (not found)",
				"IDENTITY.md MISSING (not found)", "USER.md MISSING (not found)"},
		},
		{
			name:  "sub-agent keeps AGENTS.md and TOOLS.md only",
			files: allFiles(),
			opts: testOptions(func(o *Options) {
				o.Session, o.Setup, o.Heartbeat = "subagent", SetupInject, true
				o.Startup, o.Today = true, "2026-11-29"
			}),
			want: []string{"AGENTS.md OK", "TOOLS.md OK"},
		},
		{
			name:  "empty and white-space-only files are skipped",
			files: with(allFiles(), "SOUL.md", " \r\n\t\n", "MEMORY.md", "\n"),
			opts:  testOptions(),
			want: []string{"AGENTS.md OK", "SOUL.md SKIPPED (empty)", "TOOLS.md OK", "IDENTITY.md OK", "USER.md OK",
				"MEMORY.md SKIPPED (empty)"},
		},
		{
			name:  "both memory names as distinct files",
			files: with(allFiles(), "memory.md", "lower case notes"),
			opts:  testOptions(),
			want:  []string{"AGENTS.md OK", "SOUL.md OK", "TOOLS.md OK", "IDENTITY.md OK", "USER.md OK", "MEMORY.md OK", "memory.md OK"},
		},
		{
			name:  "lower-case memory only",
			files: with(allFiles(), "MEMORY.md", "", "memory.md", "notes"),
			opts:  testOptions(),
			want:  []string{"AGENTS.md OK", "SOUL.md OK", "TOOLS.md OK", "IDENTITY.md OK", "USER.md OK", "memory.md OK"},
		},
		{
			name: "startup turn adds yesterday then today below the boundary",
			files: with(allFiles(), "memory/2026-11-28.md", "yesterday", "memory/2026-11-29.md", "today",
				"memory/2026-11-27.md", "older"),
			opts: testOptions(func(o *Options) {
				o.Startup, o.Today, o.Yesterday, o.Heartbeat = true, "2026-11-29", "2026-11-28", true
			}),
			want: []string{"AGENTS.md OK", "SOUL.md OK", "TOOLS.md OK", "IDENTITY.md OK", "USER.md OK", "MEMORY.md OK",
				"HEARTBEAT.md OK dynamic", "memory/2026-11-28.md OK dynamic", "memory/2026-11-29.md OK dynamic"},
		},
		{
			name:  "startup turn without daily files",
			files: allFiles(),
			opts:  testOptions(func(o *Options) { o.Startup, o.Today, o.Yesterday = true, "2026-11-29", "2026-11-28" }),
			want:  []string{"AGENTS.md OK", "SOUL.md OK", "TOOLS.md OK", "IDENTITY.md OK", "USER.md OK", "MEMORY.md OK"},
		},
		{
			name:  "ordinary turn never reads daily memory",
			files: with(allFiles(), "memory/2026-11-29.md", "today"),
			opts:  testOptions(func(o *Options) { o.Today, o.Yesterday = "2026-11-29", "2026-11-28" }),
			want:  []string{"AGENTS.md OK", "SOUL.md OK", "TOOLS.md OK", "IDENTITY.md OK", "USER.md OK", "MEMORY.md OK"},
		},
		{
			name:  "directories where files are expected",
			files: with(allFiles(), "SOUL.md", dirMark, "MEMORY.md", dirMark),
			opts:  testOptions(),
			want: []string{"AGENTS.md OK", "SOUL.md MISSING (directory)", "TOOLS.md OK", "IDENTITY.md OK", "USER.md OK",
				"MEMORY.md SKIPPED (directory)"},
		},
		{
			name:  "binary file",
			files: with(allFiles(), "TOOLS.md", "abc\x00def"),
			opts:  testOptions(),
			want: []string{"AGENTS.md OK", "SOUL.md OK", "TOOLS.md SKIPPED (binary file)", "IDENTITY.md OK", "USER.md OK",
				"MEMORY.md OK"},
		},
		{
			name: "omitted file is reported, not injected",
			opts: testOptions(func(o *Options) {
				o.Omit = map[string]string{"AGENTS.md": "found by the harness", "SOUL.md": "found by the harness", "USER.md": "native"}
			}),
			files: with(allFiles(), "USER.md", ""),
			want: []string{"AGENTS.md SKIPPED (found by the harness)", "SOUL.md SKIPPED (found by the harness)",
				"TOOLS.md OK", "IDENTITY.md OK", "USER.md SKIPPED (native; not found)", "MEMORY.md OK"},
		},
		{
			name:  "custom lists",
			files: allFiles(),
			opts: testOptions(func(o *Options) {
				o.Files, o.Optional = []string{"USER.md", "NOTES.md", "SOUL.md"}, []string{"NOTES.md"}
			}),
			want: []string{"USER.md OK", "SOUL.md OK"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ws := memWorkspace(t, tt.files)
			res := mustLoad(t, ws, tt.opts)
			assert.Equal(t, tt.want, outline(res))
			for _, f := range res.Files {
				assert.Equal(t, utf8.RuneCountInString(f.Content), f.InjectedChars, f.Name)
				switch f.Status {
				case StatusOK:
					assert.Equal(t, normalize(tt.files[f.Name]), f.Content, f.Name)
				case StatusMissing:
					assert.Equal(t, "[MISSING] Expected at: ws/"+f.Name, f.Content)
				case StatusSkipped:
					if f.Reason == "found by the harness" {
						assert.Equal(t, utf8.RuneCountInString(normalize(tt.files[f.Name])), f.RawChars, "omitted files are still measured")
					}
					if f.Reason == ReasonBinary {
						assert.Equal(t, "[BINARY] ws/"+f.Name, f.Content)
					} else {
						assert.Empty(t, f.Content, f.Name)
					}
				}
			}
		})
	}
}

func TestLoadFileFields(t *testing.T) {
	_, ws := memWorkspace(t, map[string]string{
		"AGENTS.md":            "line one\r\nline two\r\n\r\n   ",
		"SOUL.md":              "bad \xff byte",
		"TOOLS.md":             "{{ .Secret }} stays as written",
		"memory/2026-11-29.md": "today",
	})
	opts := testOptions(func(o *Options) {
		o.Files = []string{"AGENTS.md", "SOUL.md", "TOOLS.md"}
		o.Startup, o.Today, o.Yesterday = true, "2026-11-29", "2026-11-28"
	})
	res := mustLoad(t, ws, opts)
	require.Len(t, res.Files, 4)
	assert.Equal(t, File{Name: "AGENTS.md", Path: "AGENTS.md", Display: "ws/AGENTS.md", Content: "line one\nline two",
		RawChars: 17, InjectedChars: 17, Status: StatusOK}, res.Files[0])
	assert.Equal(t, "bad \uFFFD byte", res.Files[1].Content)
	assert.Equal(t, "{{ .Secret }} stays as written", res.Files[2].Content)
	assert.Equal(t, File{Name: "memory/2026-11-29.md", Path: "memory/2026-11-29.md", Display: "ws/memory/2026-11-29.md",
		Content: "today", RawChars: 5, InjectedChars: 5, Status: StatusOK, Dynamic: true, Startup: true}, res.Files[3])
	assert.Equal(t, 17+10+30+5, res.TotalRaw)
	assert.Equal(t, res.TotalRaw, res.TotalInjected)
	assert.Empty(t, res.Signature)
	assert.Equal(t, opts.MaxChars, res.MaxChars)
	assert.Equal(t, opts.TotalMaxChars, res.TotalMaxChars)
	assert.Len(t, res.Stable(), 3)
	assert.Len(t, res.Dynamic(), 1)
}

func TestLoadOptionErrors(t *testing.T) {
	_, ws := memWorkspace(t, allFiles())
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{"bad startup date", testOptions(func(o *Options) { o.Startup, o.Today = true, "29.11.2026" }),
			`startup memory date "29.11.2026" is not YYYY-MM-DD`},
		{"escaping file name", testOptions(func(o *Options) { o.Files = []string{"../secrets.md"} }),
			`file name "../secrets.md"`},
		{"escaping replace", testOptions(func(o *Options) { o.Replace = map[string]string{"SOUL.md": "../../etc/passwd"} }),
			`replace "SOUL.md"`},
		{"absolute replace", testOptions(func(o *Options) { o.Replace = map[string]string{"SOUL.md": "/etc/passwd"} }),
			"absolute path"},
		{"unknown session", testOptions(func(o *Options) { o.Session = "child" }),
			`unknown session kind "child" (allowed: main, subagent, cron, heartbeat)`},
		{"no per-file budget", testOptions(func(o *Options) { o.MaxChars = 0 }),
			"bootstrap: Options.MaxChars must be positive, got 0"},
		{"negative per-file budget", testOptions(func(o *Options) { o.MaxChars = -1 }),
			"bootstrap: Options.MaxChars must be positive, got -1"},
		{"no total budget", testOptions(func(o *Options) { o.TotalMaxChars = 0 }),
			"bootstrap: Options.TotalMaxChars must be positive, got 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(context.Background(), ws, tt.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
	_, err := Load(context.Background(), ws, Options{})
	assert.ErrorContains(t, err, "Markers is nil")
	_, err = Load(context.Background(), ws, Options{Markers: testMarkers{}})
	assert.EqualError(t, err, "bootstrap: Options.MaxChars must be positive, got 0", "budgets have no defaults")
	_, err = Load(context.Background(), nil, testOptions())
	assert.ErrorContains(t, err, "no workspace")
}

// TestLoadNoLists: the file lists have no defaults either; none means no
// listed file, and startup daily memory still comes.
func TestLoadNoLists(t *testing.T) {
	_, ws := memWorkspace(t, with(allFiles(), "memory/2026-11-29.md", "today"))
	opts := Options{MaxChars: 100, TotalMaxChars: 200, Markers: testMarkers{}}
	assert.Empty(t, mustLoad(t, ws, opts).Files)
	opts.Startup, opts.Today = true, "2026-11-29"
	assert.Equal(t, []string{"memory/2026-11-29.md OK dynamic"}, outline(mustLoad(t, ws, opts)))
	opts.Session = "subagent"
	assert.Empty(t, mustLoad(t, ws, opts).Files, "no sub-agent files")
}

func TestLoadBudgets(t *testing.T) {
	long := strings.Repeat("x", 40000)
	tests := []struct {
		name          string
		files         map[string]string
		opts          Options
		want          []string
		wantInjected  []int
		wantCauses    [][]Cause
		maxInjected   int
		onlyMarkersIn bool
	}{
		{
			name:         "per file 100, total 150",
			files:        map[string]string{"AGENTS.md": strings.Repeat("a", 80), "SOUL.md": strings.Repeat("s", 90), "TOOLS.md": "t", "IDENTITY.md": "i", "USER.md": "u"},
			opts:         testOptions(func(o *Options) { o.MaxChars, o.TotalMaxChars = 100, 150 }),
			want:         []string{"AGENTS.md OK", "SOUL.md TRUNCATED", "TOOLS.md SKIPPED (total budget exhausted)", "IDENTITY.md SKIPPED (total budget exhausted)", "USER.md SKIPPED (total budget exhausted)"},
			wantCauses:   [][]Cause{nil, {CauseTotal}, {CauseTotal}, {CauseTotal}, {CauseTotal}},
			wantInjected: []int{80, 66, 0, 0, 0},
			maxInjected:  150,
		},
		{
			name:          "total 40: nothing starts, missing markers only",
			files:         map[string]string{"AGENTS.md": "agents", "TOOLS.md": "tools"},
			opts:          testOptions(func(o *Options) { o.TotalMaxChars = 40 }),
			want:          []string{"AGENTS.md SKIPPED (total budget exhausted)", "SOUL.md MISSING (not found)", "TOOLS.md SKIPPED (total budget exhausted)", "IDENTITY.md MISSING (not found)", "USER.md MISSING (not found)"},
			wantInjected:  []int{0, 33, 0, 7, 0},
			maxInjected:   40,
			onlyMarkersIn: true,
		},
		{
			name:         "40,000 chars at 20,000",
			files:        map[string]string{"AGENTS.md": long, "SOUL.md": "s", "TOOLS.md": "t", "IDENTITY.md": "i", "USER.md": "u"},
			opts:         testOptions(),
			want:         []string{"AGENTS.md TRUNCATED", "SOUL.md OK", "TOOLS.md OK", "IDENTITY.md OK", "USER.md OK"},
			wantCauses:   [][]Cause{{CausePerFile}, nil, nil, nil, nil},
			wantInjected: []int{18003, 1, 1, 1, 1},
			maxInjected:  60000,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ws := memWorkspace(t, tt.files)
			res := mustLoad(t, ws, tt.opts)
			assert.Equal(t, tt.want, outline(res))
			var injected []int
			var causes [][]Cause
			sum := 0
			for _, f := range res.Files {
				injected = append(injected, f.InjectedChars)
				causes = append(causes, f.Causes)
				sum += f.InjectedChars
				assert.LessOrEqual(t, f.InjectedChars, res.MaxChars)
				if tt.onlyMarkersIn && f.Status != StatusMissing {
					assert.Empty(t, f.Content)
				}
			}
			assert.Equal(t, tt.wantInjected, injected)
			if tt.wantCauses != nil {
				assert.Equal(t, tt.wantCauses, causes)
			}
			assert.Equal(t, sum, res.TotalInjected)
			assert.LessOrEqual(t, res.TotalInjected, tt.maxInjected)
		})
	}
}

func TestLoadTruncatedFile(t *testing.T) {
	var b strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&b, "line %04d\n", i) // 40,000 code points
	}
	body := b.String()
	_, ws := memWorkspace(t, map[string]string{"MEMORY.md": body})
	res := mustLoad(t, ws, testOptions(func(o *Options) { o.Files = []string{"MEMORY.md"} }))
	require.Len(t, res.Files, 1)
	f := res.Files[0]
	trimmed := strings.TrimRight(body, "\n")
	assert.Equal(t, StatusTruncated, f.Status)
	assert.Equal(t, []Cause{CausePerFile}, f.Causes)
	assert.True(t, f.NearLimit)
	assert.Equal(t, 39999, f.RawChars)
	assert.LessOrEqual(t, f.InjectedChars, 20000)
	assert.True(t, strings.HasPrefix(f.Content, trimmed[:1000]))
	assert.True(t, strings.HasSuffix(f.Content, trimmed[len(trimmed)-1000:]))
	m := regexp.MustCompile(`\n\[\.\.\.ws/MEMORY\.md: kept (\d+) of 39999\.\.\.\]\n`).FindStringSubmatch(f.Content)
	require.NotNil(t, m, "marker")
	// 70% and 20% of what the 43-char marker leaves (13969 + 3991), then
	// both cuts moved to line ends: the head loses "\nline 1396" (10), the
	// tail its leading "0\n" (2).
	assert.Equal(t, "17948", m[1])
	assert.Equal(t, 17948+len(m[0]), f.InjectedChars)
	assert.True(t, strings.HasSuffix(strings.Split(f.Content, "\n[...")[0], "\nline 1395"), "the head ends at a line end")
	assert.True(t, strings.HasPrefix(strings.SplitN(f.Content, "...]\n", 2)[1], "line 3601\n"), "the tail starts at a line start")
	assert.Equal(t, `{"maxChars":20000,"totalMaxChars":60000,"files":[{"name":"MEMORY.md","raw":39999,"injected":17991,"causes":["per-file limit"]}]}`, res.Signature)
}

func TestLoadLongCRLFFile(t *testing.T) {
	// Longer than the read window: only head and tail are read, and they
	// are normalised like a whole file would be.
	body := "HEAD\r\n" + strings.Repeat("middle line\r\n", 10000) + "TAIL\r\n \r\n"
	_, ws := memWorkspace(t, map[string]string{"MEMORY.md": body})
	res := mustLoad(t, ws, testOptions(func(o *Options) { o.Files, o.MaxChars = []string{"MEMORY.md"}, 1000 }))
	f := res.Files[0]
	assert.Equal(t, StatusTruncated, f.Status)
	assert.NotContains(t, f.Content, "\r")
	assert.True(t, strings.HasPrefix(f.Content, "HEAD\nmiddle line\n"))
	assert.True(t, strings.HasSuffix(f.Content, "middle line\nTAIL"))
	assert.LessOrEqual(t, f.InjectedChars, 1000)
	exact := utf8.RuneCountInString(normalize(body))
	assert.GreaterOrEqual(t, f.RawChars, exact, "middle CRLFs may be counted, never fewer")
	assert.Less(t, f.RawChars, utf8.RuneCountInString(body))
}

// A marker naming a file whose name holds the pack's boundary prints
// longer than it reads (the boundary shows as a longer notice); it is cut
// so that what it prints fits what remains of the total.
func TestLoadMarkerWithABoundaryFitsTheTotal(t *testing.T) {
	_, ws := memWorkspace(t, map[string]string{})
	res := mustLoad(t, ws, testOptions(func(o *Options) {
		o.Files, o.Boundary, o.TotalMaxChars = []string{"x<!-- B -->.md"}, "<!-- B -->", 40
	}))
	require.Len(t, res.Files, 1)
	assert.Equal(t, StatusMissing, res.Files[0].Status)
	assert.NotZero(t, res.Files[0].InjectedChars)
	assert.LessOrEqual(t, res.TotalInjected, 40)
}

// A long file with old Mac line ends (a lone CR) loses them in the head
// too, as in the tail and in a file read whole.
func TestLoadLongCRFile(t *testing.T) {
	_, ws := memWorkspace(t, map[string]string{"AGENTS.md": strings.Repeat("line\r", 200)})
	res := mustLoad(t, ws, testOptions(func(o *Options) { o.Files, o.MaxChars = []string{"AGENTS.md"}, 100 }))
	f := res.Files[0]
	assert.Equal(t, StatusTruncated, f.Status)
	assert.NotContains(t, f.Content, "\r")
	assert.True(t, strings.HasPrefix(f.Content, "line\nline\n"), "%q", f.Content)
}

func TestLoadDynamicFilesCannotMoveStable(t *testing.T) {
	stable := map[string]string{
		"AGENTS.md": strings.Repeat("a", 300), "SOUL.md": strings.Repeat("s", 300), "TOOLS.md": "t",
		"IDENTITY.md": "i", "USER.md": "u",
	}
	var first []File
	for _, heartbeat := range []string{"", "short", strings.Repeat("h", 5000), strings.Repeat("beat ", 900)} {
		files := with(map[string]string{}, "HEARTBEAT.md", heartbeat)
		for k, v := range stable {
			files[k] = v
		}
		_, ws := memWorkspace(t, files)
		res := mustLoad(t, ws, testOptions(func(o *Options) { o.Heartbeat, o.MaxChars, o.TotalMaxChars = true, 400, 500 }))
		if first == nil {
			first = res.Stable()
			continue
		}
		assert.Equal(t, first, res.Stable(), "heartbeat %d chars", len(heartbeat))
		assert.LessOrEqual(t, res.TotalInjected, 500)
	}
	require.NotNil(t, first)
	assert.Equal(t, StatusTruncated, first[1].Status, "the stable files alone exceed the total")
}

func TestLoadSameFile(t *testing.T) {
	t.Run("hard link on a real disk", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "MEMORY.md"), []byte("facts"), 0o644))
		require.NoError(t, os.Link(filepath.Join(dir, "MEMORY.md"), filepath.Join(dir, "memory.md")))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "copy.md"), []byte("facts"), 0o644))
		ws := vfs.OpenWorkspace(afero.NewOsFs(), dir)
		defer ws.Close()
		res := mustLoad(t, ws, testOptions(func(o *Options) { o.Files = []string{"MEMORY.md", "memory.md", "copy.md"} }))
		assert.Equal(t, []string{"MEMORY.md OK", "copy.md OK"}, outline(res), "a separate file with equal content stays")
	})
	t.Run("in-memory: equal size, time and content under names differing in case", func(t *testing.T) {
		fsys, ws := memWorkspace(t, map[string]string{"MEMORY.md": "facts", "memory.md": "facts", "other.md": "facts"})
		when := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
		for _, n := range []string{"MEMORY.md", "memory.md", "other.md"} {
			require.NoError(t, fsys.Chtimes("ws/"+n, when, when))
		}
		res := mustLoad(t, ws, testOptions(func(o *Options) { o.Files = []string{"MEMORY.md", "memory.md", "other.md"} }))
		assert.Equal(t, []string{"MEMORY.md OK", "other.md OK"}, outline(res))

		require.NoError(t, fsys.Chtimes("ws/memory.md", when, when.Add(time.Second)))
		res = mustLoad(t, ws, testOptions(func(o *Options) { o.Files = []string{"MEMORY.md", "memory.md"} }))
		assert.Equal(t, []string{"MEMORY.md OK", "memory.md OK"}, outline(res))
	})
	t.Run("same path twice via replace", func(t *testing.T) {
		_, ws := memWorkspace(t, allFiles())
		res := mustLoad(t, ws, testOptions(func(o *Options) { o.Replace = map[string]string{"IDENTITY.md": "SOUL.md"} }))
		assert.Equal(t, []string{"AGENTS.md OK", "SOUL.md OK", "TOOLS.md OK", "USER.md OK", "MEMORY.md OK"}, outline(res))
	})
}

func TestLoadRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	write("AGENTS.md", "agents")
	write("personas/calm.md", "calm soul")
	outside := filepath.Join(t.TempDir(), "secret.md")
	require.NoError(t, os.WriteFile(outside, []byte("TOP SECRET"), 0o644))
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(dir, "USER.md")))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "MEMORY.md")))
	require.NoError(t, os.Symlink("personas/calm.md", filepath.Join(dir, "SOUL.md")))
	require.NoError(t, os.Symlink("loop-b", filepath.Join(dir, "loop-a")))
	require.NoError(t, os.Symlink("loop-a", filepath.Join(dir, "loop-b")))
	require.NoError(t, os.Symlink("loop-a", filepath.Join(dir, "TOOLS.md")))
	ws := vfs.OpenWorkspace(afero.NewOsFs(), dir)
	defer ws.Close()

	res := mustLoad(t, ws, testOptions())
	assert.Equal(t, []string{
		"AGENTS.md OK",
		"SOUL.md OK",
		"TOOLS.md MISSING (symlink loop)",
		"IDENTITY.md MISSING (not found)",
		"USER.md MISSING (symlink points outside the workspace)",
		"MEMORY.md SKIPPED (symlink points outside the workspace)",
	}, outline(res))
	for _, f := range res.Files {
		assert.NotContains(t, f.Content, "root:")
		assert.NotContains(t, f.Content, "TOP SECRET")
	}
	assert.Equal(t, "calm soul", res.Files[1].Content)
	assert.Equal(t, "[MISSING] Expected at: "+dir+"/USER.md", res.Files[4].Content)

	// A path the user chose (replace or hook) that is refused is an error.
	_, err := Load(context.Background(), ws, testOptions(func(o *Options) { o.Replace = map[string]string{"IDENTITY.md": "USER.md"} }))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "IDENTITY.md -> USER.md")
	assert.Contains(t, err.Error(), "outside the workspace")
}

func TestLoadReplaceAndHook(t *testing.T) {
	files := with(allFiles(), "personas/pirate.md", "Arr.", "extra/NOTES.md", "notes")
	tests := []struct {
		name    string
		opts    Options
		hook    func(ev Event) ([]Entry, error)
		want    []string
		wantErr string
		check   func(t *testing.T, res Result)
	}{
		{
			name: "replace swaps the persona",
			opts: testOptions(func(o *Options) {
				o.Replace = map[string]string{"SOUL.md": "personas/pirate.md", "NOPE.md": "x.md"}
			}),
			want: []string{"AGENTS.md OK", "SOUL.md OK", "TOOLS.md OK", "IDENTITY.md OK", "USER.md OK", "MEMORY.md OK"},
			check: func(t *testing.T, res Result) {
				assert.Equal(t, "personas/pirate.md", res.Files[1].Path)
				assert.Equal(t, "ws/personas/pirate.md", res.Files[1].Display)
				assert.Equal(t, "Arr.", res.Files[1].Content)
			},
		},
		{
			name: "hook sees replaced list, removes, adds and reorders",
			opts: testOptions(func(o *Options) {
				o.Replace, o.Session = map[string]string{"SOUL.md": "personas/pirate.md"}, "main"
			}),
			hook: func(ev Event) ([]Entry, error) {
				if ev.Type != "agent" || ev.Action != "bootstrap" || ev.Workspace != "ws" || ev.Session != "main" ||
					len(ev.Files) != 7 || ev.Files[1] != (Entry{Name: "SOUL.md", Path: "personas/pirate.md"}) {
					return nil, fmt.Errorf("unexpected event %+v", ev)
				}
				return []Entry{{Name: "NOTES.md", Path: "extra/NOTES.md"}, ev.Files[1], {Name: "AGENTS.md"}, {Name: "HEARTBEAT.md"}}, nil
			},
			want: []string{"NOTES.md OK", "SOUL.md OK", "AGENTS.md OK", "HEARTBEAT.md OK dynamic"},
		},
		{
			name: "session filter applies after the hook",
			opts: testOptions(func(o *Options) { o.Session = "subagent" }),
			hook: func(ev Event) ([]Entry, error) {
				return append(ev.Files, Entry{Name: "SOUL.md"}), nil
			},
			want: []string{"AGENTS.md OK", "TOOLS.md OK"},
		},
		{
			name: "hook path outside the workspace",
			opts: testOptions(),
			hook: func(Event) ([]Entry, error) {
				return []Entry{{Name: "SOUL.md", Path: "../outside.md"}}, nil
			},
			wantErr: `file "SOUL.md": path "../outside.md" refused: path escapes the workspace`,
		},
		{
			name:    "hook absolute path",
			opts:    testOptions(),
			hook:    func(Event) ([]Entry, error) { return []Entry{{Name: "SOUL.md", Path: "/etc/passwd"}}, nil },
			wantErr: `path "/etc/passwd" refused: absolute path`,
		},
		{
			name:    "hook name climbing out, with a good path",
			opts:    testOptions(),
			hook:    func(Event) ([]Entry, error) { return []Entry{{Name: "../x", Path: "SOUL.md"}}, nil },
			wantErr: `file 0: bad name: path "../x" refused: path escapes the workspace`,
		},
		{
			name: "hook name absolute, with a good path",
			opts: testOptions(),
			hook: func(Event) ([]Entry, error) {
				return []Entry{{Name: "AGENTS.md"}, {Name: "/etc/passwd", Path: "SOUL.md"}}, nil
			},
			wantErr: `file 1: bad name: path "/etc/passwd" refused: absolute path`,
		},
		{
			name:    "hook name climbing out with backslashes",
			opts:    testOptions(),
			hook:    func(Event) ([]Entry, error) { return []Entry{{Name: `..\x`, Path: "SOUL.md"}}, nil },
			wantErr: `path "..\\x" refused: path escapes the workspace`,
		},
		{
			name:    "hook name with a NUL",
			opts:    testOptions(),
			hook:    func(Event) ([]Entry, error) { return []Entry{{Name: "SOUL.md\x00x", Path: "SOUL.md"}}, nil },
			wantErr: `path "SOUL.md\x00x" refused: path contains a NUL byte`,
		},
		{
			name:    "hook entry without a name",
			opts:    testOptions(),
			hook:    func(Event) ([]Entry, error) { return []Entry{{Path: "SOUL.md"}}, nil },
			wantErr: "file 0 has no name",
		},
		{
			name:    "hook error",
			opts:    testOptions(),
			hook:    func(Event) ([]Entry, error) { return nil, fmt.Errorf("boom") },
			wantErr: "agent:bootstrap hook: boom",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ws := memWorkspace(t, files)
			opts := tt.opts
			if tt.hook != nil {
				opts.Hook = func(_ context.Context, ev Event) ([]Entry, error) { return tt.hook(ev) }
			}
			res, err := Load(context.Background(), ws, opts)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, outline(res))
			if tt.check != nil {
				tt.check(t, res)
			}
		})
	}
}

func TestLoadHookPathThroughOutsideSymlink(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Symlink("/etc", filepath.Join(dir, "etc")))
	ws := vfs.OpenWorkspace(afero.NewOsFs(), dir)
	defer ws.Close()
	_, err := Load(context.Background(), ws, testOptions(func(o *Options) {
		o.Hook = func(context.Context, Event) ([]Entry, error) {
			return []Entry{{Name: "USER.md", Path: "etc/passwd"}}, nil
		}
	}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "etc/passwd")
	assert.Contains(t, err.Error(), "symlink points outside the workspace")
}

// The hook's event shows the workspace as the model sees it, and says
// in which folder on disk the files are read; in memory there is none.
func TestLoadHookEventDir(t *testing.T) {
	dir, disk := diskWorkspace(t, map[string]string{"AGENTS.md": "a"})
	_, mem := memWorkspace(t, map[string]string{"AGENTS.md": "a"})
	at := vfs.OpenWorkspace(vfs.OSAt(dir), "/Users/ana/ws")
	defer at.Close()
	for _, tt := range []struct {
		ws             *vfs.Workspace
		workspace, dir string
	}{{disk, dir, dir}, {mem, "ws", ""}, {at, "/Users/ana/ws", dir}} {
		var got Event
		res := mustLoad(t, tt.ws, testOptions(func(o *Options) {
			o.Hook = func(_ context.Context, ev Event) ([]Entry, error) { got = ev; return ev.Files, nil }
		}))
		assert.Equal(t, tt.workspace, got.Workspace)
		assert.Equal(t, tt.dir, got.Dir)
		assert.Equal(t, "a", res.Files[0].Content)
	}
}

func TestLoadCanceled(t *testing.T) {
	_, ws := memWorkspace(t, allFiles())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Load(ctx, ws, testOptions())
	assert.ErrorIs(t, err, context.Canceled)
}

// What a hook returns is checked like any list: a name, with or without
// a path, that is absolute or climbs out of the workspace fails the load.
func TestHookNamesStayInside(t *testing.T) {
	_, ws := memWorkspace(t, allFiles())
	tests := []struct {
		entry   Entry
		wantErr string
	}{
		{Entry{Name: "../x"}, `file 1: bad name: path "../x" refused: path escapes the workspace`},
		{Entry{Name: "/etc/passwd"}, `file 1: bad name: path "/etc/passwd" refused: absolute path`},
		{Entry{Name: "../x", Path: "SOUL.md"}, `file 1: bad name: path "../x" refused: path escapes the workspace`},
		{Entry{Name: "SOUL.md", Path: "/etc/passwd"}, `file "SOUL.md": path "/etc/passwd" refused: absolute path`},
	}
	for _, tt := range tests {
		t.Run(tt.entry.Name+" "+tt.entry.Path, func(t *testing.T) {
			hook := func(context.Context, Event) ([]Entry, error) { return []Entry{{Name: "AGENTS.md"}, tt.entry}, nil }
			_, err := Load(context.Background(), ws, testOptions(func(o *Options) { o.Hook = hook }))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "agent:bootstrap hook: "+tt.wantErr)
		})
	}
}

// TestLoadLongTrailingWhiteSpace: a file longer than the read window is
// counted and cut as it would be injected, without its trailing white
// space; one that is only white space is skipped like a short one.
func TestLoadLongTrailingWhiteSpace(t *testing.T) {
	opts := testOptions(func(o *Options) { o.Files = []string{"AGENTS.md"} })
	for _, tt := range []struct {
		name, body, want string
		raw              int
	}{
		{"only spaces", strings.Repeat(" ", 50000) + "\n", "AGENTS.md SKIPPED (empty)", 0},
		{"only CRLFs", strings.Repeat("\r\n", 30000), "AGENTS.md SKIPPED (empty)", 0},
		{"one word then spaces", "word" + strings.Repeat(" \n", 30000), "AGENTS.md OK", 4},
		{"long text then spaces", strings.Repeat("x", 30000) + strings.Repeat(" ", 50000), "AGENTS.md TRUNCATED", 30000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, ws := memWorkspace(t, map[string]string{"AGENTS.md": tt.body})
			f := mustLoad(t, ws, opts).Files[0]
			assert.Equal(t, []string{tt.want}, outline(Result{Files: []File{f}}))
			assert.Equal(t, tt.raw, f.RawChars)
			if f.Status == StatusTruncated {
				assert.True(t, strings.HasSuffix(f.Content, strings.Repeat("x", 100)), "the tail is text, not the trailing spaces")
			}
			if f.Status == StatusOK {
				assert.Equal(t, "word", f.Content)
			}
		})
	}
}
