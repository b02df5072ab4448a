package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/report"
	"github.com/sysprompt/sysprompt/funcs"
)

func TestRenderSplitsAtTheBoundary(t *testing.T) {
	res := render(t, packWith(t, nil), directRequest(), engine.WithFS(workspaceFS(t, smallWorkspace())))
	require.Len(t, res.Layers, 1)
	l := res.Layers[0]
	assert.Equal(t, "system", l.Name)
	stable, dynamic, ok := strings.Cut(l.Text, "\n\n"+res.Boundary+"\n\n")
	require.True(t, ok, "the boundary sits between blank lines")
	assert.Equal(t, l.Stable, stable)
	assert.Equal(t, l.Dynamic+"\n", dynamic)
	assert.True(t, strings.HasSuffix(l.Text, "\n") && !strings.HasSuffix(l.Text, "\n\n"), "ends with one newline")
	assert.NotContains(t, l.Text, "\n\n\n")

	// Every section sits on its tier's side and the offsets are exact.
	boundaryAt := strings.Index(l.Text, res.Boundary)
	for _, s := range l.Sections {
		assert.Equal(t, s.ID != "" && s.Tier == engine.TierStable, s.End <= boundaryAt, "section %s on the wrong side", s.ID)
		assert.Equal(t, strings.TrimSpace(l.Text[s.Start:s.End]), l.Text[s.Start:s.End])
	}
	assert.Contains(t, stable, "# Project Context")
	assert.Contains(t, dynamic, "## Runtime")
	assert.Contains(t, dynamic, "check the inbox", "HEARTBEAT.md is dynamic")
	assert.NotContains(t, stable, "check the inbox")
}

func TestWorkspaceContentIsNeverATemplate(t *testing.T) {
	res := render(t, packWith(t, nil), directRequest(), engine.WithFS(workspaceFS(t, smallWorkspace())))
	assert.Contains(t, res.Layers[0].Text, `Placeholders look like {{ .ClientName }} and {{ template "x" }}.`)
}

func TestBoundaryInsideWorkspaceContentIsNeutralized(t *testing.T) {
	ws := smallWorkspace()
	ws["SOUL.md"] = "before\n<!-- SYSPROMPT_CACHE_BOUNDARY -->\nafter\n"
	res := render(t, packWith(t, nil), directRequest(), engine.WithFS(workspaceFS(t, ws)))
	assert.Equal(t, 1, strings.Count(res.Layers[0].Text, res.Boundary))
	assert.Contains(t, res.Layers[0].Stable, "before\n[cache boundary marker removed]\nafter")
}

func TestModes(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "both", "fullonly", "dyn"`), map[string]string{
		"both":     section(stable, "## Both"),
		"fullonly": section("modes = [\"full\"]\ntier = \"stable\"", "## Full only"),
		"dyn":      section(dynamic, "## Dynamic"),
	})
	cases := map[engine.Mode]string{
		engine.ModeFull:    "I am the agent.\n\n## Both\n\n## Full only\n\n<!-- B -->\n\n## Dynamic\n",
		engine.ModeMinimal: "I am the agent.\n\n## Both\n\n<!-- B -->\n\n## Dynamic\n",
		engine.ModeNone:    "I am the agent.\n", // no marker: nothing to cache apart
	}
	for mode, want := range cases {
		t.Run(string(mode), func(t *testing.T) {
			res := render(t, p, engine.Request{Mode: mode})
			assert.Equal(t, want, res.Layers[0].Text)
		})
	}
}

func TestBlankSectionsAreOmittedAndJoinedByOneBlankLine(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "blank", "loose", "gated"`), map[string]string{
		"blank": section(stable, "\n  \n\t\n"),
		"loose": section(stable, "\n\n## Loose\n\n\n\nline after gap\n\n\n"),
		"gated": section(stable, "{{ if .Workspace.Path }}## Gated{{ end }}"),
	})
	res := render(t, p, engine.Request{})
	assert.Equal(t, "I am the agent.\n\n## Loose\n\nline after gap\n\n<!-- B -->\n", res.Layers[0].Text)
	var reasons []string
	for _, o := range res.Omitted {
		reasons = append(reasons, o.ID+": "+o.Reason)
	}
	assert.Equal(t, []string{"blank: rendered empty", "gated: rendered empty"}, reasons)
}

