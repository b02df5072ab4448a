package skills

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// frontMatter is what a SKILL.md declares about itself.
type frontMatter struct {
	name        string
	nameLine    int // the line of the name key, 0 when there is none
	description string
	meta        Metadata
}

// lineError is a front-matter problem at a 1-based line of SKILL.md (0 when
// the YAML parser gave none).
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string {
	if e.line > 0 {
		return "line " + strconv.Itoa(e.line) + ": " + e.msg
	}
	return e.msg
}

func errAt(n *yaml.Node, offset int, format string, args ...any) *lineError {
	return &lineError{line: n.Line + offset, msg: fmt.Sprintf(format, args...)}
}

const fence = "---"

// parseFrontMatter reads the YAML block between the leading "---" lines of a
// SKILL.md, taking its length from yamlLeft. Errors are *lineError with
// lines counted in the whole file.
func parseFrontMatter(data []byte, yamlLeft *int) (frontMatter, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	if !isFence(first) {
		return frontMatter{}, &lineError{line: 1, msg: `no front matter: SKILL.md must start with a "---" line`}
	}
	body, ok := untilFence(rest)
	if !ok {
		return frontMatter{}, &lineError{line: 1, msg: `front matter is not closed by a "---" line`}
	}
	if len(body) > maxFrontMatter {
		return frontMatter{}, &lineError{line: 1, msg: fmt.Sprintf("front matter is larger than %d KiB", maxFrontMatter>>10)}
	}
	*yamlLeft -= len(body)
	const offset = 1 // the opening fence is line 1 of the file

	var doc yaml.Node
	if err := yaml.Unmarshal(body, &doc); err != nil {
		line, msg := splitYAMLError(err)
		if isYAMLReaderProblem(msg) {
			line = unreadableLine(body)
		}
		if line > 0 {
			line += offset
		}
		return frontMatter{}, &lineError{line: line, msg: "invalid YAML: " + msg}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	root = deref(root)
	if root.Kind == 0 || isNull(root) {
		return frontMatter{}, nil
	}
	if root.Kind != yaml.MappingNode {
		return frontMatter{}, errAt(root, offset, "front matter must be a mapping of keys to values")
	}

	return readKeys(root, offset)
}

// readKeys reads name, description and metadata from the front matter
// mapping, refusing a key set twice; other tools' keys are ignored.
func readKeys(root *yaml.Node, offset int) (frontMatter, error) {
	var fm frontMatter
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := deref(root.Content[i]), root.Content[i+1] // v is placed where it is used
		switch k.Value {
		case "name", "description", "metadata":
		default:
			continue // other tools' keys (license, allowed-tools, …)
		}
		if seen[k.Value] {
			return frontMatter{}, errAt(k, offset, "%s is set twice", k.Value)
		}
		seen[k.Value] = true
		var err error
		switch k.Value {
		case "name":
			fm.nameLine = k.Line + offset
			fm.name, err = scalarText(v, offset, "name")
			if err == nil && strings.IndexFunc(fm.name, unicode.IsControl) >= 0 {
				err = errAt(v, offset, "name must be one line of text")
			}
		case "description":
			fm.description, err = scalarText(v, offset, "description")
		case "metadata":
			fm.meta, err = parseMetadata(v, offset)
		}
		if err != nil {
			return frontMatter{}, err
		}
	}
	return fm, nil
}

// maxNameLen is the longest skill name the skills format allows.
const maxNameLen = 64

