// Package sysprompt embeds the built-in template pack: the sections/ and
// templates/ folders of this repository. Callers pass Pack to engine.New;
// the engine itself never imports this package.
package sysprompt

import (
	"embed"
	"io/fs"
)

//go:embed sections/manifest.toml sections/*.md.tmpl templates
var pack embed.FS

// Pack is the built-in template pack.
var Pack fs.FS = pack