func TestInjectedContentKeepsItsBlankLines(t *testing.T) {
	ws := smallWorkspace()
	ws["SOUL.md"] = "para one\n\n\n\npara two\n"
	res := render(t, packWith(t, nil), directRequest(), engine.WithFS(workspaceFS(t, ws)))
	assert.Contains(t, res.Layers[0].Text, "para one\n\n\n\npara two")
}

func TestStableSectionCannotReadVolatileFieldAtRenderTime(t *testing.T) {
	// Passing the view through a function hides the field from the static
	// check; the stable view still does not hold it.
	p := minimalPack(t, manifest(`"identity", "sneaky"`), map[string]string{
		"sneaky": section(stable, "{{ $v := dict \"x\" . }}\n{{ (index $v \"x\").Channel }}"),
	})
	e, err := engine.New(p)
	require.NoError(t, err)
	_, err = e.Render(context.Background(), directRequest())
	require.Error(t, err)
	var te *engine.TierError
	require.True(t, errors.As(err, &te), "got %v", err)
	assert.Equal(t, "Channel", te.Field)
	assert.Equal(t, `sections/sneaky.md.tmpl:6:14: section sneaky: stable section uses volatile field Channel: the cached prefix must not depend on it (move the use to a dynamic section)`, err.Error())
}

func TestDynamicSectionMayReadEverything(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "d"`), map[string]string{
		"d": section(dynamic, "{{ .Channel.ID }} {{ .Tools.Has \"READ\" }} {{ .Config.TimeFormat }}"),
	})
	res := render(t, p, directRequest())
	assert.Equal(t, "telegram true auto", res.Layers[0].Dynamic)
}

// Templates see a tool's name and description; its schema is sent to the
// model as the tool's definition, never as prompt text.
func TestToolsInTemplates(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "s"`), map[string]string{
		"s": section(stable, `{{ with .Tools.Get "EXEC" }}{{ .Name }}: {{ .Description }}{{ end }} {{ join "," .Tools.Names }}`),
	})
	req := directRequest()
	req.Tools[1].Schema = engine.Schema(`{"type": "object"}`)
	res := render(t, p, req)
	assert.Equal(t, "I am the agent.\n\nexec: Run a command. read,exec", res.Layers[0].Stable)
	assert.Equal(t, req.Tools, res.Tools, "the result keeps the schemas for the report")

	p = minimalPack(t, manifest(`"identity", "s"`), map[string]string{
		"s": section(stable, `{{ range .Tools }}{{ .Schema }}{{ end }}`),
	})
	e, err := engine.New(p)
	require.NoError(t, err)
	_, err = e.Render(context.Background(), req)
	require.ErrorContains(t, err, "sections/s.md.tmpl:5:22: section s: can't evaluate field Schema in type view.ToolInfo")
}

