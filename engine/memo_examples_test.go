package engine_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/config"
)

// The stable memo against the built-in pack: one long-lived engine renders the
// shipped example requests, each with turns whose volatile fields vary
// and some repeated, and every result must equal a fresh engine's.
func TestMemosMatchFreshRendersOfExamples(t *testing.T) {
	cfg, err := config.Parse("agents.toml", mustReadFile(t, "../examples/agents.toml"))
	require.NoError(t, err)
	pack := os.DirFS("..")
	opts := []engine.Option{engine.WithFS(exampleWorkspace(t)), engine.WithConfig(cfg)}
	long, err := engine.New(pack, opts...)
	require.NoError(t, err)

	files, err := filepath.Glob("../examples/requests/*.toml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	turns := []func(r *engine.Request){
		func(*engine.Request) {},
		func(r *engine.Request) { r.Date = "2026-12-24T23:59:00Z"; r.Runtime.Host = "other" },
		func(r *engine.Request) { r.Owners = append(r.Owners, "signal:+351"); r.TTSHint = "speak slowly" },
		func(r *engine.Request) { r.ChatType = "group"; r.Reactions.Level = "extensive" },
		func(r *engine.Request) { r.Heartbeat.Prompt = "check in"; r.ExtraSystemPrompt = "a group of four" },
		func(r *engine.Request) { r.Session.Reset = true },
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 60 {
		file := files[rng.IntN(len(files))]
		req, err := engine.ParseRequest(file, mustReadFile(t, file))
		require.NoError(t, err)
		req.Workspace.Path = "/ws"
		turns[rng.IntN(len(turns))](&req)

		got, err := long.Render(context.Background(), req)
		require.NoError(t, err, "%d: %s", i, file)
		fresh, err := engine.New(pack, opts...)
		require.NoError(t, err)
		want, err := fresh.Render(context.Background(), req)
		require.NoError(t, err)
		require.Equal(t, want.Layers, got.Layers, "%d: %s", i, file)
		require.Equal(t, want.Omitted, got.Omitted, "%d: %s", i, file)
	}
}

// A layer served from the memo is the caller's own: changing one result's
// section list changes no later result.
func TestMemoisedLayersAreTheCallersCopy(t *testing.T) {
	e, err := engine.New(os.DirFS(".."), engine.WithFS(exampleWorkspace(t)))
	require.NoError(t, err)
	req, err := engine.ParseRequest("direct.toml", mustReadFile(t, "../examples/requests/direct.toml"))
	require.NoError(t, err)
	req.Workspace.Path = "/ws"
	first, err := e.Render(context.Background(), req)
	require.NoError(t, err)
	want := slices.Clone(first.Layers[0].Sections)
	for range 2 {
		res, err := e.Render(context.Background(), req)
		require.NoError(t, err)
		require.Equal(t, want, res.Layers[0].Sections)
		require.Equal(t, first.Omitted, res.Omitted)
		res.Layers[0].Sections[0].ID = "changed"
		first.Layers[0].Sections[1].End = -1
		res.Omitted[0].Reason = "changed"
	}
}

// Sections taken from the memo count against the prompt's output bound:
// a turn whose two large sections each come from an earlier turn fails
// as a fresh render of it does.
func TestMemoisedSectionsAreHeldToThePromptBound(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "a", "b"`), map[string]string{
		"a": section(dynamic, `{{ if eq .Date "2026-01-01T00:00:00Z" }}{{ repeat 1000 "a" }}{{ else }}a{{ end }}`),
		"b": section(dynamic, `{{ if .TTSHint }}{{ repeat 1000 "b" }}{{ else }}b{{ end }}`),
	})
	limits := engine.Limits{PromptOutput: 1500}
	long, err := engine.New(p, engine.WithLimits(limits))
	require.NoError(t, err)
	turn := func(date, tts string) engine.Request {
		r := directRequest()
		r.Date, r.TTSHint = date, tts
		return r
	}
	for _, r := range []engine.Request{turn("2026-01-01T00:00:00Z", ""), turn("2027-01-01T00:00:00Z", "x")} {
		_, err := long.Render(context.Background(), r)
		require.NoError(t, err)
	}
	both := turn("2026-01-01T00:00:00Z", "x")
	fresh, err := engine.New(p, engine.WithLimits(limits))
	require.NoError(t, err)
	_, err = fresh.Render(context.Background(), both)
	var le *engine.LimitError
	require.ErrorAs(t, err, &le)
	for range 2 { // a failed turn leaves nothing in the memo that lets the next pass
		_, err = long.Render(context.Background(), both)
		require.ErrorAs(t, err, &le)
		assert.Equal(t, engine.BoundPromptOutput, le.Bound)
	}
}

// A section reading one file by name is keyed on that file alone, so the
// blank lines tidy leaves alone are that file's only: another file whose
// text matches lines of the section does not change what it prints (it
// did, and an edit of that file left the memo answering as before).
func TestFileReadByNameKeepsTidyToThatFile(t *testing.T) {
	body := "{{ with .Files.Get \"AGENTS.md\" }}{{ .Name }}{{ end }}\nx\n\n\ny\n"
	p := minimalPack(t, manifest(`"identity", "one"`), map[string]string{"one": section(stable, body)})
	ws := workspaceFS(t, smallWorkspace())
	e, err := engine.New(p, engine.WithFS(ws))
	require.NoError(t, err)
	text := func(e *engine.Engine) string {
		res, err := e.Render(context.Background(), directRequest())
		require.NoError(t, err)
		return res.Layers[0].Text
	}
	first := text(e)
	assert.Contains(t, first, "AGENTS.md\nx\n\ny\n", "the section's own blank lines are folded")
	require.NoError(t, afero.WriteFile(ws, "/ws/SOUL.md", []byte("x\n\n\ny"), 0o644))
	fresh, err := engine.New(p, engine.WithFS(ws))
	require.NoError(t, err)
	assert.Equal(t, text(fresh), text(e), "the memo answers as a fresh engine")
	assert.Contains(t, text(fresh), "AGENTS.md\nx\n\ny\n")
}

// Templates that read the file lists through the narrowed forms (a file
// by name, a truth test) and around them, each over workspace edits: a
// long-lived engine answers as a fresh one.
func TestNarrowedReadsAnswerAsAFreshEngine(t *testing.T) {
	bodies := []string{
		`{{ if .Files.Injected }}yes{{ else }}no{{ end }}`,
		`{{ if false }}{{ else if .Files.Injected }}yes{{ else }}no{{ end }}`,
		`{{ with .Files.Injected }}{{ len . }}{{ end }}`,
		`{{ with .Files.Get "SOUL.md" }}{{ .Content }}{{ end }}`,
		`{{ $f := .Files }}{{ with $f.Get "SOUL.md" }}{{ .Content }}{{ end }}`,
		`{{ $v := . }}{{ with $v.Files.Get "SOUL.md" }}{{ .Content }}{{ end }}`,
		`{{ with $.Files.Get "SOUL.md" }}{{ .Content }}{{ end }}`,
		`{{ $n := "SOUL.md" }}{{ with .Files.Get $n }}{{ .Content }}{{ end }}`,
		`{{ with "SOUL.md" | .Files.Get }}{{ .Content }}{{ end }}`,
		`{{ with (.Files).Get "SOUL.md" }}{{ .Content }}{{ end }}`,
		`{{ .Files.Get "SOUL.md" }}`,
		`{{ include "q" . }}`,
		`{{ template "r" (.Files.Get "AGENTS.md") }}`,
		`{{ if .Files.Injected }}{{ range .Files }}{{ .Name }}:{{ .Content }};{{ end }}{{ end }}`,
		`{{ with .Files.Get "SOUL.md" }}{{ if eq .Status "MISSING" }}gone{{ else }}{{ .RawChars }}{{ end }}{{ end }}`,
		`{{ .Files.Except "AGENTS.md" }}`,
	}
	edits := []struct {
		name  string
		apply func(afero.Fs)
	}{
		{"SOUL.md edited", func(fs afero.Fs) { require.NoError(t, afero.WriteFile(fs, "/ws/SOUL.md", []byte("Cold.\n"), 0o644)) }},
		{"SOUL.md removed", func(fs afero.Fs) { require.NoError(t, fs.Remove("/ws/SOUL.md")) }},
		{"AGENTS.md edited", func(fs afero.Fs) { require.NoError(t, afero.WriteFile(fs, "/ws/AGENTS.md", []byte("Other.\n"), 0o644)) }},
		{"every file removed", func(fs afero.Fs) {
			for name := range smallWorkspace() {
				require.NoError(t, fs.Remove("/ws/"+name))
			}
		}},
	}
	text := func(e *engine.Engine) string {
		res, err := e.Render(context.Background(), directRequest())
		require.NoError(t, err)
		return res.Layers[0].Text
	}
	for _, body := range bodies {
		for _, edit := range edits {
			p := minimalPack(t, manifest(`"identity", "one"`), map[string]string{"one": section(stable, body)})
			addFile(p, "templates/q.tmpl", `{{ define "q" }}{{ if .Files.Injected }}{{ with .Files.Get "SOUL.md" }}{{ .Content }}{{ end }}{{ end }}{{ end }}`)
			addFile(p, "templates/r.tmpl", `{{ define "r" }}{{ .Content }}{{ end }}`)
			ws := workspaceFS(t, smallWorkspace())
			e, err := engine.New(p, engine.WithFS(ws))
			require.NoError(t, err, body)
			text(e)
			edit.apply(ws)
			fresh, err := engine.New(p, engine.WithFS(ws))
			require.NoError(t, err)
			assert.Equal(t, text(fresh), text(e), "%s after %s", body, edit.name)
		}
	}
}

// A stable section reading a per-turn field through a narrowed form still
// fails the tier check at New.
func TestTierCheckSeesNarrowedReads(t *testing.T) {
	for _, body := range []string{
		`{{ .DynamicFiles.Get "HEARTBEAT.md" }}`,
		`{{ if .DynamicFiles.Injected }}x{{ end }}`,
		`{{ with $ }}{{ if .DynamicFiles.Injected }}x{{ end }}{{ end }}`,
		`{{ include "p" . }}`,
	} {
		p := minimalPack(t, manifest(`"identity", "one"`), map[string]string{"one": section(stable, body)})
		addFile(p, "templates/p.tmpl", `{{ define "p" }}{{ (.DynamicFiles.Get "HEARTBEAT.md").Content }}{{ end }}`)
		_, err := engine.New(p)
		assert.ErrorContains(t, err, "stable section uses volatile field", body)
	}
}
