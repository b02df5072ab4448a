package dot

import (
	"flag"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite sections/DATA.md from the view types")

// dataRef is sections/DATA.md, the field reference for section authors.
const dataRef = "../../../sections/DATA.md"

// TestDataReference checks that sections/DATA.md lists every field and
// method a section's dot holds, as the view types (Full, and the tier
// tags behind Stable) and their Go doc comments say today.
func TestDataReference(t *testing.T) {
	got := dataReference(t)
	if *update {
		require.NoError(t, os.WriteFile(dataRef, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(dataRef)
	require.NoError(t, err)
	assert.Equal(t, string(want), got, "sections/DATA.md is stale: go test ./engine/internal/dot -update")
}

// TestDataReferenceFollowsTheViews checks the reference against the
// views themselves: a field the full view gains, a tier that changes or a
// method a view type gains shows up in it.
func TestDataReferenceFollowsTheViews(t *testing.T) {
	ref := dataReference(t)
	stable := map[string]bool{}
	for _, f := range Stable.Fields {
		stable[f.Name] = true
	}
	for _, f := range Full.Fields {
		tier := "dynamic"
		if stable[f.Name] {
			tier = "stable"
		}
		assert.Regexp(t, fmt.Sprintf("(?m)^\\| `\\.%s` \\| `[^`]+` \\| %s \\|", f.Name, tier), ref)
	}
	for _, row := range []string{
		"| `.Has` | `func(string) bool` |", "| `.HasAny` | `func(...string) bool` |", "| `.Get` | `func(string) *ToolInfo` |",
		"| `.Get` | `func(string) *File` |", "| `.Names` | `func() []string` |", "| `.Injected` | `func() FileList` |",
		"| `.Only` | `func(...string) FileList` |", "| `.With` | `func([]string) ChannelInfo` |", "| `.Channel` | `func(string) ChannelInfo` |",
		"| `.Delivery` | `string` |", "| `.DelegationMode` | `string` |", "| `.Status` | `string` | Status is what happened to a bootstrap file. Values: `\"OK\"`",
	} {
		if !strings.Contains(ref, row) {
			t.Errorf("the reference has no row %s", row)
		}
	}
}

// dataReference renders the reference: the dot's fields with their type,
// tier and request key, then every struct or method-bearing type they
// reach, with its fields and methods. Descriptions are the first sentence
// of each Go doc comment.
func dataReference(t *testing.T) string {
	docs := goDocs(t)
	var b strings.Builder
	b.WriteString(`# Template data

<!-- Generated from the engine's view types by go test ./engine/internal/dot -update; do not edit. -->

This is every field and method a section's dot holds; the guide to
writing sections (sections/README.md in the repository) shows how
sections use them. Tier says who may read a field:
every section may read a stable one; only a dynamic section may read a
dynamic one, and a stable section that does fails ` + "`render lint`" + ` and every
render. Key is the request key that sets the field; the engine derives
the others. Types that hold more fields or methods are listed after the
dot. A method takes its arguments after its name, as in
` + "`{{ if .Tools.Has \"exec\" }}`" + `.

## The dot

| field | type | tier | key | description |
|---|---|---|---|---|
`)
	volatile := map[string]bool{}
	for _, f := range append(slices.Clip(requestFields), derivedFields...) {
		volatile[f.key] = Volatile[f.key]
	}
	var queue []reflect.Type
	rt, dt := reflect.TypeFor[Request](), reflect.TypeFor[Derived]()
	for i, f := range Full.Fields {
		typ := Full.Type.Field(i).Type
		queue = append(queue, typ)
		tier, key := "stable", ""
		if volatile[f.Name] {
			tier = "dynamic"
		}
		owner := dt
		if f.Request >= 0 {
			owner, key = rt, "`"+rt.Field(f.Request).Tag.Get("toml")+"`"
		}
		fmt.Fprintf(&b, "| `.%s` | `%s` | %s | %s | %s |\n", f.Name, typeName(typ), tier, key, describe(docs, owner, f.Name, typ))
	}

	seen := map[string]bool{}
	var types []reflect.Type
	for len(queue) > 0 {
		typ := queue[0]
		queue = queue[1:]
		for typ.Name() == "" || typ.Kind() != reflect.Struct && typ.NumMethod() == 0 {
			if k := typ.Kind(); k != reflect.Pointer && k != reflect.Slice && k != reflect.Map {
				break
			}
			typ = typ.Elem()
		}
		if typ.Name() == "" || seen[typ.Name()] || typ.Kind() != reflect.Struct && typ.NumMethod() == 0 {
			continue
		}
		seen[typ.Name()] = true
		types = append(types, typ)
		if k := typ.Kind(); k == reflect.Slice || k == reflect.Map {
			queue = append(queue, typ.Elem())
		}
		for i := 0; i < typ.NumMethod(); i++ {
			m := typ.Method(i).Type
			for j := 1; j < m.NumIn(); j++ {
				queue = append(queue, m.In(j))
			}
			for j := 0; j < m.NumOut(); j++ {
				queue = append(queue, m.Out(j))
			}
		}
		if typ.Kind() == reflect.Struct {
			for _, f := range reflect.VisibleFields(typ) {
				if f.IsExported() {
					queue = append(queue, f.Type)
				}
			}
		}
	}
	slices.SortFunc(types, func(a, b reflect.Type) int { return strings.Compare(a.Name(), b.Name()) })
	b.WriteString("\n## Types\n")
	for _, typ := range types {
		fmt.Fprintf(&b, "\n### %s\n\n", typ.Name())
		if d := docs[docKey(typ, "")]; d != "" {
			b.WriteString(d + "\n\n")
		}
		switch typ.Kind() {
		case reflect.Slice:
			fmt.Fprintf(&b, "A `%s`.\n\n", typeName(reflect.SliceOf(typ.Elem())))
		case reflect.Map:
			fmt.Fprintf(&b, "A `%s`.\n\n", typeName(reflect.MapOf(typ.Key(), typ.Elem())))
		}
		b.WriteString("| field or method | type | description |\n|---|---|---|\n")
		if typ.Kind() == reflect.Struct {
			for _, f := range reflect.VisibleFields(typ) {
				if f.IsExported() {
					fmt.Fprintf(&b, "| `.%s` | `%s` | %s |\n", f.Name, typeName(f.Type), describe(docs, typ, f.Name, f.Type))
				}
			}
		}
		for i := 0; i < typ.NumMethod(); i++ {
			m := typ.Method(i)
			fmt.Fprintf(&b, "| `.%s` | `%s` | %s |\n", m.Name, funcName(m.Type), cell(docs[docKey(typ, m.Name)]))
		}
	}
	return b.String()
}

// describe is a field's description: its doc comment, else its type's,
// and the values of an enumerated type.
func describe(docs map[string]string, owner reflect.Type, field string, typ reflect.Type) string {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice && typ.Name() == "" {
		typ = typ.Elem()
	}
	d := docs[docKey(owner, field)]
	if d == "" && typ.Name() != "" {
		d = docs[docKey(typ, "")]
	}
	if v := docs[docKey(typ, "")+" values"]; v != "" {
		if d != "" && !strings.HasSuffix(d, ".") {
			d += "."
		}
		d = strings.TrimSpace(d + " Values: " + v + ".")
	}
	return cell(d)
}

// typeName spells a type as a template author reads it: without package
// names, and a named string or number type as its kind (Mode is a string).
func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + typeName(t.Elem())
	case reflect.Slice:
		if t.Name() == "" || t.NumMethod() == 0 {
			return "[]" + typeName(t.Elem())
		}
	case reflect.Map:
		if t.Name() == "" || t.NumMethod() == 0 {
			return "map[" + typeName(t.Key()) + "]" + typeName(t.Elem())
		}
	case reflect.Struct:
	default:
		if t.NumMethod() == 0 {
			return t.Kind().String()
		}
	}
	return t.Name()
}

// funcName spells a method's type without its receiver.
func funcName(m reflect.Type) string {
	var in, out []string
	for i := 1; i < m.NumIn(); i++ {
		s := typeName(m.In(i))
		if m.IsVariadic() && i == m.NumIn()-1 {
			s = "..." + strings.TrimPrefix(s, "[]")
		}
		in = append(in, s)
	}
	for i := 0; i < m.NumOut(); i++ {
		out = append(out, typeName(m.Out(i)))
	}
	return "func(" + strings.Join(in, ", ") + ") " + strings.Join(out, ", ")
}

// docKey names a type ("pkg.T") or one of its fields or methods
// ("pkg.T.F") in the map goDocs returns.
func docKey(t reflect.Type, member string) string {
	k := t.PkgPath() + "." + t.Name()
	if member != "" {
		k += "." + member
	}
	return k
}

// goDocs reads the first sentence of the doc comment of every type,
// struct field and method in this module's non-test Go files, keyed by
// docKey. A field's trailing comment counts when it has no doc comment.
func goDocs(t *testing.T) map[string]string {
	const module = "github.com/sysprompt/sysprompt"
	root := "../../.."
	docs := map[string]string{}
	synopsis := func(g *ast.CommentGroup) string {
		return new(doc.Package).Synopsis(g.Text())
	}
	files, err := filepath.Glob(filepath.Join(root, "engine", "*", "*.go"))
	require.NoError(t, err)
	more, err := filepath.Glob(filepath.Join(root, "engine", "internal", "*", "*.go"))
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, name := range append(files, more...) {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		require.NoError(t, err)
		rel, err := filepath.Rel(root, filepath.Dir(name))
		require.NoError(t, err)
		pkg := module + "/" + filepath.ToSlash(rel)
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if vs, ok := s.(*ast.ValueSpec); ok && d.Tok == token.CONST && len(vs.Values) == len(vs.Names) {
						typ, ok := vs.Type.(*ast.Ident)
						for _, v := range vs.Values {
							if lit, isLit := v.(*ast.BasicLit); ok && isLit {
								k := pkg + "." + typ.Name + " values"
								docs[k] = strings.TrimPrefix(docs[k]+", `"+lit.Value+"`", ", ")
							}
						}
					}
					ts, ok := s.(*ast.TypeSpec)
					if !ok {
						continue
					}
					g := ts.Doc
					if g == nil && len(d.Specs) == 1 {
						g = d.Doc
					}
					docs[pkg+"."+ts.Name.Name] = synopsis(g)
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, field := range st.Fields.List {
						g := field.Doc
						if g == nil {
							g = field.Comment
						}
						for _, n := range field.Names {
							docs[pkg+"."+ts.Name.Name+"."+n.Name] = synopsis(g)
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil || len(d.Recv.List) != 1 {
					continue
				}
				recv := d.Recv.List[0].Type
				if star, ok := recv.(*ast.StarExpr); ok {
					recv = star.X
				}
				if id, ok := recv.(*ast.Ident); ok {
					docs[pkg+"."+id.Name+"."+d.Name.Name] = synopsis(d.Doc)
				}
			}
		}
	}
	return docs
}

// cell makes text safe in a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}
