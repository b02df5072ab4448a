package pack

import (
	"fmt"
	"io/fs"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine/internal/meter"
)

func TestEachCallsEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 100} {
		calls := make([]atomic.Int32, n)
		each(n, func(i int) { calls[i].Add(1) })
		for i := range calls {
			assert.EqualValues(t, 1, calls[i].Load(), "n=%d, index %d", n, i)
		}
	}
}

// A panic in a job reaches the caller, where a recover can catch it,
// rather than ending the process from a goroutine of its own.
func TestEachRaisesAPanicInTheCaller(t *testing.T) {
	defer func() {
		assert.Equal(t, "job 7", recover())
	}()
	each(20, func(i int) {
		if i == 7 {
			panic(fmt.Sprintf("job %d", i))
		}
	})
	t.Fatal("each returned")
}

// Files are loaded and parsed side by side, but a pack with many broken
// files lists its errors in one order every time: in Load, the sections'
// by file name, then the other files'; in Compile, the partials', then
// the sections' by id.
func TestErrorsComeInFileOrder(t *testing.T) {
	loadErrors := func(fsys fs.FS) []string {
		p, errs := Load(fsys)
		if errs == nil {
			_, errs = Compile(p, Fields{}, meter.DefaultLimits())
		}
		var out []string
		for _, e := range errs {
			out = append(out, e.Error())
		}
		return out
	}
	names := []string{"safety", "tooling", "messaging", "identity"}

	broken := builtinCopy(t)
	for _, name := range names {
		broken["sections/"+name+".md.tmpl"] = &fstest.MapFile{Data: []byte("+++\nmodes = [\"full\"]\ntier = 3\n+++\nbody\n")}
	}
	broken["templates/tools.toml"] = &fstest.MapFile{Data: []byte("[[tool]]\nname = 3\n")}
	first := loadErrors(broken)
	require.Len(t, first, len(names)+1)
	assert.Contains(t, first[0], "sections/identity.md.tmpl")
	assert.Contains(t, first[len(names)], "templates/tools.toml")
	for range 50 {
		require.Equal(t, first, loadErrors(broken))
	}

	unparsable := builtinCopy(t)
	for _, name := range names {
		f := unparsable["sections/"+name+".md.tmpl"]
		f.Data = append(f.Data, "\n{{ if }}\n"...)
	}
	unparsable["templates/zz.md.tmpl"] = &fstest.MapFile{Data: []byte("{{ end }}")}
	first = loadErrors(unparsable)
	require.Len(t, first, len(names)+1)
	assert.Contains(t, first[0], "templates/zz.md.tmpl")
	assert.Contains(t, first[1], "sections/identity.md.tmpl")
	for range 50 {
		require.Equal(t, first, loadErrors(unparsable))
	}
}

// builtinCopy is the built-in pack as a MapFS to edit.
func builtinCopy(t *testing.T) fstest.MapFS {
	out := fstest.MapFS{}
	require.NoError(t, fs.WalkDir(sysprompt.Pack, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(sysprompt.Pack, name)
		out[name] = &fstest.MapFile{Data: data}
		return err
	}))
	return out
}
