//go:build unix

package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutputRefusesSpecialFiles: the rename behind -o would put a regular
// file where a device, pipe or socket was, so each is refused, directly or
// through a symlink, and left as it was; so is a symlink that leads
// nowhere, which the rename would replace.
func TestOutputRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	require.NoError(t, syscall.Mkfifo(p("fifo"), 0o644))
	ln, err := net.Listen("unix", p("sock"))
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	require.NoError(t, os.Mkdir(p("outdir"), 0o755))
	// A copy of /dev/null, where the kernel lets us make one.
	hasDevice := syscall.Mknod(p("null"), syscall.S_IFCHR|0o666, 1<<8|3) == nil
	// A pipe held open by this process, as a shell's stdout would be.
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { r.Close(); w.Close() })
	procFD := "/proc/self/fd/" + strconv.Itoa(int(w.Fd()))
	_, procErr := os.Stat(procFD)

	const rule = "; render writes only a regular file or a new name\n"
	cases := []struct{ name, link, want string }{
		{name: "fifo", want: "not a regular file (named pipe)"},
		{name: "sock", want: "not a regular file (socket)"},
		{name: "outdir", want: "not a regular file (directory)"},
		{name: "to-fifo", link: "fifo", want: "its target " + p("fifo") + " is not a regular file (named pipe)"},
		{name: "to-dir", link: "outdir", want: "its target " + p("outdir") + " is not a regular file (directory)"},
		{name: "dangling", link: "missing.md", want: "its target missing.md: no such file or directory"},
		{name: "loop", link: "loop", want: "its target loop: too many levels of symbolic links"},
	}
	if hasDevice {
		cases = append(cases,
			struct{ name, link, want string }{name: "null", want: "not a regular file (character device)"},
			struct{ name, link, want string }{name: "to-null", link: "null", want: "its target " + p("null") + " is not a regular file (character device)"})
	}
	if procErr == nil {
		cases = append(cases, struct{ name, link, want string }{name: "to-stdout", link: procFD, want: "its target " + procFD + " is not a regular file (named pipe)"})
	}
	for _, c := range cases {
		if c.link != "" {
			require.NoError(t, os.Symlink(c.link, p(c.name)))
		}
	}
	before := dirNames(t, dir)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pre, err := os.Lstat(p(c.name))
			require.NoError(t, err)
			for _, args := range [][]string{{"-mode", "none"}, {"report", "html"}} {
				code, stdout, errOut := cli(append(args, "-o", p(c.name))...)
				assert.Equal(t, 1, code)
				assert.Empty(t, stdout)
				assert.Equal(t, "render: -o "+p(c.name)+": "+c.want+rule, errOut)
			}
			post, err := os.Lstat(p(c.name))
			require.NoError(t, err)
			assert.Equal(t, pre.Mode(), post.Mode(), "left as it was")
		})
	}
	assert.Equal(t, before, dirNames(t, dir), "nothing written beside them")
	fmt.Fprintln(w) // the pipe is still ours to write to
}
