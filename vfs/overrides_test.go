package vfs

import (
	"testing"
	"testing/fstest"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Overrides sorts the user pack's files into those replacing a built-in
// file with other bytes and those it adds, each sorted, and walks only
// the pack's folders.
func TestOverrides(t *testing.T) {
	builtin := fstest.MapFS{"sections/a.md.tmpl": {}, "sections/manifest.toml": {Data: []byte("same")}, "templates/x.tmpl": {}}
	user := afero.NewMemMapFs()
	for _, name := range []string{"sections/z.md.tmpl", "sections/a.md.tmpl", "templates/x.tmpl", "templates/new/y.tmpl", "README.md"} {
		require.NoError(t, afero.WriteFile(user, name, []byte("x"), 0o644))
	}
	// A file as the built-in pack has it overrides nothing.
	require.NoError(t, afero.WriteFile(user, "sections/manifest.toml", []byte("same"), 0o644))
	replaced, added, err := Overrides(builtin, user)
	require.NoError(t, err)
	assert.Equal(t, []string{"sections/a.md.tmpl", "templates/x.tmpl"}, replaced)
	assert.Equal(t, []string{"sections/z.md.tmpl", "templates/new/y.tmpl"}, added)

	replaced, added, err = Overrides(builtin, afero.NewMemMapFs())
	require.NoError(t, err)
	assert.Empty(t, replaced)
	assert.Empty(t, added)
}
