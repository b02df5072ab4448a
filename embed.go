// Package sysprompt embeds the built-in template pack: the sections/ and
// templates/ folders of this repository. Callers pass Pack to engine.New;
// the engine itself never imports this package. It also embeds the
// example requests, which render diff compares packs over by default.
package sysprompt

import (
	"embed"
	"io/fs"
)

//go:embed sections/manifest.toml sections/*.md.tmpl templates
var pack embed.FS

// Pack is the built-in template pack.
var Pack fs.FS = pack

//go:embed examples/requests/*.toml
var examples embed.FS

// ExampleRequests holds examples/requests/*.toml, under those paths.
var ExampleRequests fs.FS = examples