func TestExecErrorsAreTyped(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "d"`), map[string]string{
		"d": section(dynamic, "ok\n{{ required \"a channel id is needed\" .Channel.ID }}"),
	})
	e, err := engine.New(p)
	require.NoError(t, err)
	_, err = e.Render(context.Background(), engine.Request{})
	require.Error(t, err)
	var req *funcs.RequiredError
	require.True(t, errors.As(err, &req), "got %T %v", err, err)
	var ee *engine.Error
	require.True(t, errors.As(err, &ee))
	assert.Equal(t, engine.PhaseExec, ee.Phase)
	assert.Equal(t, "sections/d.md.tmpl", ee.File)
	assert.Equal(t, 6, ee.Line)
	assert.NotContains(t, err.Error(), "\n")
}

func TestHarnessLayers(t *testing.T) {
	m := manifest(`"identity", "d"`) + `
[[harness]]
name = "two"
[[harness.layer]]
name = "system"
sections = ["identity"]
[[harness.layer]]
name = "developer"
sections = ["dev"]
`
	p := minimalPack(t, m, map[string]string{
		"d":   section(dynamic, "dyn"),
		"dev": section(stable, "developer notes"),
	})
	res := render(t, p, engine.Request{Harness: "two"})
	require.Len(t, res.Layers, 2)
	assert.Equal(t, "system", res.Layers[0].Name)
	assert.Equal(t, "I am the agent.\n\n<!-- B -->\n", res.Layers[0].Text)
	assert.Equal(t, "developer", res.Layers[1].Name)
	assert.Equal(t, "developer notes\n\n<!-- B -->\n", res.Layers[1].Text)

	e, err := engine.New(p)
	require.NoError(t, err)
	_, err = e.Render(context.Background(), engine.Request{Harness: "three"})
	require.EqualError(t, err, `harness "three" is not declared in the pack (have embedded, two)`)
}

func TestProviderContributions(t *testing.T) {
	p := packWith(t, nil)
	req := directRequest()
	req.Contributions = []engine.Contribution{
		{StablePrefix: "## Contract\r\nBe exact.   \n", DynamicSuffix: "  ## Turn note\nshort  ", SectionOverrides: map[string]string{"tool_call_style": "## Calls\nearlier-override"}},
		{StablePrefix: "## Contract\nBe exact.", SectionOverrides: map[string]string{"tool_call_style": "## Calls\nsecond", "interaction_style": "## Style\nfriendly", "execution_bias": "## Bias\nminimal too"}},
	}
	res := render(t, p, req)
	l := res.Layers[0]
	assert.Equal(t, 1, strings.Count(l.Text, "## Contract\nBe exact."), "duplicate prefixes are dropped, text normalized")
	assert.Contains(t, l.Stable, "## Contract\nBe exact.\n\n## Safety", "prefix sits before Safety")
	assert.Contains(t, l.Dynamic, "## Turn note\nshort")
	assert.Contains(t, l.Stable, "## Calls\nsecond")
	assert.NotContains(t, l.Text, "## Tool Call Style")
	assert.NotContains(t, l.Text, "earlier-override")
	assert.Contains(t, l.Stable, "## Style\nfriendly")
	assert.Less(t, strings.Index(l.Stable, "## Style"), strings.Index(l.Stable, "## Calls"))

	// Execution Bias is full-mode text, but an override shows in minimal too.
	req.Mode = engine.ModeMinimal
	min := render(t, p, req)
	assert.Contains(t, min.Layers[0].Stable, "## Bias\nminimal too")
	req.Contributions = nil
	min = render(t, p, req)
	assert.NotContains(t, min.Layers[0].Text, "## Execution Bias")
}

func TestParallelRendersAreIdentical(t *testing.T) {
	e, err := engine.New(packWith(t, nil), engine.WithFS(workspaceFS(t, smallWorkspace())))
	require.NoError(t, err)
	first, err := e.Render(context.Background(), directRequest())
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 8*20)
	for range 8 {
		wg.Go(func() {
			for range 20 {
				res, err := e.Render(context.Background(), directRequest())
				if err != nil {
					errs <- err
					return
				}
				if res.Layers[0].Text != first.Layers[0].Text {
					errs <- errors.New("parallel render differs")
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestRenderIgnoresTheLocalZone(t *testing.T) {
	// The engine takes no clock and no local zone: the same request
	// renders the same bytes whatever time.Local is.
	saved := time.Local
	t.Cleanup(func() { time.Local = saved })
	req := directRequest()
	req.Session.Reset = true
	var texts []string
	for _, zone := range []*time.Location{time.UTC, time.FixedZone("IST", 5*3600+1800), time.FixedZone("HST", -10*3600)} {
		time.Local = zone
		res := render(t, packWith(t, nil), req, engine.WithFS(workspaceFS(t, smallWorkspace())))
		texts = append(texts, res.Layers[0].Text)
	}
	assert.Equal(t, texts[0], texts[1])
	assert.Equal(t, texts[0], texts[2])
}

func TestVolatileChangesKeepTheStablePrefix(t *testing.T) {
	e, err := engine.New(packWith(t, nil), engine.WithFS(workspaceFS(t, smallWorkspace())))
	require.NoError(t, err)
	base, err := e.Render(context.Background(), directRequest())
	require.NoError(t, err)
	changes := map[string]func(*engine.Request){
		"date": func(r *engine.Request) { r.Date = "2026-12-01T23:59:00Z" },
		"channel": func(r *engine.Request) {
			r.Channel = engine.Channel{ID: "discord", Delivery: "message_tool_only"}
		},
		"owners":  func(r *engine.Request) { r.Owners = []string{"a", "b"} },
		"runtime": func(r *engine.Request) { r.Runtime.Host = "other" },
		"extra":   func(r *engine.Request) { r.ExtraSystemPrompt = "Group rules." },
		"suffix":  func(r *engine.Request) { r.Contributions = []engine.Contribution{{DynamicSuffix: "later"}} },
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			req := directRequest()
			change(&req)
			res, err := e.Render(context.Background(), req)
			require.NoError(t, err)
			assert.Equal(t, base.Layers[0].StableSHA256(), res.Layers[0].StableSHA256())
			assert.Equal(t, base.Layers[0].Stable, res.Layers[0].Stable)
		})
	}
}

func TestRequestValidationAtRender(t *testing.T) {
	e, err := engine.New(packWith(t, nil))
	require.NoError(t, err)
	_, err = e.Render(context.Background(), engine.Request{Mode: "loud"})
	require.EqualError(t, err, `mode = "loud" is not allowed (want full, minimal, none)`)
}

func TestPackDefaultsSitBelowTheConfig(t *testing.T) {
	cfg, err := config.Parse("c.toml", []byte("[agents.defaults]\nbootstrapTotalMaxChars = 500\n"))
	require.NoError(t, err)
	p := minimalPack(t, manifest(`"identity", "d"`), map[string]string{
		"d": section(stable, "{{ .Config.BootstrapMaxChars }} {{ .Config.BootstrapTotalMaxChars }} {{ .Config.HeartbeatPrompt }}"),
	})
	setDefault(t, p, "max_chars", "123")
	setDefault(t, p, "total_max_chars", "456")
	setDefault(t, p, "prompt", `"Look at the pulse."`)
	res := render(t, p, engine.Request{}, engine.WithConfig(cfg))
	assert.Contains(t, res.Layers[0].Stable, "123 500 Look at the pulse.", "the pack's defaults apply where the config is silent")
}

func TestPackWithoutDefaultsIsAnError(t *testing.T) {
	p := minimalPack(t, manifest(`"identity"`), nil)
	delete(p.(fstest.MapFS), "templates/defaults.toml")
	_, err := engine.New(p)
	require.ErrorContains(t, err, "templates/defaults.toml: cannot read the pack's defaults")

	p = minimalPack(t, manifest(`"identity"`), nil)
	setDefault(t, p, "max_in_prompt", "0")
	_, err = engine.New(p)
	require.ErrorContains(t, err, "templates/defaults.toml:12:1: skills.max_in_prompt must be a positive number")
}

// A field reached through include, whose template name the static check
// cannot see, still fails as the direct use does.
func TestIncludedTemplateErrorsAreTheSectionsErrors(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "sneaky", "typo"`), map[string]string{
		"sneaky": section(stable, `{{ $n := "pz" }}{{ include $n $ }}`),
		"typo":   section(dynamic, `{{ $n := "py" }}{{ include $n $ }}`),
	})
	addFile(p, "templates/p.tmpl", `{{ define "pz" }}{{ .Channel.ID }}{{ end }}{{ define "py" }}{{ .Chanel }}{{ end }}`)
	e, err := engine.New(p)
	require.NoError(t, err)
	_, err = e.Render(context.Background(), directRequest())
	var te *engine.TierError
	require.True(t, errors.As(err, &te), "got %v", err)
	assert.Equal(t, "Channel", te.Field)
	var ee *engine.Error
	require.True(t, errors.As(err, &ee))
	assert.Equal(t, engine.PhaseTier, ee.Phase)

	addFile(p, "sections/sneaky.md.tmpl", section(stable, "ok"))
	e, err = engine.New(p)
	require.NoError(t, err)
	_, err = e.Render(context.Background(), directRequest())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the section data has no field Chanel")
	assert.NotContains(t, err.Error(), "struct {", "the generated view type is not printed")
}

