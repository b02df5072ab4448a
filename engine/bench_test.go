package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/report"
	"github.com/sysprompt/sysprompt/vfs"
)

// exampleSetup loads the README example (examples/workspace and
// examples/requests/direct.toml) into memory.
func exampleSetup(b testing.TB) (*engine.Engine, engine.Request) {
	b.Helper()
	ws := exampleWorkspace(b)
	req, err := engine.ParseRequest("direct.toml", mustReadFile(b, "../examples/requests/direct.toml"))
	require.NoError(b, err)
	req.Workspace.Path = "/ws"
	e, err := engine.New(sysprompt.Pack, engine.WithFS(ws))
	require.NoError(b, err)
	return e, req
}

func BenchmarkCompileBuiltin(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := engine.New(sysprompt.Pack); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseRequest parses the README example's request as JSON, as
// render serve does on every turn: 14 tools with their schemas.
func BenchmarkParseRequest(b *testing.B) {
	req, err := engine.ParseRequest("direct.toml", mustReadFile(b, "../examples/requests/direct.toml"))
	require.NoError(b, err)
	src, err := json.Marshal(req)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := engine.ParseRequest("direct.json", src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRender(b *testing.B) {
	e, req := exampleSetup(b)
	ctx := context.Background()
	if _, err := e.Render(ctx, req); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Render(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConcatFloor assembles the same final bytes from precomputed
// section strings: the least any renderer could do. Render's cost is
// reported as a multiple of this.
func BenchmarkConcatFloor(b *testing.B) {
	e, req := exampleSetup(b)
	res, err := e.Render(context.Background(), req)
	require.NoError(b, err)
	l := res.Layers[0]
	var parts []string
	for _, s := range l.Sections {
		parts = append(parts, l.Text[s.Start:s.End])
	}
	stableN := 0
	for _, s := range l.Sections {
		if s.Tier == engine.TierStable {
			stableN++
		}
	}
	want := l.Text
	b.ReportAllocs()
	b.ResetTimer()
	var out string
	for b.Loop() {
		var sb strings.Builder
		sb.Grow(len(want))
		for i, p := range parts {
			if i == stableN {
				sb.WriteString("\n\n" + res.Boundary + "\n\n")
			} else if i > 0 {
				sb.WriteString("\n\n")
			}
			sb.WriteString(p)
		}
		sb.WriteString("\n")
		out = sb.String()
	}
	if out != want {
		b.Fatalf("floor assembled different bytes")
	}
}

// BenchmarkRenderWithReport is BenchmarkRender plus building the context
// report with the estimate tokenizer; the difference is the report's cost.
func BenchmarkRenderWithReport(b *testing.B) {
	e, req := exampleSetup(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.Render(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		_ = report.Build(res, nil)
	}
}

// BenchmarkRenderNextTurn renders turns over unchanged stable inputs, so
// the stable tier comes from its memo; each turn's volatile values differ
// from the last 1,024 turns', so no dynamic section that reads them can
// be found in its memo.
//
//   - date: only the time moves, as between two messages of a session.
//     No built-in dynamic section prints the date, so none executes.
//   - date+host+owners: the runtime, reasoning and user_identity sections
//     read the changed fields and execute every turn.
func BenchmarkRenderNextTurn(b *testing.B) {
	e, req := exampleSetup(b)
	ctx := context.Background()
	if _, err := e.Render(ctx, req); err != nil {
		b.Fatal(err)
	}
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		turn func(r *engine.Request, i int)
	}{
		{"date", func(r *engine.Request, i int) {
			r.Date = start.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
		}},
		{"date+host+owners", func(r *engine.Request, i int) {
			r.Date = start.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
			r.Runtime.Host = fmt.Sprintf("host-%d", i)
			r.Owners = []string{fmt.Sprintf("telegram:%d", 48213377+i)}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			turns := make([]engine.Request, 1024)
			for i := range turns {
				turns[i] = req
				c.turn(&turns[i], i)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := e.Render(ctx, turns[i%len(turns)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// turnWorkspace writes the example workspace plus n synthetic skills
// (skills/gen/skill-NNNN) into fsys at root.
func turnWorkspace(b *testing.B, fsys afero.Fs, root string, n int) {
	b.Helper()
	copyExampleWorkspace(b, fsys, root)
	for i := range n {
		body := fmt.Sprintf("---\nname: skill-%04d\ndescription: Handle task number %d when the user asks for it by name.\n---\nSteps.\n", i, i)
		name := path.Join(root, "skills", "gen", fmt.Sprintf("skill-%04d", i), "SKILL.md")
		require.NoError(b, fsys.MkdirAll(path.Dir(name), 0o755))
		require.NoError(b, afero.WriteFile(fsys, name, []byte(body), 0o644))
	}
}

// BenchmarkTurn measures the honest paths of a long-lived engine on the
// README example, in memory and on the real disk, with 20 and 500
// skills found (at most 150 listed):
//
//   - warm: the same turn again;
//   - next-turn: chat type, channel and date change (volatile facts);
//   - stable-miss: MEMORY.md is edited before each turn (the write is not
//     timed), so the bootstrap file is read again and the stable tier
//     executed.
//
// Run with BenchmarkConcatFloor for the floor:
// go test ./engine -run '^$' -bench 'Turn|ConcatFloor'
func BenchmarkTurn(b *testing.B) {
	base, err := engine.ParseRequest("direct.toml", mustReadFile(b, "../examples/requests/direct.toml"))
	require.NoError(b, err)
	for _, where := range []string{"mem", "disk"} {
		for _, skills := range []int{20, 500} {
			b.Run(fmt.Sprintf("%s/skills=%d", where, skills), func(b *testing.B) {
				var fsys afero.Fs
				root := "/ws"
				if where == "mem" {
					fsys = afero.NewMemMapFs()
				} else {
					fsys, root = vfs.OS(), b.TempDir()
				}
				// The example has 4 skills of its own.
				turnWorkspace(b, writable(fsys), root, skills-4)
				// Files changed within the last two seconds are read again
				// on every turn (see engine/internal/texts); a warm turn is
				// one over files older than that.
				time.Sleep(2100 * time.Millisecond)
				e, err := engine.New(sysprompt.Pack, engine.WithFS(fsys))
				require.NoError(b, err)
				req := base
				req.Workspace.Path = root
				ctx := context.Background()
				first, err := e.Render(ctx, req)
				require.NoError(b, err)
				require.Equal(b, skills, first.Skills.Found)

				b.Run("warm", func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if _, err := e.Render(ctx, req); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run("next-turn", func(b *testing.B) {
					turns := make([]engine.Request, 64)
					for i := range turns {
						turns[i] = req
						turns[i].Date = time.Date(2026, 11, 30, 9, i, 0, 0, time.UTC).Format(time.RFC3339)
						turns[i].Channel.ID = []string{"telegram", "discord", "slack", "signal"}[i%4]
						turns[i].Channel.Delivery = []string{"automatic", "message_tool_only"}[i%2]
					}
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						if _, err := e.Render(ctx, turns[i%len(turns)]); err != nil {
							b.Fatal(err)
						}
						i++
					}
				})
				b.Run("stable-miss", func(b *testing.B) {
					w := writable(fsys)
					memory := path.Join(root, "MEMORY.md")
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						b.StopTimer()
						require.NoError(b, afero.WriteFile(w, memory, []byte(fmt.Sprintf("# Memory\n\nFact number %d.\n", i)), 0o644))
						i++
						b.StartTimer()
						if _, err := e.Render(ctx, req); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
		}
	}
}

// writable returns a filesystem that writes where fsys reads.
func writable(fsys afero.Fs) afero.Fs {
	if vfs.IsOS(fsys) {
		return afero.NewOsFs()
	}
	return fsys
}

// manySkillsWorkspace writes the example workspace and n skill folders
// under skills/, in groups of perGroup folders (0 for all in skills/).
func manySkillsWorkspace(b *testing.B, n, perGroup int) afero.Fs {
	b.Helper()
	fsys := afero.NewMemMapFs()
	copyExampleWorkspace(b, fsys, "/ws")
	for i := range n {
		name := fmt.Sprintf("skill-%06d", i)
		dir := "/ws/skills/" + name
		if perGroup > 0 {
			dir = fmt.Sprintf("/ws/skills/g%04d/%s", i/perGroup, name)
		}
		body := "---\nname: " + name + "\ndescription: Handle task " + name + " when the user asks for it by name.\n---\nSteps.\n"
		require.NoError(b, afero.WriteFile(fsys, dir+"/SKILL.md", []byte(body), 0o644))
	}
	return fsys
}

// BenchmarkManySkills renders over a workspace holding 100,000 skill
// folders, all in skills/ (flat) or in 100 groups of 1,000 (grouped): what
// discovery costs when a skills folder is huge. Every iteration is a new
// session, so the catalog is discovered and built each time.
//
//	go test ./engine -run '^$' -bench ManySkills -benchmem
func BenchmarkManySkills(b *testing.B) {
	base, err := engine.ParseRequest("direct.toml", mustReadFile(b, "../examples/requests/direct.toml"))
	require.NoError(b, err)
	for _, layout := range []struct {
		name     string
		perGroup int
	}{{"flat", 0}, {"grouped", 1000}} {
		b.Run(layout.name, func(b *testing.B) {
			e, err := engine.New(sysprompt.Pack, engine.WithFS(manySkillsWorkspace(b, 100_000, layout.perGroup)))
			require.NoError(b, err)
			req := base
			req.Workspace.Path = "/ws"
			ctx := context.Background()
			session := 0
			b.ReportAllocs()
			for b.Loop() {
				req.Session.ID = strconv.Itoa(session)
				session++
				res, err := e.Render(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				if session == 1 {
					c := res.Skills
					b.Logf("found %d, listed %d, cuts %v, problems %v", c.Found, c.Listed, c.Cuts, c.Problems)
				}
			}
		})
	}
}
