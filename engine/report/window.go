package report

import (
	"fmt"

	"github.com/sysprompt/sysprompt/engine"
)

// WindowReport places the request in the model's context window. Free is
// what is left after the request and the output reserve; negative when
// they do not fit. With no known window every figure but Used is zero.
type WindowReport struct {
	Model         string `json:"model"`
	ContextWindow int    `json:"context_window"`
	OutputReserve int    `json:"output_reserve"`
	// Source is where ContextWindow comes from: "-context-window",
	// "config contextTokens", "templates/models.toml", or "" when unknown.
	Source string `json:"source"`
	Used   int    `json:"used"` // the request's tokens
	Free   int    `json:"free"`
	// UsedPermille is Used per thousand tokens of the window, rounded
	// down: 28 is 2.8 %.
	UsedPermille int `json:"used_permille"`
}

// The shares past which a report warns; documented in the README.
const (
	// ToolsShare: tool descriptions and schemas over a fifth of the
	// request crowd out the prompt the pack writes.
	ToolsShare = 0.20
	// WindowShare: a request over half the window leaves the conversation
	// little room before the host compacts it.
	WindowShare = 0.50
)

// Warning is one figure past its threshold.
type Warning struct {
	// Code is "file_near_limit", "files_near_total_limit",
	// "skills_near_budget", "tools_share", "window_share" or
	// "over_window".
	Code    string `json:"code"`
	Message string `json:"message"`
}

func windowReport(w engine.Window, used int) WindowReport {
	out := WindowReport{Model: w.Model, ContextWindow: w.ContextWindow, OutputReserve: w.OutputReserve, Source: w.Source, Used: used}
	if out.ContextWindow > 0 {
		out.Free = out.ContextWindow - out.OutputReserve - used
		out.UsedPermille = used * 1000 / out.ContextWindow
	}
	return out
}

// warnings lists the report's figures past their thresholds, in a fixed
// order: files, skills, tools, window.
func warnings(r Report, skillsBudget int) []Warning {
	out := []Warning{}
	add := func(code, format string, args ...any) {
		out = append(out, Warning{Code: code, Message: fmt.Sprintf(format, args...)})
	}
	b := r.Bootstrap
	for _, f := range b.Files {
		if f.ShowNearLimit() {
			add("file_near_limit", "%s is %s chars, %s of the %s-char per-file budget", f.Name, Thousands(f.InjectedChars), share(f.InjectedChars, b.MaxChars), Thousands(b.MaxChars))
		}
	}
	if b.TotalNearLimit {
		add("files_near_total_limit", "workspace files use %s of the %s-char total budget", share(b.InjectedChars, b.TotalMaxChars), Thousands(b.TotalMaxChars))
	}
	if c := r.Skills.CatalogChars; skillsBudget > 0 && float64(c) >= NearLimitRatio*float64(skillsBudget*max(1, countKind(r.Parts, KindSkills))) {
		add("skills_near_budget", "the skills catalog is %s chars, near its %s-char budget", Thousands(c), Thousands(skillsBudget))
	}
	tools := r.Tools.DescriptionTokens + r.Tools.SchemaTokens
	if r.Request.Tokens > 0 && float64(tools) > ToolsShare*float64(r.Request.Tokens) {
		add("tools_share", "tool descriptions and schemas are %s tokens, %s of the request (over %d%%)", Thousands(tools), share(tools, r.Request.Tokens), int(ToolsShare*100))
	}
	w := r.Window
	switch {
	case w.ContextWindow > 0 && w.Free < 0:
		add("over_window", "the request (%s tokens) and the %s-token output reserve do not fit the %s-token window", Thousands(w.Used), Thousands(w.OutputReserve), Thousands(w.ContextWindow))
	case w.ContextWindow > 0 && float64(w.Used) > WindowShare*float64(w.ContextWindow):
		add("window_share", "the request fills %s of the %s-token window (over %d%%)", share(w.Used, w.ContextWindow), Thousands(w.ContextWindow), int(WindowShare*100))
	}
	return out
}

func countKind(parts []Part, kind string) int {
	n := 0
	for _, p := range parts {
		if p.Kind == kind {
			n++
		}
	}
	return n
}