// nameProblem says how name breaks the skills format's naming rules, or
// returns "": 1 to 64 lowercase letters, digits and hyphens, with no
// hyphen first, last or next to another. Tools that follow the format
// refuse other names, so such a skill would not travel.
func nameProblem(name string) string {
	switch {
	case name == "":
		return "must not be empty"
	case len(name) > maxNameLen:
		return fmt.Sprintf("must be at most %d characters", maxNameLen)
	case strings.IndexFunc(name, func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' }) >= 0:
		return "may hold only lowercase letters a-z, digits and hyphens"
	case name[0] == '-' || name[len(name)-1] == '-':
		return "must not start or end with a hyphen"
	case strings.Contains(name, "--"):
		return "must not hold two hyphens in a row"
	}
	return ""
}

func isFence(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r")) == fence
}

// untilFence returns the text before the first fence line of b.
func untilFence(b []byte) ([]byte, bool) {
	for pos := 0; pos < len(b); {
		end := bytes.IndexByte(b[pos:], '\n')
		next := len(b)
		if end >= 0 {
			end += pos
			next = end + 1
		} else {
			end = len(b)
		}
		if isFence(b[pos:end]) {
			return b[:pos], true
		}
		pos = next
	}
	return nil, false
}

// splitYAMLError takes the 1-based line (0 when unknown) out of a yaml error.
// The package has no typed syntax error, so its "yaml: line N: msg" text is
// read here and only here. Its parser, unlike its scanner, counts lines from
// 0, and a problem on the first line carries no line at all.
func splitYAMLError(err error) (line int, msg string) {
	msg = strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, after, ok := strings.Cut(rest, ": "); ok {
			if n, convErr := strconv.Atoi(num); convErr == nil && n > 0 {
				if isYAMLParserProblem(after) {
					n++
				}
				return n, after
			}
		}
	}
	for _, prefix := range yamlUnplacedProblems {
		if strings.HasPrefix(msg, prefix) {
			return 0, msg
		}
	}
	return 1, msg
}

// yamlUnplacedProblems are the yaml errors that never carry a line.
var yamlUnplacedProblems = []string{
	"unknown anchor", "anchor '", "document contains excessive aliasing",
	"attempted to go past the end", "cannot decode node",
}

// isYAMLReaderProblem reports the messages of yaml's reader (readerc.go),
// which refuses bytes that are not printable UTF-8 and never says where.
func isYAMLReaderProblem(msg string) bool {
	return strings.HasPrefix(msg, "control characters are not allowed") ||
		strings.Contains(msg, "UTF-8") || msg == "invalid Unicode character"
}

// unreadableLine is the 1-based line of body's first code point that yaml's
// reader refuses (invalid UTF-8, or outside YAML's printable set), 0 if none.
func unreadableLine(body []byte) int {
	line := 1
	for i := 0; i < len(body); {
		r, size := utf8.DecodeRune(body[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return line
		case r == '\n':
			line++
		case r == '\t', r == '\r', r >= 0x20 && r <= 0x7E, r == 0x85,
			r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000:
		default:
			return line
		}
		i += size
	}
	return 0
}

// isYAMLParserProblem reports the messages of yaml's parser (parserc.go).
func isYAMLParserProblem(msg string) bool {
	switch msg {
	case "did not find expected ',' or ']'", "did not find expected ',' or '}'",
		"did not find expected '-' indicator", "did not find expected <document start>",
		"did not find expected <stream-start>", "did not find expected key",
		"did not find expected node content", "found duplicate %TAG directive",
		"found duplicate %YAML directive", "found incompatible YAML document",
		"found undefined tag handle":
		return true
	}
	return false
}

// deref follows aliases; the loop bound guards against alias cycles.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; i < 8 && n.Kind == yaml.AliasNode && n.Alias != nil; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// kindName names what n is, for "must be X, not <kindName>".
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return "text"
}

// The readers of values below take the node where a value is used, an
// alias or not, and place their errors there.

func scalarText(at *yaml.Node, offset int, key string) (string, error) {
	n := deref(at)
	if isNull(n) {
		return "", nil
	}
	if n.Kind != yaml.ScalarNode {
		return "", errAt(at, offset, "%s must be text, not %s", key, kindName(n))
	}
	return strings.TrimSpace(n.Value), nil
}

// Bounds of a metadata list: no real skill needs more, and PATH lookups and
// reasons cost a multiple of them.
const (
	maxListItems   = 64
	maxListItemLen = 256
)

