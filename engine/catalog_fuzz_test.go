package engine_test

import (
	"context"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/spf13/afero"
	"go.yaml.in/yaml/v3"

	"github.com/sysprompt/sysprompt/engine"
)

// FuzzCatalogXML renders the built-in pack's skills catalog for a skill
// with any name and description and checks the catalog parses as XML.
func FuzzCatalogXML(f *testing.F) {
	f.Add("notes", "Takes notes")
	f.Add(`a<b>&"c"`, "x]]>y <!-- z --> &amp; 'q'")
	f.Add("emoji-🪶", "tab\tnew\nline \x00 nul \x1b esc \ufffe")
	f.Add("ü", "\xff\xfe invalid")
	p := packWith(f, nil)
	e, err := engine.New(p)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name, desc string) {
		front, err := yaml.Marshal(map[string]string{"name": name, "description": desc})
		if err != nil {
			return // not expressible as YAML; nothing to render
		}
		fsys := afero.NewMemMapFs()
		if err := afero.WriteFile(fsys, "/ws/skills/s/SKILL.md", []byte("---\n"+string(front)+"---\nbody\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		eng, err := engine.New(p, engine.WithFS(fsys))
		if err != nil {
			t.Fatal(err)
		}
		_ = e
		res, err := eng.Render(context.Background(), engine.Request{Workspace: engine.Workspace{Path: "/ws"}, Tools: []engine.Tool{{Name: "read"}}})
		if err != nil {
			t.Fatalf("render: %v", err)
		}
		text := res.Layers[0].Stable
		start := strings.Index(text, "<available_skills>")
		if start < 0 {
			return // the skill was refused (for example an empty or control-character name)
		}
		end := strings.Index(text, "</available_skills>")
		dec := xml.NewDecoder(strings.NewReader(text[start : end+len("</available_skills>")]))
		for {
			_, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("catalog is not XML: %v\n%s", err, text[start:end])
			}
		}
	})
}
