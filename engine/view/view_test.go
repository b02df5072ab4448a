package view

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
)

func TestToolListLooksUpAnyCase(t *testing.T) {
	l := ToolList{{Name: "Read", Description: "reads"}, {Name: "exec"}}
	assert.True(t, l.Has("read"))
	assert.False(t, l.Has("write"))
	assert.True(t, l.HasAny("write", "EXEC"))
	assert.False(t, l.HasAny())
	assert.Equal(t, "reads", l.Get("READ").Description)
	assert.Nil(t, l.Get("nope"))
	assert.Equal(t, []string{"Read", "exec"}, l.Names())
}

func TestFileListFilters(t *testing.T) {
	l := FileList{
		{Name: "AGENTS.md", Status: bootstrap.StatusOK, Content: "rules"},
		{Name: "SOUL.md", Status: bootstrap.StatusMissing},
		{Name: "TOOLS.md", Status: bootstrap.StatusTruncated, Content: "tools"},
		{Name: "USER.md", Status: bootstrap.StatusOK, Content: "me"},
	}
	names := func(l FileList) (out []string) {
		for _, f := range l {
			out = append(out, f.Name)
		}
		return out
	}
	assert.Equal(t, "SOUL.md", l.Get("SOUL.md").Name)
	assert.Nil(t, l.Get("soul.md"), "file names are exact")
	assert.Equal(t, []string{"AGENTS.md", "TOOLS.md", "USER.md"}, names(l.Injected()), "a missing file injects nothing")
	assert.Equal(t, []string{"AGENTS.md", "TOOLS.md"}, names(l.Except("USER.md")))
	assert.Equal(t, []string{"USER.md"}, names(l.Only("SOUL.md", "USER.md")), "only injected files")
	all := slices.DeleteFunc(slices.Clone(l), func(f bootstrap.File) bool { return f.Content == "" })
	assert.Zero(t, testing.AllocsPerRun(10, func() { _ = all.Injected() }), "a list whose files all inject is not copied")
	assert.True(t, OverrideSet{"tool_call_style": "x"}.Has("tool_call_style"))
	assert.False(t, OverrideSet{}.Has("tool_call_style"))
}

func TestChannelCatalogLookups(t *testing.T) {
	p := PackInfo{Channels: ChannelCatalog{
		{ID: "telegram", Name: "Telegram", Capabilities: []string{"nativeApprovals"}},
		{ID: "irc", Name: "IRC"},
	}}
	tg := p.Channel("Telegram")
	assert.Equal(t, "Telegram", tg.Name, "ids match in any case")
	assert.True(t, tg.Has("nativeapprovals"))
	assert.False(t, tg.Has("inlineButtons"))
	assert.True(t, tg.HasAny("inlineButtons", "nativeApprovals"))

	unknown := p.Channel("matrix")
	assert.Equal(t, ChannelInfo{ID: "matrix"}, unknown, "an unlisted channel has only its id")
	assert.Equal(t, ChannelInfo{}, p.Channel(""), "no channel")

	// With adds the turn's capabilities without touching the catalog.
	merged := tg.With([]string{"inlineButtons", "NATIVEAPPROVALS", ""})
	assert.Equal(t, []string{"nativeApprovals", "inlineButtons"}, merged.Capabilities)
	assert.Equal(t, []string{"nativeApprovals"}, p.Channel("telegram").Capabilities)
	assert.True(t, unknown.With([]string{"nativeApprovals"}).Has("nativeApprovals"))
}