// stringList reads a list of text, or one text as a list of one. With
// commands set, each entry must be a command name: a path would have the
// PATH lookup test for a file anywhere on the machine, relative to wherever
// the process runs.
func stringList(at *yaml.Node, offset int, key string, commands bool) ([]string, error) {
	n := deref(at)
	if isNull(n) {
		return nil, nil
	}
	var items []*yaml.Node
	switch n.Kind {
	case yaml.ScalarNode:
		items = []*yaml.Node{n}
	case yaml.SequenceNode:
		items = n.Content
	default:
		return nil, errAt(at, offset, "%s must be a list of text, not %s", key, kindName(n))
	}
	// Aliases let a small file repeat a long item many times, and each
	// gate joins its list into a reason: bound both.
	if len(items) > maxListItems {
		return nil, errAt(at, offset, "%s has %d entries; at most %d are allowed", key, len(items), maxListItems)
	}
	var out []string
	for _, use := range items {
		item := deref(use)
		if at != n { // the items of a list reached by an alias are placed at the alias
			use = at
		}
		if item.Kind != yaml.ScalarNode {
			return nil, errAt(use, offset, "%s must be a list of text, not a list of %s", key, strings.TrimPrefix(kindName(item), "a "))
		}
		if len(item.Value) > maxListItemLen {
			return nil, errAt(use, offset, "%s has an entry of %d bytes; at most %d are allowed", key, len(item.Value), maxListItemLen)
		}
		s := strings.TrimSpace(item.Value)
		if s == "" || isNull(item) {
			continue
		}
		if commands && (strings.ContainsAny(s, `/\:`) || s == "." || s == "..") {
			return nil, errAt(use, offset, "%s entry %q is a path, not a command name looked up on PATH", key, s)
		}
		out = append(out, s)
	}
	return out, nil
}

func parseMetadata(at *yaml.Node, offset int) (Metadata, error) {
	n := deref(at)
	if isNull(n) {
		return Metadata{}, nil
	}
	if n.Kind != yaml.MappingNode {
		return Metadata{}, errAt(at, offset, "metadata must be a mapping, not %s", kindName(n))
	}
	// The original product nests its fields under a product key.
	for i := 0; i+1 < len(n.Content); i += 2 {
		if deref(n.Content[i]).Value == "openclaw" {
			if v := deref(n.Content[i+1]); v.Kind == yaml.MappingNode {
				n = v
				break
			}
		}
	}
	var m Metadata
	var err error
	for i := 0; i+1 < len(n.Content) && err == nil; i += 2 {
		k, v := deref(n.Content[i]), n.Content[i+1]
		switch k.Value {
		case "os":
			m.OS, err = stringList(v, offset, "metadata.os", false)
		case "always":
			m.Always, err = boolValue(v, offset, "metadata.always")
		case "skillKey":
			m.SkillKey, err = scalarText(v, offset, "metadata.skillKey")
		case "primaryEnv":
			m.PrimaryEnv, err = scalarText(v, offset, "metadata.primaryEnv")
		case "requires":
			m.Requires, err = parseRequires(v, offset)
		}
	}
	return m, err
}

func boolValue(at *yaml.Node, offset int, key string) (bool, error) {
	n := deref(at)
	if isNull(n) {
		return false, nil
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		return false, errAt(at, offset, "%s must be true or false", key)
	}
	return strings.EqualFold(n.Value, "true"), nil
}

func parseRequires(at *yaml.Node, offset int) (Requirements, error) {
	n := deref(at)
	if isNull(n) {
		return Requirements{}, nil
	}
	if n.Kind != yaml.MappingNode {
		return Requirements{}, errAt(at, offset, "metadata.requires must be a mapping, not %s", kindName(n))
	}
	var r Requirements
	var err error
	for i := 0; i+1 < len(n.Content) && err == nil; i += 2 {
		k, v := deref(n.Content[i]), n.Content[i+1]
		switch k.Value {
		case "bins":
			r.Bins, err = stringList(v, offset, "metadata.requires.bins", true)
		case "anyBins":
			r.AnyBins, err = stringList(v, offset, "metadata.requires.anyBins", true)
		case "env":
			r.Env, err = stringList(v, offset, "metadata.requires.env", false)
		case "config":
			r.Config, err = stringList(v, offset, "metadata.requires.config", false)
		}
	}
	return r, err
}
