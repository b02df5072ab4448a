package skills

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func TestParseFrontMatter(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want frontMatter
	}{
		{
			name: "full",
			in: "---\nname: pdf\ndescription: >\n  Fill PDF\n  forms.\nlicense: MIT\nmetadata:\n  os: [linux, darwin]\n  always: true\n" +
				"  skillKey: pdf-key\n  primaryEnv: PDF_KEY\n  emoji: x\n  requires:\n    bins: [qpdf]\n    anyBins: [gs, mutool]\n" +
				"    env: PDF_TOKEN\n    config: [a.b]\n---\nbody\n",
			want: frontMatter{name: "pdf", nameLine: 2, description: "Fill PDF forms.", meta: Metadata{
				OS: []string{"linux", "darwin"}, Always: true, SkillKey: "pdf-key", PrimaryEnv: "PDF_KEY",
				Requires: Requirements{Bins: []string{"qpdf"}, AnyBins: []string{"gs", "mutool"}, Env: []string{"PDF_TOKEN"}, Config: []string{"a.b"}},
			}},
		},
		{
			name: "nested under openclaw, siblings ignored",
			in:   "---\nname: x\nmetadata: {\"openclaw\": {\"os\": \"darwin\", \"requires\": {\"bins\": [\"brew\"]}}, \"os\": [linux]}\n---\n",
			want: frontMatter{name: "x", nameLine: 2, meta: Metadata{OS: []string{"darwin"}, Requires: Requirements{Bins: []string{"brew"}}}},
		},
		{name: "empty block", in: "---\n---\n"},
		{name: "null block", in: "---\n~\n---\n"},
		{name: "null values", in: "---\nname:\ndescription: ~\nmetadata:\n---\n", want: frontMatter{nameLine: 2}},
		{name: "CRLF and BOM", in: "\ufeff---\r\nname: win\r\ndescription: crlf\r\n---\r\nbody", want: frontMatter{name: "win", nameLine: 2, description: "crlf"}},
		{name: "fence with trailing space", in: "--- \nname: a\n---  \n", want: frontMatter{name: "a", nameLine: 2}},
		{name: "numbers are text", in: "---\nname: 42\n---\n", want: frontMatter{name: "42", nameLine: 2}},
		{name: "blank list items dropped", in: "---\nmetadata:\n  os: [\"\", linux, ~]\n---\n", want: frontMatter{meta: Metadata{OS: []string{"linux"}}}},
		{name: "alias", in: "---\nname: &n shared\ndescription: *n\n---\n", want: frontMatter{name: "shared", nameLine: 2, description: "shared"}},
		{name: "body fence ignored", in: "---\nname: a\n---\n---\nname: b\n---\n", want: frontMatter{name: "a", nameLine: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFrontMatter([]byte(tt.in), new(int))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseFrontMatterErrors(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
		msg      string
	}{
		{"no front matter", "# Title\n", 1, `no front matter: SKILL.md must start with a "---" line`},
		{"empty file", "", 1, `no front matter: SKILL.md must start with a "---" line`},
		{"not closed", "---\nname: a\n", 1, `front matter is not closed by a "---" line`},
		{"unclosed flow list", "---\nname: a\ndescription: b\nmetadata: [x\n---\n", 4, "invalid YAML: did not find expected ',' or ']'"},
		{"stray list item", "---\nname: a\ndescription: b\n- x\n---\n", 4, "invalid YAML: did not find expected key"},
		{"tab indent", "---\nname: a\nmetadata:\n\tos: linux\n---\n", 4, "invalid YAML: found character that cannot start any token"},
		{"mapping in value", "---\nname: a: b\n---\n", 2, "invalid YAML: mapping values are not allowed in this context"},
		{"unknown anchor", "---\nname: *x\n---\n", 0, "invalid YAML: unknown anchor 'x' referenced"},
		{"not a mapping", "---\n- a\n- b\n---\n", 2, "front matter must be a mapping of keys to values"},
		{"name is a list", "---\ndescription: ok\nname: [a]\n---\n", 3, "name must be text, not a list"},
		{"name two lines", "---\nname: \"a\\nb\"\n---\n", 2, "name must be one line of text"},
		{"description mapping", "---\ndescription:\n  a: b\n---\n", 3, "description must be text, not a mapping"},
		{"name twice", "---\nname: a\nname: b\n---\n", 3, "name is set twice"},
		{"metadata list", "---\nmetadata: [a]\n---\n", 2, "metadata must be a mapping, not a list"},
		{"os mapping", "---\nmetadata:\n  os: {a: b}\n---\n", 3, "metadata.os must be a list of text, not a mapping"},
		{"os nested list", "---\nmetadata:\n  os:\n    - [a]\n---\n", 4, "metadata.os must be a list of text, not a list of list"},
		{"always not bool", "---\nmetadata:\n  always: \"yes\"\n---\n", 3, "metadata.always must be true or false"},
		{"requires list", "---\nmetadata:\n  requires: [a]\n---\n", 3, "metadata.requires must be a mapping, not a list"},
		{"metadata as a JSON string", "---\nmetadata: '{\"openclaw\": {}}'\n---\n", 2, "metadata must be a mapping, not text"},
		{"requires text", "---\nmetadata:\n  requires: gh\n---\n", 3, "metadata.requires must be a mapping, not text"},
		{"requires.bins mapping", "---\nmetadata:\n  requires:\n    bins: {a: 1}\n---\n", 4, "metadata.requires.bins must be a list of text, not a mapping"},
		// Each alias would repeat a 300-byte name in every reason and PATH lookup.
		{"alias repeats a long item", "---\nx: &a " + strings.Repeat("b", 300) + "\nmetadata:\n  requires:\n    bins: [q,\n      *a]\n---\n", 6,
			"metadata.requires.bins has an entry of 300 bytes; at most 256 are allowed"},
		{"alias list too long", "---\nx: &a y\nmetadata:\n  os: [" + strings.Repeat("*a,", 65) + "]\n---\n", 4,
			"metadata.os has 65 entries; at most 64 are allowed"},
		{"bin is a path", "---\nmetadata:\n  requires:\n    bins: [git,\n      /usr/bin/ssh]\n---\n", 5,
			`metadata.requires.bins entry "/usr/bin/ssh" is a path, not a command name looked up on PATH`},
		{"anyBin is relative", "---\nmetadata:\n  requires:\n    anyBins: ..\\tool\n---\n", 4,
			`metadata.requires.anyBins entry "..\\tool" is a path, not a command name looked up on PATH`},
		{"skillKey list", "---\nmetadata:\n  skillKey: [a]\n---\n", 3, "metadata.skillKey must be text, not a list"},
		// A value reached through an alias is reported where the alias is used.
		{"alias to a nested list", "---\nname: x\nlist: &l [[1]]\nmetadata:\n  os: *l\n---\n", 5, "metadata.os must be a list of text, not a list of list"},
		{"alias to a list as a name", "---\nx: &l [a]\ndescription: d\nname: *l\n---\n", 4, "name must be text, not a list"},
		{"alias to a list with a path", "---\nbins: &b [git, /bin/sh]\nmetadata:\n  requires:\n    bins: *b\n---\n", 5,
			`metadata.requires.bins entry "/bin/sh" is a path, not a command name looked up on PATH`},
		{"alias to a list item", "---\nx: &m {a: b}\nmetadata:\n  os: [linux,\n    *m]\n---\n", 5, "metadata.os must be a list of text, not a list of mapping"},
		// yaml's reader says what it refuses but not where; the line is found here.
		{"NUL", "---\nname: a\n\ndescription: a\x00b\n---\n", 4, "invalid YAML: control characters are not allowed"},
		{"escape", "---\nname: a\nx: y\nz: \x1b[31m\n---\n", 4, "invalid YAML: control characters are not allowed"},
		{"C1 control", "---\nname: a\nx: \u0090\n---\n", 3, "invalid YAML: control characters are not allowed"},
		{"invalid UTF-8", "---\nname: a\ndescription: \xffb\n---\n", 3, "invalid YAML: invalid leading UTF-8 octet"},
		{"cut UTF-8", "---\nname: a\ndescription: \xe2\x82\n---\n", 3, "invalid YAML: invalid trailing UTF-8 octet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseFrontMatter([]byte(tt.in), new(int))
			var le *lineError
			require.True(t, errors.As(err, &le), "want *lineError, got %v", err)
			assert.Equal(t, tt.line, le.line)
			assert.Equal(t, tt.msg, le.msg)
		})
	}
}

// TestSplitYAMLError pins the line numbers read from real yaml errors; each
// input's problem is on the line given.
func TestSplitYAMLError(t *testing.T) {
	tests := []struct {
		in   string
		line int
		msg  string
	}{
		{"a: 1\nb: [x\n", 2, "did not find expected ',' or ']'"},
		{"a: 1\nb: 2\nc: [x\n", 3, "did not find expected ',' or ']'"},
		{"a: 1\nb: {x\n", 2, "did not find expected ',' or '}'"},
		{"- x\na: 1\n", 2, "did not find expected '-' indicator"},
		{"a: 1\n- x\n", 2, "did not find expected key"},
		{"a: 1\nb: 2\n- x\n", 3, "did not find expected key"},
		{"a: b: c\n", 1, "mapping values are not allowed in this context"},
		{"a: 1\nb: c: d\n", 2, "mapping values are not allowed in this context"},
		{"a: 1\n\tb: 2\n", 2, "found a tab character that violates indentation"},
		{"a: 1\nb:\n\tc: 3\n", 3, "found character that cannot start any token"},
		{"a: 1\nb: !x!y z\n", 2, "found undefined tag handle"},
		{"%YAML 1.1\n%YAML 1.1\n---\na: 1\n", 2, "found duplicate %YAML directive"},
		{"a: 1\nb: 'x\n", 2, "found unexpected end of stream"},
		{"a: 1\nb: *x\n", 0, "unknown anchor 'x' referenced"},
	}
	for _, tt := range tests {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(tt.in), &n)
		require.Error(t, err, tt.in)
		line, msg := splitYAMLError(err)
		assert.Equal(t, tt.line, line, "%q: %v", tt.in, err)
		assert.Equal(t, tt.msg, msg, "%q", tt.in)
	}
}

func FuzzFrontMatter(f *testing.F) {
	f.Add([]byte("---\nname: a\ndescription: b\nmetadata:\n  os: [linux]\n  requires:\n    bins: [git]\n---\n"))
	f.Add([]byte("---\nmetadata: {openclaw: {always: true}}\n---\n"))
	f.Add([]byte("---\nname: &a [*a]\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fm, err := parseFrontMatter(data, new(int))
		if err != nil {
			var le *lineError
			if !errors.As(err, &le) {
				t.Fatalf("error is %T, want *lineError", err)
			}
			if le.line < 0 || le.msg == "" {
				t.Fatalf("bad error %+v", le)
			}
			return
		}
		again, err := parseFrontMatter(data, new(int))
		if err != nil || !reflect.DeepEqual(fm, again) {
			t.Fatalf("second parse differs: %+v, %v", again, err)
		}
	})
}