// An error inside an included template is placed where it happened, as
// one inside a template called by {{ template }} is, not at the include.
func TestIncludedTemplateErrorsArePlacedInTheTemplate(t *testing.T) {
	for _, call := range []string{`{{ include "p" . }}`, `{{ template "p" . }}`, `{{ include "q" . }}`} {
		p := minimalPack(t, manifest(`"identity", "x"`), map[string]string{"x": section(dynamic, call)})
		addFile(p, "templates/p.tmpl", "{{ define \"p\" }}\nline\n  {{ fail \"inside p\" }}{{ end }}{{ define \"q\" }}{{ include \"p\" . }}{{ end }}")
		e, err := engine.New(p)
		require.NoError(t, err)
		_, err = e.Render(context.Background(), directRequest())
		assert.EqualError(t, err, "templates/p.tmpl:3:6: section x: error calling fail: inside p", call)
		_, ok := errors.AsType[*funcs.FailError](err)
		assert.True(t, ok, "the cause survives: %T", err)
	}
}

func TestOutlineIsTheCallersCopy(t *testing.T) {
	res := render(t, minimalPack(t, manifest(`"identity", "d"`), map[string]string{"d": section(dynamic, "d")}), engine.Request{})
	o := res.Outline()
	require.Len(t, o.Layers, 1)
	assert.Equal(t, []engine.OutlineSection{{ID: "identity", Tier: engine.TierStable}, {ID: "d", Tier: engine.TierDynamic}}, o.Layers[0].Sections)
	o.Layers[0].Sections[0].ID = "changed"
	assert.Equal(t, "identity", res.Outline().Layers[0].Sections[0].ID)
}

