package engine_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
)

// Lint executes the sections, so an error only some turns meet is found,
// each once, in file order, at its position and with the first turn that
// meets it; a render that meets none still succeeds.
func TestLintExecutesEveryTurn(t *testing.T) {
	p := hostilePack(t, `{{ if .LightContext }}{{ fail "light cron only" }}{{ end }}
{{ if eq .ChatType "channel" }}{{ fail "channel only" }}{{ end }}
{{ if .Heartbeat.Prompt }}{{ index .Owners 9 }}{{ end }}`, "")
	_, err := engine.New(p)
	require.NoError(t, err, "New does not execute")
	res := engine.Lint(p)
	require.Len(t, res.Errors, 3, "%v", res.Errors)
	assert.Regexp(t, `^sections/hostile.md.tmpl:5:\d+: section hostile: mode=full harness=embedded chat=direct session=cron request=generated-light: error calling fail: light cron only$`, res.Errors[0].Error())
	assert.Regexp(t, `^sections/hostile.md.tmpl:6:\d+: section hostile: mode=full harness=embedded chat=channel session=main request=generated-full: error calling fail: channel only$`, res.Errors[1].Error())
	assert.Regexp(t, `^sections/hostile.md.tmpl:7:\d+: section hostile: mode=full harness=embedded chat=direct session=main request=generated-full: error calling index: index out of range: 9$`, res.Errors[2].Error())
	assert.Positive(t, res.Turns)
}

// The requests given run as they are; one naming a harness the pack does
// not declare is skipped.
func TestLintRunsTheGivenRequests(t *testing.T) {
	p := hostilePack(t, `{{ if eq .Agent "given" }}{{ fail "from the given request" }}{{ end }}`, "")
	res := engine.Lint(p, engine.LintRequest{Name: "given.toml", Request: engine.Request{Agent: "given"}},
		engine.LintRequest{Name: "other.toml", Request: engine.Request{Agent: "given", Harness: "codex"}})
	require.Len(t, res.Errors, 1)
	assert.Regexp(t, `^sections/hostile.md.tmpl:5:\d+: section hostile: request=given.toml: error calling fail: from the given request$`, res.Errors[0].Error())
}

// A method or vars key a chain from the view names wrongly fails New, at
// the name, with the nearest one.
func TestChainTyposFailAtTheirName(t *testing.T) {
	for body, want := range map[string]string{
		`{{ .Tools.HasAnyy "x" }}`:   `sections/hostile.md.tmpl:5:11: section hostile: .Tools has no field or method HasAnyy (did you mean HasAny?)`,
		`{{ $.Pack.Vars.clii }}`:     `sections/hostile.md.tmpl:5:16: section hostile: .Pack.Vars has no key clii (keys: )`,
		`{{ .Channel.Delivry }}`:     `sections/hostile.md.tmpl:5:13: section hostile: .Channel has no field or method Delivry (did you mean Delivery?)`,
		`{{ .Date.Year }}`:           `sections/hostile.md.tmpl:5:10: section hostile: .Date has no field or method Year`,
		`{{ .Pack.Channel "x" }}`:    ``,
		`{{ .ModelAliases.anyKey }}`: ``,
	} {
		_, err := engine.New(hostilePack(t, body, ""))
		if want == "" {
			assert.NoError(t, err, body)
			continue
		}
		assert.EqualError(t, err, want, body)
	}
}
