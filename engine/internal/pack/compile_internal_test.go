package pack

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/template"
	"text/template/parse"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine/internal/meter"
)

// builtinNames must name exactly the functions text/template's builtins()
// predefines: a missing one would make a valid template fail to parse, an
// extra one would let a call to an unknown function through to execution.
func TestBuiltinNames(t *testing.T) {
	for name := range builtinNames {
		_, err := template.New("t").Parse("{{" + name + "}}")
		assert.NoError(t, err, "%s is not a text/template builtin", name)
	}

	pkg, err := build.Import("text/template", "", build.FindOnly)
	if err != nil {
		t.Skipf("text/template source not found: %v", err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(pkg.Dir, "funcs.go"), nil, 0)
	if err != nil {
		t.Skipf("text/template source not readable: %v", err)
	}
	var want []string
	ast.Inspect(f, func(n ast.Node) bool {
		fn, ok := n.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "builtins" {
			return true
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if kv, ok := n.(*ast.KeyValueExpr); ok {
				if lit, ok := kv.Key.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, err := strconv.Unquote(lit.Value)
					require.NoError(t, err)
					want = append(want, s)
				}
			}
			return true
		})
		return false
	})
	require.NotEmpty(t, want, "no builtins() found in %s", pkg.Dir)
	slices.Sort(want)
	assert.Equal(t, want, slices.Sorted(maps.Keys(builtinNames)))
}

// Parsing a file with parse.Parse against the shared map gives the trees
// Template.Parse gives with the map copied into the template.
func TestParseLikeTemplateParse(t *testing.T) {
	p, errs := Load(sysprompt.Pack)
	require.Empty(t, errs)
	files := map[string]string{}
	for _, pf := range p.partials {
		files[pf.file] = pf.text
	}
	for _, sec := range p.Sections {
		files[sec.File] = sec.Body
	}
	files["bad.tmpl"] = "{{ env \"HOME\" }}"
	files["unclosed.tmpl"] = "a\n{{ if .X }}"
	for file, text := range files {
		ref, refErr := template.New(file).Funcs(funcMap()).Parse(text)
		trees, err := parse.Parse(file, text, "", "", funcMap(), builtinNames)
		if refErr != nil {
			assert.EqualError(t, err, refErr.Error(), file)
			continue
		}
		require.NoError(t, err, file)
		got := map[string]string{}
		for name, tree := range trees {
			got[name] = tree.Root.String()
		}
		want := map[string]string{}
		for _, tt := range ref.Templates() {
			want[tt.Name()] = tt.Tree.Root.String()
		}
		assert.Equal(t, want, got, file)
	}
}

// None of the built-in pack's templates can call itself, so the meter
// frames none of them: a turn pays one step call per section and per
// partial include calls, none per partial called with {{template}}.
func TestBuiltinPackIsNotFramed(t *testing.T) {
	p, errs := Load(sysprompt.Pack)
	require.Empty(t, errs)
	set := template.New("").Funcs(funcMap())
	for _, pf := range p.partials {
		template.Must(set.New(pf.file).Parse(pf.text))
	}
	for _, sec := range p.Sections {
		template.Must(set.New(sec.File).Parse(sec.Body))
	}
	meter.Instrument(set)
	stepped, total := 0, 0
	for _, tt := range set.Templates() {
		if tt.Tree == nil {
			continue
		}
		total++
		body := tt.Tree.Root.String()
		if strings.HasPrefix(body, "{{_sysprompt_step ") {
			stepped++
		}
		assert.NotContains(t, body, "_sysprompt_enter", tt.Name())
		if strings.HasPrefix(tt.Name(), "sections/") {
			assert.True(t, strings.HasPrefix(body, "{{_sysprompt_step "), "%s starts with %.40q", tt.Name(), body)
		}
	}
	t.Logf("%d of %d templates count their size when they start; the rest are folded into their callers", stepped, total)
}
