package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sysprompt/sysprompt/engine/internal/dot"
)

func TestMergeContributions(t *testing.T) {
	m := dot.Merge([]Contribution{
		{StablePrefix: "A  \r\nB\n\n", DynamicSuffix: "", SectionOverrides: map[string]string{"tool_call_style": "one", "execution_bias": "x"}},
		{StablePrefix: "A\nB", DynamicSuffix: "  s1 ", SectionOverrides: map[string]string{"tool_call_style": "two", "execution_bias": "  "}},
		{StablePrefix: "C\n\n\n\nD", DynamicSuffix: "s2"},
	})
	assert.Equal(t, "A\nB\n\nC\n\nD", m.StablePrefix, "blank-line runs fold like template output")
	assert.Equal(t, "s1\n\ns2", m.DynamicSuffix)
	assert.Equal(t, map[string]string{"tool_call_style": "two", "execution_bias": "x"}, m.Overrides, "later wins; an empty override is absent, not a deletion")
}

func TestAssembleOffsets(t *testing.T) {
	infos := []RenderedSection{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	l := assemble("system", "<!-- B -->", []string{"one", "two"}, []string{"three"}, infos, "")
	assert.Equal(t, "one\n\ntwo\n\n<!-- B -->\n\nthree\n", l.Text)
	for _, s := range l.Sections {
		assert.Equal(t, map[string]string{"a": "one", "b": "two", "c": "three"}[s.ID], l.Text[s.Start:s.End])
	}
	assert.Equal(t, "one\n\ntwo\n\nthree\n", l.TextWithoutBoundary())
	empty := assemble("x", "<!-- B -->", nil, nil, nil, "")
	assert.Equal(t, "<!-- B -->\n", empty.Text)
}
