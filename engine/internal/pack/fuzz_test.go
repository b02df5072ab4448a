package pack

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/sysprompt/sysprompt/engine/internal/diag"
)

// The fuzz targets check that bad input of any shape gets an *Error with
// a one-line message, never a panic.

func FuzzFrontMatter(f *testing.F) {
	f.Add("+++\nmodes = [\"full\"]\ntier = \"stable\"\n+++\nbody {{ .Mode }}\n")
	f.Add("+++\nmodes = [\"full\", \"none\"]\ntier = \"dynamic\"\noverride = \"tool_call_style\"\n+++\n")
	f.Add("+++\nmodes = \"full\"\n+++\n")
	f.Add("+++\r\ntier = 3\r\n+++\r\n")
	f.Add("no front matter")
	f.Fuzz(func(t *testing.T, text string) {
		sec, err := parseSection("sections/x.md.tmpl", text)
		if err != nil {
			var e *diag.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			if strings.Contains(e.Error(), "\n") {
				t.Fatalf("multi-line error: %q", e.Error())
			}
			return
		}
		if sec.Tier != TierStable && sec.Tier != TierDynamic {
			t.Fatalf("accepted tier %q", sec.Tier)
		}
		if len(sec.Modes) == 0 && !strings.Contains(text, "modes") {
			t.Fatalf("accepted a section without modes")
		}
	})
}

func FuzzManifest(f *testing.F) {
	f.Add("identity_section = \"identity\"\nboundary = \"<!-- B -->\"\n[[layer]]\nname = \"system\"\nsections = [\"identity\", \"a\"]\n")
	f.Add("identity_section = \"identity\"\nboundary = \"B\"\n[[layer]]\nname = \"system\"\nsections = [\n  \"a\", # comment\n  \"identity\"]\n[[harness]]\nname = \"h\"\n[[harness.layer]]\nname = \"system\"\nsections = ['identity']\n")
	f.Add("[[layer]]\nsections = [\"\\\"x\"]\n")
	f.Add("identity_section = \"identity\"\nboundary = \"B\"\n[[layer]]\nname = \"system\"\nsections = [\"identity\", \"a\"]\n[[harness]]\nname = \"h\"\n[[harness.layer]]\nname = \"system\"\nbase = \"system\"\nremove = [\"a\"]\nadd = [\"a\"]\nbefore = \"identity\"\n")
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
		p, errs := Load(fsys)
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