// The outline says what each section's template reads, as the memo keys
// it: field paths, or anything once the data escapes.
func TestOutlineSaysWhatSectionsRead(t *testing.T) {
	p := minimalPack(t, manifest(`"identity", "ch", "all"`), map[string]string{
		"ch":  section(dynamic, "{{ .Channel.Delivery }}{{ if .Files }}f{{ end }}"),
		"all": section(dynamic, `{{ printf "%v" . }}`),
	})
	res := render(t, p, engine.Request{})
	o := res.Outline()
	require.Len(t, o.Layers[0].Sections, 3)
	ch, all := o.Layers[0].Sections[1], o.Layers[0].Sections[2]
	assert.Equal(t, []string{"Channel.Delivery", "Files"}, ch.Reads)
	assert.True(t, ch.ReadsField("Channel"), "a part of Channel")
	assert.True(t, ch.ReadsField("Files"))
	assert.False(t, ch.ReadsField("Skills"))
	assert.False(t, ch.ReadsField("Chan"), "names, not prefixes")
	assert.True(t, all.ReadsAll)
	assert.True(t, all.ReadsField("Skills"))
	ch.Reads[0] = "changed"
	assert.Equal(t, "Channel.Delivery", res.Outline().Layers[0].Sections[1].Reads[0], "the reads are the caller's copy too")
}

// No prompt holds more than Limits.PromptOutput, so neither bootstrap
// budget counts past it: a file over it under a huge budget is cut there
// (and held in memory only that far) rather than read whole.
func TestBootstrapBudgetsStopAtThePromptBound(t *testing.T) {
	cfg, err := config.Parse("c.toml", []byte("[agents.defaults]\nbootstrapMaxChars = 1000000000\nbootstrapTotalMaxChars = 1000000000\n"))
	require.NoError(t, err)
	p := minimalPack(t, manifest(`"identity", "d"`), map[string]string{
		"d": section(stable, `{{ with .Files.Get "AGENTS.md" }}{{ .Status }} {{ .RawChars }} {{ len .Content }}{{ end }}`),
	})
	files := smallWorkspace()
	files["AGENTS.md"] = strings.Repeat("a", 50_000)
	e, err := engine.New(p, engine.WithFS(workspaceFS(t, files)), engine.WithConfig(cfg),
		engine.WithLimits(engine.Limits{PromptOutput: 20_000, SectionOutput: 20_000}))
	require.NoError(t, err)
	res, err := e.Render(context.Background(), directRequest())
	require.NoError(t, err)
	var status, raw, kept string
	_, err = fmt.Sscan(strings.SplitN(res.Layers[0].Stable, "\n\n", 2)[1], &status, &raw, &kept)
	require.NoError(t, err, res.Layers[0].Stable)
	assert.Equal(t, []string{"TRUNCATED", "50000"}, []string{status, raw})
	n, _ := strconv.Atoi(kept)
	assert.LessOrEqual(t, n, 20_000)
	assert.Equal(t, 1_000_000_000, res.Settings.BootstrapMaxChars, "the settings say what was configured")
}

