package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine"
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
		_ = res.Report(nil)
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
