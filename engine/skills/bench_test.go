package skills

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkSkills discovers and builds a catalog of 200 skills over MemMapFs,
// with a cheap measure so the time is this package's own.
func BenchmarkSkills(b *testing.B) {
	files := map[string]string{}
	for i := range 200 {
		group := fmt.Sprintf("group-%d", i%4)
		name := fmt.Sprintf("skill-%03d", i)
		files["skills/"+group+"/"+name+"/SKILL.md"] = skillMD(
			"name: "+name,
			"description: Does task number "+name+" when the user asks for it.",
			"metadata:",
			"  requires:",
			"    bins: [git]",
			"    env: [TOKEN]",
		)
	}
	roots := []Root{workspaceRoot(memFS(b, files))}
	opts := Options{Home: "/home/ana"}
	policy := Policy{
		OS:       "linux",
		LookPath: func(string) bool { return true },
		Env:      map[string]string{"TOKEN": "x"},
	}
	// cold: every discovery walks the tree and parses every SKILL.md (there
	// is no cache), then the catalog is built.
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			found, err := Discover(context.Background(), roots, opts)
			if err != nil {
				b.Fatal(err)
			}
			cat, err := Build(found, policy, testLimits(), measureLen)
			if err != nil {
				b.Fatal(err)
			}
			if cat.Listed == 0 || cat.Found != 200 {
				b.Fatalf("listed %d of %d", cat.Listed, cat.Found)
			}
		}
	})
	// catalog: the catalog build alone, from a discovery already in hand
	// (eligibility, sorting, budget), without re-reading the files.
	b.Run("catalog", func(b *testing.B) {
		found, err := Discover(context.Background(), roots, opts)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			cat, err := Build(found, policy, testLimits(), measureLen)
			if err != nil || cat.Listed == 0 {
				b.Fatalf("listed %d, %v", cat.Listed, err)
			}
		}
	})
}
