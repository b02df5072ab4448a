package main

import (
	"encoding"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sysprompt/sysprompt/engine/report"
)

// outputDocuments are the Go types of the CLI's JSON outputs, by the
// schema file that describes each.
var outputDocuments = map[string]reflect.Type{
	"render.schema.json":   reflect.TypeFor[renderDoc](),
	"report.schema.json":   reflect.TypeFor[report.Report](),
	"diff.schema.json":     reflect.TypeFor[report.Diff](),
	"packdiff.schema.json": reflect.TypeFor[report.PackDiff](),
	"explain.schema.json":  reflect.TypeFor[explainDoc](),
	"serve.schema.json":    reflect.TypeFor[serveReply](),
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// Every exported field reachable from an output document has an explicit
// snake_case JSON key, and schema_version comes first, so a field added
// without a tag (which encoding/json would print as "ID" or "Name")
// fails here.
func TestOutputFieldsHaveSnakeCaseKeys(t *testing.T) {
	for schema, typ := range outputDocuments {
		problems := jsonKeyProblems(typ)
		assert.Empty(t, problems, "%s (%s)", typ, schema)
		first := typ.Field(0)
		assert.Equal(t, "schema_version", jsonKey(first), "%s: the first field", typ)
		assert.Equal(t, reflect.Int, first.Type.Kind(), "%s.%s", typ, first.Name)
	}
}

// The walk catches what it is there to catch.
func TestJSONKeyProblemsFindsBadFields(t *testing.T) {
	type inner struct {
		Reason string
	}
	type doc struct {
		SchemaVersion int      `json:"schema_version"`
		Layer         string   `json:"layerName"`
		Items         []*inner `json:"items"`
		Extra         any      `json:"extra"`
		hidden        string
	}
	_ = doc{}.hidden
	assert.ElementsMatch(t, []string{
		"main.doc.Layer: key \"layerName\" is not snake_case",
		"main.inner.Reason: no json tag",
		"main.doc.Extra: interface {}: its keys cannot be checked",
	}, jsonKeyProblems(reflect.TypeFor[doc]()))
}

// jsonKeyProblems walks every type reachable from t through fields,
// pointers, slices, arrays and maps, and lists each exported field
// without a snake_case json tag.
func jsonKeyProblems(t reflect.Type) []string {
	var problems []string
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(t reflect.Type, where string) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			t = t.Elem()
		}
		if seen[t] {
			return
		}
		seen[t] = true
		switch {
		case t.Implements(reflect.TypeFor[json.Marshaler]()) || t.Implements(reflect.TypeFor[encoding.TextMarshaler]()):
			problems = append(problems, where+": "+t.String()+" encodes itself: its keys cannot be checked")
			return
		case t.Kind() == reflect.Interface:
			problems = append(problems, where+": "+t.String()+": its keys cannot be checked")
			return
		case t.Kind() == reflect.Map:
			if t.Key().Kind() != reflect.String {
				problems = append(problems, where+": map keys are not strings")
			}
			walk(t.Elem(), where)
			return
		case t.Kind() != reflect.Struct:
			return
		}
		for f := range fields(t) {
			name := t.String() + "." + f.Name
			key := jsonKey(f)
			switch {
			case key == "-":
				continue
			case f.Anonymous && key == "":
				// An untagged embedded struct's fields are printed inline;
				// the walk checks them as the struct's own.
			case key == "":
				problems = append(problems, name+": no json tag")
			case !snakeCase.MatchString(key):
				problems = append(problems, name+": key \""+key+"\" is not snake_case")
			}
			walk(f.Type, name)
		}
	}
	walk(t, t.String())
	return problems
}

// fields yields the exported fields of a struct type.
func fields(t reflect.Type) func(func(reflect.StructField) bool) {
	return func(yield func(reflect.StructField) bool) {
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && !yield(f) {
				return
			}
		}
	}
}

// jsonKey is the key a field's json tag names ("" for none).
func jsonKey(f reflect.StructField) string {
	key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return key
}
