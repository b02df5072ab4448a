package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestVersionLine(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	const rev = "92d6d7ad63566ea7e2a0f8994a3705a791207c41"
	tests := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "render (unknown version: built without module information)"},
		{"a tagged install", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"}},
			"render v0.3.0 (go1.26.8)"},
		{"a pseudo-version names its commit already",
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261130183719-92d6d7ad6356+dirty"},
				Settings: settings("vcs.revision", rev, "vcs.modified", "true")},
			"render v0.0.0-20261130183719-92d6d7ad6356+dirty (go1.26.8)"},
		{"a devel build from a checkout",
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
				Settings: settings("vcs.revision", rev, "vcs.time", "2026-11-30T18:37:19Z", "vcs.modified", "true")},
			"render (devel) (commit 92d6d7ad6356, 2026-11-30T18:37:19Z, modified, go1.26.8)"},
		{"a devel build without VCS", &debug.BuildInfo{GoVersion: "go1.26.8"}, "render (devel) (go1.26.8)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, versionLine(tt.info))
		})
	}
}
