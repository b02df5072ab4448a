package strict

import "strings"

// BurntSushi/toml does not say where a key or a value is written, so this
// file finds out from the text: one pass over the document records every
// table header, every key and every element of an array value, with its
// line and column. It is a locator, not a parser: it follows enough of
// TOML (comments, quoted keys, strings, multi-line arrays and strings) to
// place a caret on a document the decoder has already accepted.

// Pos is a 1-based line and column in a document.
type Pos struct{ Line, Col int }

// TOMLDoc records where things are written in a TOML document.
type TOMLDoc struct {
	entries []tomlEntry
}

type entryKind uint8

const (
	headerEntry  entryKind = iota // [table] or [[table]]
	keyEntry                      // key = value
	elementEntry                  // one element of an array value
)

type tomlEntry struct {
	kind  entryKind
	table string // the table the entry is in; a header's own name
	n     int    // which header of that name (0-based) the entry is under
	key   string // full dotted key: a header's name; for an element, its array's key
	rel   string // the key relative to its table (keys and elements)
	array bool   // a [[header]]
	index int    // an element's index in its array
	pos   Pos
	// The text after a key's "=" on its line, and the column it starts at.
	value    string
	valueCol int
}

// ScanTOML records where every header, key and array element of src is
// written.
func ScanTOML(src string) *TOMLDoc {
	s := &tomlScanner{src: src, lines: strings.Split(src, "\n"), seen: map[string]int{}}
	s.starts = make([]int, len(s.lines))
	for i := 1; i < len(s.lines); i++ {
		s.starts[i] = s.starts[i-1] + len(s.lines[i-1]) + 1
	}
	for s.i = 0; s.i < len(s.lines); s.i++ {
		s.line()
	}
	return &TOMLDoc{entries: s.entries}
}

// Scan is src's TOMLDoc, scanned when first asked for: a checker wants
// positions only to report a problem, which a valid document (the
// built-in pack, read on every cold start) never has. It is for one
// goroutine.
type Scan struct {
	src string
	doc *TOMLDoc
}

// LazyScan returns src's Scan, not scanned yet.
func LazyScan(src string) *Scan { return &Scan{src: src} }

// Doc scans src on the first call and returns its TOMLDoc.
func (s *Scan) Doc() *TOMLDoc {
	if s.doc == nil {
		s.doc = ScanTOML(s.src)
	}
	return s.doc
}

type tomlScanner struct {
	src     string
	lines   []string
	starts  []int          // the offset in src of each line
	i       int            // current line, 0-based
	table   string         // current table
	n       int            // which header of that name it is
	seen    map[string]int // headers seen so far, by name
	entries []tomlEntry
}

func (s *tomlScanner) line() {
	raw := s.lines[s.i]
	trimmed := strings.TrimLeft(raw, " \t")
	indent := len(raw) - len(trimmed)
	switch {
	case strings.HasPrefix(trimmed, "["):
		open := 1
		if strings.HasPrefix(trimmed, "[[") {
			open = 2
		}
		end := strings.Index(trimmed, strings.Repeat("]", open))
		if end < 0 {
			return
		}
		inner := trimmed[open:end]
		s.table = normalizeKey(inner)
		s.n = s.seen[s.table]
		s.seen[s.table]++
		s.entries = append(s.entries, tomlEntry{kind: headerEntry, table: s.table, n: s.n, key: s.table, array: open == 2,
			pos: Pos{s.i + 1, indent + open + 1 + leadingSpace(inner)}})
	case trimmed == "" || strings.HasPrefix(trimmed, "#"):
	default:
		eq := strings.Index(trimmed, "=")
		if eq <= 0 {
			return
		}
		rel := normalizeKey(trimmed[:eq])
		e := tomlEntry{kind: keyEntry, table: s.table, n: s.n, key: join(s.table, rel), rel: rel,
			pos: Pos{s.i + 1, indent + 1}, value: trimmed[eq+1:], valueCol: indent + eq + 2}
		s.entries = append(s.entries, e)
		s.value(e, indent+eq+1)
	}
}

