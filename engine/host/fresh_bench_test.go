package host

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sysprompt/sysprompt/vfs"
)

func BenchmarkSourcesChanged(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "pack")
	if err := os.CopyFS(dir, os.DirFS("../..")); err != nil {
		b.Fatal(err)
	}
	time.Sleep(vfs.RacyWindow) // files this new are checked again every time
	s := NewSources(filepath.Join(dir, "sections"), filepath.Join(dir, "templates"))
	b.ReportAllocs()
	for b.Loop() {
		if s.Changed() {
			b.Fatal("nothing changed")
		}
	}
}
