package sysprompt_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Imports flow one way: cmd/render → engine → {funcs, vfs}. The engine
// never imports the root package (callers pass the pack in), the tools
// over a result import the renderer and not the reverse, and the leaf
// packages know nothing of the engine.
func TestImportDirection(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps=false", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, "./...").CombinedOutput()
	require.NoError(t, err, "%s", out)
	const mod = "github.com/sysprompt/sysprompt"
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, ":")
		imports[strings.TrimPrefix(strings.TrimPrefix(pkg, mod), "/")] = strings.Fields(deps)
	}
	require.Contains(t, imports, "engine")
	rules := []struct {
		from   string // packages with this prefix…
		to     string // …must not import this path
		prefix bool   // or any path under it
	}{
		{"engine", mod, false},                    // the root package: the pack is passed in
		{"engine", mod + "/cmd", true},            // the CLI
		{"engine", mod + "/golden", false},        // the snapshot harness
		{"engine", mod + "/engine/report", false}, // the report is a tool over a Result
		{"funcs", mod + "/engine", true},          // the leaves know nothing of the engine
		{"vfs", mod + "/engine", true},
		{"internal/", mod + "/engine", true},

		{"engine", mod + "/engine/provider", false}, // request bodies are a view over a Result too
	}
	for pkg, deps := range imports {
		for _, r := range rules {
			// engine/report is the tool over a Result; internal/packtest
			// is test support that renders.
			if !strings.HasPrefix(pkg, r.from) || pkg == "engine/report" || pkg == "internal/packtest" {
				continue
			}
			for _, dep := range deps {
				if dep == r.to || r.prefix && strings.HasPrefix(dep, r.to+"/") {
					t.Errorf("%s imports %s", pkg, dep)
				}
			}
		}
	}
}