// value skips the value that starts at or after byte at of the current
// line, recording an array's elements; it leaves s.i on the value's last
// line.
func (s *tomlScanner) value(key tomlEntry, at int) {
	c := &cursor{src: s.src, lines: s.lines, starts: s.starts, i: s.i, j: at}
	c.space()
	switch {
	case c.peek() == '[':
		s.array(key, c)
	case c.peek() == '"' || c.peek() == '\'':
		c.skipString()
	}
	s.i = min(c.i, len(s.lines)-1)
}

// array walks the array at the cursor, recording where each of its
// elements starts (nested arrays and inline tables count as one element).
func (s *tomlScanner) array(key tomlEntry, c *cursor) {
	depth, index := 0, 0
	for !c.done() {
		if c.eol() {
			c.nextLine()
			continue
		}
		switch ch := c.peek(); {
		case ch == ' ' || ch == '\t' || ch == '\r' || ch == ',':
			c.j++
		case ch == '#':
			c.j = len(c.lines[c.i])
		case ch == ']' || ch == '}':
			depth--
			if depth == 0 {
				return
			}
			c.j++
		default:
			if depth == 1 {
				s.entries = append(s.entries, tomlEntry{kind: elementEntry, table: key.table, n: key.n, key: key.key, rel: key.rel,
					index: index, pos: Pos{c.i + 1, c.j + 1}})
				index++
			}
			switch ch {
			case '[', '{':
				depth++
				c.j++
			case '"', '\'':
				c.skipString()
			default:
				c.skipBare()
			}
		}
	}
}

// cursor is a position in a document's lines.
type cursor struct {
	src    string
	lines  []string
	starts []int
	i, j   int
}

func (c *cursor) done() bool { return c.i >= len(c.lines) }
func (c *cursor) eol() bool  { return c.j >= len(c.lines[c.i]) }
func (c *cursor) nextLine()  { c.i, c.j = c.i+1, 0 }

func (c *cursor) peek() byte {
	if c.done() || c.eol() {
		return 0
	}
	return c.lines[c.i][c.j]
}

func (c *cursor) space() {
	for ch := c.peek(); ch == ' ' || ch == '\t'; ch = c.peek() {
		c.j++
	}
}

// skipBare skips a number, boolean, date or inline key.
func (c *cursor) skipBare() {
	for !c.eol() && strings.IndexByte(" \t\r,]}#", c.lines[c.i][c.j]) < 0 {
		c.j++
	}
}

// skipString skips the string at the cursor.
func (c *cursor) skipString() {
	end := stringEnd(c.src, c.starts[c.i]+c.j)
	for c.i+1 < len(c.starts) && c.starts[c.i+1] <= end {
		c.i++
	}
	c.j = end - c.starts[c.i]
}

// stringEnd returns the offset just past the TOML string whose opening
// quote is src[i]: basic or literal, on one line or (tripled quotes)
// over several, where up to two more quotes after the closing three
// belong to the text. An unterminated string ends at the end of its line
// (or of src, when tripled): the decoder reports it.
func stringEnd(src string, i int) int {
	q := src[i]
	delim := src[i : i+1]
	if strings.HasPrefix(src[i:], strings.Repeat(delim, 3)) {
		delim = strings.Repeat(delim, 3)
	}
	j, limit := i+len(delim), len(src)
	if len(delim) == 1 {
		if nl := strings.IndexByte(src[j:], '\n'); nl >= 0 {
			limit = j + nl
		}
	}
	end := closing(src[j:limit], delim, q == '"')
	if end < 0 {
		return limit
	}
	j += end + len(delim)
	for extra := 0; len(delim) == 3 && extra < 2 && j < len(src) && src[j] == q; extra++ {
		j++
	}
	return j
}

// closing finds delim in s, skipping backslash escapes in a basic string.
func closing(s, delim string, escapes bool) int {
	for k := 0; k < len(s); k++ {
		switch {
		case escapes && s[k] == '\\':
			k++
		case strings.HasPrefix(s[k:], delim):
			return k
		}
	}
	return -1
}

