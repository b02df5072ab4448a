package pack

import (
	"fmt"
	"io/fs"
	"regexp"
	"regexp/syntax"
	"sync"

	"github.com/sysprompt/sysprompt/engine/internal/diag"
	"github.com/sysprompt/sysprompt/engine/internal/strict"
)

const modelsPath = "templates/models.toml"

// ModelWindow is one row of the pack's model table: the context window
// of the models Match finds in runtime.model, and the tokens to keep
// free for the model's answer.
type ModelWindow struct {
	Match         string `toml:"match"`
	ContextWindow int    `toml:"context_window"`
	OutputReserve int    `toml:"output_reserve"`
	// re is Match compiled on first use: only a context report asks for
	// a window, and a cold render spent more compiling the table than
	// the checks that validate it (regexp/syntax.Parse) cost.
	re func() *regexp.Regexp
}

// readModels reads templates/models.toml; a pack without it knows no
// model's window.
func readModels(fsys fs.FS) ([]ModelWindow, diag.ErrorList) {
	var doc struct {
		Model []ModelWindow `toml:"model"`
	}
	src, errs := decodeOptional(fsys, modelsPath, &doc)
	if src == "" || errs != nil {
		return nil, errs
	}
	fail := func(i int, format string, args ...any) diag.ErrorList {
		line := 0
		if headers := strict.Headers(src, "model"); i < len(headers) {
			line = headers[i]
		}
		return diag.ErrorList{{Phase: diag.PhaseManifest, File: modelsPath, Line: line, Col: 1,
			Err: fmt.Errorf("[[model]] entry %d: "+format, append([]any{i + 1}, args...)...)}}
	}
	for i := range doc.Model {
		m := &doc.Model[i]
		_, err := syntax.Parse(m.Match, syntax.Perl) // the check regexp.Compile makes
		switch {
		case m.Match == "":
			return nil, fail(i, "match is empty")
		case err != nil:
			return nil, fail(i, "bad match pattern %q: %v", m.Match, err)
		case m.ContextWindow <= 0:
			return nil, fail(i, "context_window must be a positive number of tokens, not %d", m.ContextWindow)
		case m.OutputReserve < 0 || m.OutputReserve >= m.ContextWindow:
			return nil, fail(i, "output_reserve %d must be at least 0 and below context_window %d", m.OutputReserve, m.ContextWindow)
		}
		pattern := m.Match
		m.re = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
	}
	return doc.Model, nil
}

// Window returns the first row of the table whose pattern matches model.
func (p *Pack) Window(model string) (ModelWindow, bool) {
	for _, m := range p.Models {
		if model != "" && m.re().MatchString(model) {
			return m, true
		}
	}
	return ModelWindow{}, false
}
