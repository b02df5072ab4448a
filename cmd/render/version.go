package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// cmdVersion prints the version the Go toolchain stamped into the binary.
func cmdVersion(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", stdout, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionLine(info))
	return nil
}

// versionLine describes a build: "render v1.2.0 (go1.26.8)", or for a
// build from a checkout without a tag, the module's pseudo-version or
// "(devel)" with the commit it was built from and whether the tree had
// uncommitted changes.
func versionLine(info *debug.BuildInfo) string {
	if info == nil {
		return "render (unknown version: built without module information)"
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	var extra []string
	// A pseudo-version already names the commit; a tag or (devel) does not.
	if rev := settings["vcs.revision"]; rev != "" && !strings.Contains(version, shortRevision(rev)) {
		extra = append(extra, "commit "+shortRevision(rev))
	}
	if t := settings["vcs.time"]; t != "" && version == "(devel)" {
		extra = append(extra, t)
	}
	if settings["vcs.modified"] == "true" && !strings.HasSuffix(version, "+dirty") {
		extra = append(extra, "modified")
	}
	extra = append(extra, info.GoVersion)
	return fmt.Sprintf("render %s (%s)", version, strings.Join(extra, ", "))
}

// shortRevision is the 12-character form pseudo-versions use.
func shortRevision(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
