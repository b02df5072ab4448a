package request

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/sysprompt/sysprompt/engine/internal/diag"
	"github.com/sysprompt/sysprompt/engine/internal/strict"
	"github.com/sysprompt/sysprompt/internal/echo"
)

// ToolKey is what tells two tools apart: the name trimmed, in lower case.
// The prompt lists a tool once per key.
func ToolKey(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// duplicateToolError is two tools of a request with the same key. The
// request is refused rather than one of them dropped, which would leave
// the model offered two tools that the prompt lists as one.
type duplicateToolError struct {
	first, second int       // indices into Request.Tools
	names         [2]string // as written
	at            [2]string // "file:line:col" of each name, when known
}

func (d *duplicateToolError) Error() string {
	where := func(i int) string {
		if d.at[i] == "" {
			return ""
		}
		return " at " + d.at[i]
	}
	return fmt.Sprintf("tool name given twice: tools[%d] %s%s and tools[%d] %s%s (names are compared trimmed, ignoring case)",
		d.first, echo.Quote(d.names[0]), where(0), d.second, echo.Quote(d.names[1]), where(1))
}

// checkToolNames refuses the first tool whose key an earlier tool has.
// Nameless tools are not listed, so they cannot clash.
func checkToolNames(tools []Tool) error {
	// A request names a few dozen tools at most: comparing each with the
	// ones before it costs less than a map, which every turn would build.
	var small [32]string
	keys := small[:0]
	if len(tools) > len(small) {
		keys = make([]string, 0, len(tools))
	}
	for i, t := range tools {
		key := ToolKey(t.Name)
		if j := slices.Index(keys, key); key != "" && j >= 0 {
			return &duplicateToolError{first: j, second: i, names: [2]string{tools[j].Name, t.Name}}
		}
		keys = append(keys, key)
	}
	return nil
}

// locate places e on the second name in the request file src (named name)
// and names both positions in its message.
func (d *duplicateToolError) locate(e *diag.Error, name string, src []byte) {
	pos := toolNamePositions(src, d.second+1)
	for k, i := range [2]int{d.first, d.second} {
		if i < len(pos) && pos[i].Line > 0 {
			d.at[k] = fmt.Sprintf("%s:%d:%d", name, pos[i].Line, pos[i].Col)
		}
	}
	if d.second < len(pos) {
		e.Line, e.Col = pos[d.second].Line, pos[d.second].Col
	}
}

// ToolPosition returns where the request file src writes the name of
// its tools[i] (or opens its table), or 0, 0 when it cannot tell.
func ToolPosition(src []byte, i int) (line, col int) {
	if pos := toolNamePositions(src, i+1); i >= 0 && i < len(pos) {
		return pos[i].Line, pos[i].Col
	}
	return 0, 0
}

// toolNamePositions returns where the names of the first n tools of a
// TOML or JSON request file are written.
func toolNamePositions(src []byte, n int) []strict.Pos {
	if trimmed := bytes.TrimSpace(src); len(trimmed) > 0 && trimmed[0] == '{' {
		return jsonToolNamePositions(src, n)
	}
	return tomlToolNamePositions(string(src), n)
}

// tomlToolNamePositions returns where the name of each of the first n
// tools is written: its name key in a [[tools]] table, or the element of
// an inline tools array.
func tomlToolNamePositions(src string, n int) []strict.Pos {
	doc := strict.ScanTOML(src)
	if elems := doc.Elements("", 0, "tools"); len(elems) > 0 {
		return elems
	}
	pos := make([]strict.Pos, n)
	for i := range pos {
		if p, ok := doc.Key("tools", i, "name"); ok {
			pos[i] = p
		} else if p, ok := doc.Table("tools", i); ok {
			pos[i] = p
		}
	}
	return pos
}

// jsonToolNamePositions returns where the "name" key of each of the
// first n elements of the top-level "tools" array is written; a zero Pos
// for an element without one.
func jsonToolNamePositions(src []byte, n int) []strict.Pos {
	pos := make([]strict.Pos, n)
	strict.JSONKeyPositions(src, "tools.name", func(at strict.Pos, indices []int) bool {
		if len(indices) == 1 && indices[0] < n && pos[indices[0]].Line == 0 {
			pos[indices[0]] = at
		}
		return len(indices) == 0 || indices[0] < n
	})
	return pos
}
