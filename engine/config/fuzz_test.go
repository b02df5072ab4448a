package config_test

import (
	"strings"
	"testing"

	"github.com/sysprompt/sysprompt/engine/config"
)

// The fuzz targets check that bad input of any shape gets an *Error with
// a one-line message, never a panic.

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("[agents.defaults]\nbootstrapMaxChars = 100\n[[agents.list]]\nid = \"a\"\ntimeFormat = \"12\"\n"))
	f.Add([]byte("[skills.entries.x]\nenabled = false\nenv = { A = \"b\" }\n"))
	f.Add([]byte("[agents.defaults.promptOverlays.gpt5]\npersonality = \"off\"\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		cfg, err := config.Parse("c", src)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err.Error())
			}
			return
		}
		if _, err := config.Resolve(cfg, config.Defaults{}, config.Turn{}); err != nil {
			t.Fatalf("a valid config did not resolve: %v", err)
		}
	})
}