// inlineTableHolds is a cheap check that an inline table value mentions
// the first part of sub; good enough to place a caret, never to decode.
func inlineTableHolds(value, sub string) bool {
	value = strings.TrimSpace(value)
	first := sub
	if i := strings.Index(sub, "."); i >= 0 {
		first = sub[:i]
	}
	return strings.HasPrefix(value, "{") && strings.Contains(value, first)
}

func join(table, key string) string {
	if table == "" {
		return key
	}
	return table + "." + key
}

func leadingSpace(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }

// normalizeKey turns `a . "b" .c` into a.b.c.
func normalizeKey(k string) string {
	parts := strings.Split(k, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}

// Locate finds where the dotted key is defined, at or after line from
// (1-based): the key of a "k = v" line (inside the right table), or the
// header of the table it names. A key inside an inline table is placed on
// its name. It returns 0, 0 when the key is not found. Array indices are
// not part of the key, matching toml.Key.
func (d *TOMLDoc) Locate(key string, from int) (line, col int) {
	for _, e := range d.entries {
		if e.pos.Line < from {
			continue
		}
		switch e.kind {
		case headerEntry:
			if e.key == key {
				return e.pos.Line, e.pos.Col
			}
		case keyEntry:
			if e.key == key {
				return e.pos.Line, e.pos.Col
			}
			sub, inside := strings.CutPrefix(key, e.key+".")
			if inside && inlineTableHolds(e.value, sub) {
				last := sub[strings.LastIndex(sub, ".")+1:]
				if at := strings.Index(e.value, last); at >= 0 {
					return e.pos.Line, e.valueCol + at
				}
				return e.pos.Line, e.pos.Col
			}
		}
	}
	return 0, 0
}

// Headers returns the 1-based lines of every "[[name]]" header, in order.
func (d *TOMLDoc) Headers(name string) []int {
	var out []int
	for _, e := range d.entries {
		if e.kind == headerEntry && e.array && e.key == name {
			out = append(out, e.pos.Line)
		}
	}
	return out
}

// Table returns where the n-th (0-based) header of the named table is
// written; ok is false if the document has no such header.
func (d *TOMLDoc) Table(name string, n int) (pos Pos, ok bool) {
	for _, e := range d.entries {
		if e.kind == headerEntry && e.key == name && e.n == n {
			return e.pos, true
		}
	}
	return Pos{}, false
}

// Key returns where key (relative to the table) is written under the n-th
// header of table ("" and 0 for the top level); ok is false if it is not.
func (d *TOMLDoc) Key(table string, n int, key string) (pos Pos, ok bool) {
	for _, e := range d.entries {
		if e.kind == keyEntry && e.table == table && e.n == n && e.rel == key {
			return e.pos, true
		}
	}
	return Pos{}, false
}

// Value returns where the value of key under the n-th header of table
// starts; ok is false if the key is not written there.
func (d *TOMLDoc) Value(table string, n int, key string) (pos Pos, ok bool) {
	for _, e := range d.entries {
		if e.kind == keyEntry && e.table == table && e.n == n && e.rel == key {
			return Pos{e.pos.Line, e.valueCol + leadingSpace(e.value)}, true
		}
	}
	return Pos{}, false
}

// Elements returns where each element of the array value of key under
// the n-th header of table starts, in order.
func (d *TOMLDoc) Elements(table string, n int, key string) []Pos {
	var out []Pos
	for _, e := range d.entries {
		if e.kind == elementEntry && e.table == table && e.n == n && e.rel == key {
			out = append(out, e.pos)
		}
	}
	return out
}

// ElementsOf returns where each element of the array at the full dotted
// key starts, in order, whether the document wrote it under its own table
// ([a.b] c = [...]), as a dotted key (a.b.c = [...]) or anything between.
func (d *TOMLDoc) ElementsOf(key string) []Pos {
	var out []Pos
	for _, e := range d.entries {
		if e.kind == elementEntry && e.key == key {
			out = append(out, e.pos)
		}
	}
	return out
}
