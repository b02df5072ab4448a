package funcs

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/names.golden")

// execute parses src with the function map, binds include as the engine does, and
// executes it against data.
func execute(t *testing.T, src string, data any) (string, error) {
	t.Helper()
	tmpl, err := template.New("test").Funcs(New()).Option("missingkey=error").Parse(src)
	require.NoError(t, err)
	inc := NewIncluder(tmpl, IncludeDepth)
	tmpl.Funcs(template.FuncMap{"include": inc.Include})
	var b strings.Builder
	err = tmpl.Execute(&b, data)
	return b.String(), err
}

func TestNamesGolden(t *testing.T) {
	golden := filepath.Join("testdata", "names.golden")
	got := strings.Join(Names(), "\n") + "\n"
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "regenerate with: go test ./funcs -run TestNamesGolden -update")
	assert.Equal(t, string(want), got,
		"the function list changed (a sprig upgrade?); review, then regenerate with: go test ./funcs -run TestNamesGolden -update")
}

func TestNamesSortedAndMatchNew(t *testing.T) {
	names := Names()
	assert.True(t, slices.IsSorted(names))
	m := New()
	assert.Len(t, m, len(names))
	for _, n := range names {
		assert.Contains(t, m, n)
	}
	assert.Contains(t, names, "include")
}

func TestNewReturnsIndependentCopies(t *testing.T) {
	a := New()
	a["extra"] = func() string { return "x" }
	delete(a, "upper")
	b := New()
	assert.NotContains(t, b, "extra")
	assert.Contains(t, b, "upper")
}

func TestDeniedTableSortedAndUnique(t *testing.T) {
	assert.True(t, slices.IsSortedFunc(denied, func(a, b denial) int {
		return strings.Compare(a.name, b.name)
	}), "keep the deny list sorted by name")
	for i := 1; i < len(denied); i++ {
		assert.NotEqual(t, denied[i-1].name, denied[i].name, "duplicate deny entry")
	}
	for _, d := range denied {
		assert.NotEmpty(t, d.reason, d.name)
	}
}

func TestDeniedFunctionsAreAbsent(t *testing.T) {
	m := New()
	for _, d := range denied {
		t.Run(d.name, func(t *testing.T) {
			assert.NotContains(t, m, d.name)
			_, err := template.New("s").Funcs(New()).Parse("{{ " + d.name + " }}")
			require.Error(t, err)
			assert.Contains(t, err.Error(), `function "`+d.name+`" not defined`)
		})
	}
}

// Names sprig's own non-hermetic list and the brief call out; a guard against the deny
// table losing an entry.
func TestHostAndRandomFunctionsDenied(t *testing.T) {
	for _, name := range []string{
		"env", "expandenv", "now", "date", "dateInZone", "date_in_zone", "ago", "randAlpha",
		"randNumeric", "randAscii", "randAlphaNum", "randBytes", "randInt", "shuffle", "uuidv4",
		"genPrivateKey", "derivePassword", "buildCustomCert", "genCA", "genSelfSignedCert",
		"genSignedCert", "encryptAES", "bcrypt", "htpasswd", "getHostByName",
		"osBase", "osClean", "osDir", "osExt", "osIsAbs", "toDate", "htmlDate",
	} {
		_, ok := DeniedReason(name)
		assert.True(t, ok, name)
		assert.NotContains(t, Names(), name)
	}
}

func TestDeniedReason(t *testing.T) {
	reason, ok := DeniedReason("env")
	assert.True(t, ok)
	assert.Equal(t, "reads the process environment", reason)

	for _, name := range []string{"upper", "include", "", "zzz"} {
		_, ok := DeniedReason(name)
		assert.False(t, ok, name)
	}
}

func TestDocExamples(t *testing.T) {
	docs := Docs()
	require.True(t, slices.IsSortedFunc(docs, func(a, b Doc) int { return strings.Compare(a.Name, b.Name) }))
	for _, d := range docs {
		t.Run(d.Name, func(t *testing.T) {
			assert.NotEmpty(t, d.Summary)
			require.Contains(t, d.Example, d.Name, "the example should use the function it documents")
			got, err := execute(t, d.Example, nil)
			require.NoError(t, err)
			assert.Equal(t, d.Output, got)
		})
	}
}

func TestEveryOwnFunctionDocumented(t *testing.T) {
	var documented []string
	for _, d := range Docs() {
		documented = append(documented, d.Name)
	}
	var ownNames []string
	for name := range own() {
		ownNames = append(ownNames, name)
	}
	slices.Sort(ownNames)
	assert.Equal(t, ownNames, documented)
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		_ = New()
	}
}
