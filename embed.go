// Package sysprompt embeds the built-in template pack: the sections/ and
// templates/ folders of this repository. Callers pass Pack to engine.New;
// the engine itself never imports this package.
package sysprompt

import (
	"embed"
	"io/fs"
)

// sections/DATA.md, the field reference, rides along so that an ejected
// pack carries it; the pack loader reads only *.md.tmpl in sections/.
//
//go:embed sections/manifest.toml sections/*.md.tmpl sections/DATA.md templates
var pack embed.FS

// Pack is the built-in template pack.
var Pack fs.FS = pack
