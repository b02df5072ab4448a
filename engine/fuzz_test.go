package engine

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"
)

// The fuzz targets check that bad input of any shape gets an *Error with
// a one-line message, never a panic.

func FuzzFrontMatter(f *testing.F) {
	f.Add("+++\nmodes = [\"full\"]\ntier = \"stable\"\n+++\nbody {{ .Mode }}\n")
	f.Add("+++\nmodes = [\"full\", \"none\"]\ntier = \"dynamic\"\nlayer = \"developer\"\noverride = \"tool_call_style\"\n+++\n")
	f.Add("+++\nmodes = \"full\"\n+++\n")
	f.Add("+++\r\ntier = 3\r\n+++\r\n")
	f.Add("no front matter")
	f.Fuzz(func(t *testing.T, text string) {
		sec, err := parseSection("sections/x.md.tmpl", text)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			if strings.Contains(e.Error(), "\n") {
				t.Fatalf("multi-line error: %q", e.Error())
			}
			return
		}
		if sec.tier != TierStable && sec.tier != TierDynamic {
			t.Fatalf("accepted tier %q", sec.tier)
		}
		if len(sec.modes) == 0 && !strings.Contains(text, "modes") {
			t.Fatalf("accepted a section without modes")
		}
	})
}

func FuzzManifest(f *testing.F) {
	f.Add("identity_section = \"identity\"\nboundary = \"<!-- B -->\"\n[[layer]]\nname = \"system\"\nsections = [\"identity\", \"a\"]\n")
	f.Add("identity_section = \"identity\"\nboundary = \"B\"\n[[layer]]\nname = \"system\"\nsections = [\n  \"a\", # comment\n  \"identity\"]\n[[harness]]\nname = \"h\"\n[[harness.layer]]\nname = \"system\"\nsections = ['identity']\n")
	f.Add("[[layer]]\nsections = [\"\\\"x\"]\n")
	f.Add("boundary = \"\"\n")
	f.Fuzz(func(t *testing.T, manifestText string) {
		if !utf8.ValidString(manifestText) {
			return
		}
		fsys := fstest.MapFS{
			"sections/manifest.toml":    {Data: []byte(manifestText)},
			"sections/identity.md.tmpl": {Data: []byte("+++\nmodes = [\"full\", \"minimal\", \"none\"]\ntier = \"stable\"\n+++\nme")},
			"sections/a.md.tmpl":        {Data: []byte("+++\nmodes = [\"full\"]\ntier = \"dynamic\"\n+++\n{{ .Date }}")},
		}
		p, errs := loadPack(fsys)
		for _, e := range errs {
			if strings.Contains(e.Error(), "\n") {
				t.Fatalf("multi-line error: %q", e.Error())
			}
		}
		if len(errs) == 0 && p == nil {
			t.Fatal("no pack and no error")
		}
	})
}

func FuzzParseRequest(f *testing.F) {
	f.Add([]byte("mode = \"full\"\n[channel]\nid = \"x\"\n"))
	f.Add([]byte(`{"mode": "minimal", "tools": [{"name": "read", "schema": {"type": "object"}}]}`))
	f.Add([]byte("date = \"2026-11-30T09:15:00Z\"\ntimezone = \"Europe/Lisbon\"\n"))
	f.Add([]byte("{\"contributions\": [{\"section_overrides\": {\"x\": \"y\"}}]}"))
	f.Fuzz(func(t *testing.T, src []byte) {
		_, err := ParseRequest("r", src)
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error: %q", err.Error())
		}
	})
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("[agents.defaults]\nbootstrapMaxChars = 100\n[[agents.list]]\nid = \"a\"\ntimeFormat = \"12\"\n"))
	f.Add([]byte("[skills.entries.x]\nenabled = false\nenv = { A = \"b\" }\n"))
	f.Add([]byte("[agents.defaults.promptOverlays.gpt5]\npersonality = \"off\"\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		cfg, err := ParseConfig("c", src)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err.Error())
			}
			return
		}
		if _, err := resolve(cfg, nil, &Request{}); err != nil {
			t.Fatalf("a valid config did not resolve: %v", err)
		}
	})
}
