package request_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/request"
)

func TestSetOverridesKeys(t *testing.T) {
	r, err := request.Parse("r.toml", []byte("chat_type = \"direct\"\nmodel_aliases = { fast = \"a/b\" }\n[channel]\nid = \"telegram\"\ndelivery = \"automatic\"\n"))
	require.NoError(t, err)
	for _, a := range []string{
		"date=2026-01-02T10:00:00Z", "chat_type=group", "channel.id=discord", "model_aliases.slow=c/d",
		"light_context=false", "workspace.brand_new=true", `owners=["x:1", "y:2"]`, "runtime.host=a = b",
		`tools=[{name = "read", schema = {type = "object", required = ["path"]}}]`, "agent=wren",
	} {
		require.NoError(t, r.Set(a), a)
	}
	assert.Equal(t, "2026-01-02T10:00:00Z", r.Date)
	assert.Equal(t, "group", r.ChatType)
	assert.Equal(t, request.Channel{ID: "discord", Delivery: "automatic"}, r.Channel, "the rest of the table is kept")
	assert.Equal(t, map[string]string{"fast": "a/b", "slow": "c/d"}, r.ModelAliases)
	require.NotNil(t, r.Workspace.BrandNew)
	assert.True(t, *r.Workspace.BrandNew)
	assert.Equal(t, []string{"x:1", "y:2"}, r.Owners)
	assert.Equal(t, "a = b", r.Runtime.Host, "a string takes the value as it is, '=' and all")
	require.Len(t, r.Tools, 1, "tools set, and kept when another key is")
	assert.Equal(t, `{"required":["path"],"type":"object"}`, string(r.Tools[0].Schema), "a schema table as JSON, as in a file")
}

// A value a request file may not hold, Set refuses with the file's own
// message, and it leaves the request as it was.
func TestSetValidatesLikeAFile(t *testing.T) {
	cases := []struct{ assignment, file string }{
		{"chat_type=bogus", `chat_type = "bogus"`},
		{"date=2026-01-02", `date = "2026-01-02"`},
		{"timezone=Mars/Olympus", `timezone = "Mars/Olympus"`},
		{"channel.delivery=pigeon", "[channel]\ndelivery = \"pigeon\""},
		{"session.key=a\tb", "[session]\nkey = \"a\\tb\""},
		{"light_context=yes", "light_context = yes"},
		{"channel.bogus=1", "[channel]\nbogus = \"1\""},
		{"nope=1", `nope = "1"`},
		{`owners=[1]`, "owners = [1]"},
	}
	for _, c := range cases {
		t.Run(c.assignment, func(t *testing.T) {
			_, fileErr := request.Parse("r.toml", []byte(c.file))
			require.Error(t, fileErr)
			r := request.Request{ChatType: "direct", ModelAliases: map[string]string{"fast": "a/b"}}
			before := r
			err := r.Set(c.assignment)
			require.Error(t, err)
			// The file's message is "r.toml:L:C: MESSAGE"; Set's is MESSAGE.
			assert.True(t, strings.HasSuffix(fileErr.Error(), ": "+err.Error()), "file: %v\nset:  %v", fileErr, err)
			assert.Equal(t, before, r)
		})
	}
}

func TestSetRefusesWhatIsNotAnAssignment(t *testing.T) {
	r := request.Request{ModelAliases: map[string]string{}}
	for _, a := range []string{"chat_type", "=group", "a b=1", "channel..id=x", "mode=\"full\"\nagent = \"x\"", "light_context=true\nagent = \"x\""} {
		assert.Error(t, r.Set(a), a)
	}
	assert.Equal(t, request.Request{ModelAliases: map[string]string{}}, r)
	require.NoError(t, r.Set(`mode=full`))
	assert.Equal(t, request.ModeFull, r.Mode)
	assert.Error(t, r.Set("model_aliases.fast=a\nb"), "a failed map key leaves the map alone")
	assert.Empty(t, r.ModelAliases)
}