// The prompt bound caps the budgets the files are cut to, not the ones
// the result states: near-limit flags and the "once" warning's signature
// are of the configured budgets, whatever the engine's Limits.
func TestBoundedBudgetsStillReportTheConfiguredOnes(t *testing.T) {
	cfg, err := config.Parse("c.toml", []byte("[agents.defaults]\nbootstrapMaxChars = 1000000000\nbootstrapTotalMaxChars = 1000000000\n"))
	require.NoError(t, err)
	p := minimalPack(t, manifest(`"identity", "d"`), map[string]string{
		"d": section(stable, `{{ with .Files.Get "AGENTS.md" }}{{ .Content }}{{ end }}`),
	})
	files := smallWorkspace()
	files["AGENTS.md"] = strings.Repeat("a", 18_000) // 90 % of the bound, nowhere near the budget
	e, err := engine.New(p, engine.WithFS(workspaceFS(t, files)), engine.WithConfig(cfg),
		engine.WithLimits(engine.Limits{PromptOutput: 20_000, SectionOutput: 20_000}))
	require.NoError(t, err)
	res, err := e.Render(context.Background(), directRequest())
	require.NoError(t, err)
	for _, f := range res.Files {
		assert.False(t, f.NearLimit, f.Name)
	}
	for _, w := range report.Build(res, report.EstimateTokens{}).Warnings {
		assert.NotEqual(t, "file_near_limit", w.Code, w.Message)
	}

	cfg, err = config.Parse("c.toml", []byte("[agents.defaults]\nbootstrapMaxChars = 1000\nbootstrapTotalMaxChars = 1000000000\n"))
	require.NoError(t, err)
	files["AGENTS.md"] = strings.Repeat("a", 5_000)
	signature := func(opts ...engine.Option) string {
		e, err := engine.New(p, append(opts, engine.WithFS(workspaceFS(t, files)), engine.WithConfig(cfg))...)
		require.NoError(t, err)
		res, err := e.Render(context.Background(), directRequest())
		require.NoError(t, err)
		return res.TruncationSignature
	}
	sig := signature()
	assert.Equal(t, sig, signature(engine.WithLimits(engine.Limits{PromptOutput: 100_000})))
	assert.Contains(t, sig, `"totalMaxChars":1000000000`)
}

// A /new turn checks the zone its daily notes are named in, with or
// without lightContext (a Config built in code is not checked before).
func TestResetTurnChecksTheZoneEvenWhenLight(t *testing.T) {
	tz := "Mars/Olympus"
	cfg := &config.Config{Agents: config.AgentsConfig{Defaults: config.AgentSettings{UserTimezone: &tz}}}
	p := minimalPack(t, manifest(`"identity", "one"`), map[string]string{"one": section(stable, "x")})
	e, err := engine.New(p, engine.WithFS(workspaceFS(t, smallWorkspace())), engine.WithConfig(cfg))
	require.NoError(t, err)
	req := directRequest()
	req.Timezone, req.SessionKind, req.Session.Reset = "", "cron", true // the config's zone applies
	for _, light := range []bool{false, true} {
		req.LightContext = light
		_, err := e.Render(context.Background(), req)
		assert.ErrorContains(t, err, `time zone "Mars/Olympus"`, "light: %v", light)
	}
}
