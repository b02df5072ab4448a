package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// replyWriter writes serve's replies, one line each, with one Write.
//
// Most of a result is three strings per layer: the stable prefix, the
// dynamic part, and the text, which is the two joined around the
// boundary. Encoded as they are, every byte of the prompt is escaped
// twice, and the stable prefix, the same turn after turn, on every
// turn. So the reply is encoded with a marker in place of each of those
// strings, and the escaped strings are put in: a stable prefix's escaped
// form is kept while the next turn's is the same, and a text is made of
// its escaped parts. JSON escaping works rune by rune, so the parts of a
// string cut between runes escape to the parts of its escaped form; the
// bytes are those encoding/json writes for the whole reply
// (TestReplyWriterWritesWhatEncodingJSONWrites).
type replyWriter struct {
	w      io.Writer
	enc    *json.Encoder // into buf
	buf    bytes.Buffer
	line   []byte
	stable []escapedString // by layer: the last stable prefix
}

// escapedString is a string and its JSON encoding, quotes included.
type escapedString struct {
	s    string
	json []byte
}

func newReplyWriter(w io.Writer) *replyWriter {
	r := &replyWriter{w: w}
	r.enc = json.NewEncoder(&r.buf)
	r.enc.SetEscapeHTML(false)
	return r
}

// write writes reply as one line.
func (r *replyWriter) write(reply serveReply) error {
	line, err := r.encode(reply)
	if err != nil {
		return err
	}
	_, err = r.w.Write(line)
	return err
}

// encode returns reply's line. A result is encoded as a skeleton, with
// markers for its big strings, which fill then replaces; encoding/json
// writes everything else, so the line keeps whatever the document holds.
func (r *replyWriter) encode(reply serveReply) ([]byte, error) {
	if reply.Result == nil {
		return r.plain(reply)
	}
	doc := *reply.Result
	marked := doc
	marked.Layers = slices.Clone(doc.Layers)
	var parts []markedString
	for i := range marked.Layers {
		l := &marked.Layers[i]
		for _, f := range []struct {
			field *string
			kind  string
		}{{&l.Stable, "stable"}, {&l.Dynamic, "dynamic"}, {&l.Text, "text"}} {
			m := markedString{marker: fmt.Sprintf("\x00sysprompt-serve:%s:%d", f.kind, i), layer: i, kind: f.kind}
			*f.field = m.marker
			parts = append(parts, m)
		}
	}
	markedReply := reply
	markedReply.Result = &marked
	skeleton, err := r.plain(markedReply)
	if err != nil {
		return nil, err
	}
	if line, ok := r.fill(skeleton, parts, doc); ok {
		return line, nil
	}
	return r.plain(reply)
}

// markedString is a string left out of the skeleton, and its marker.
type markedString struct {
	marker string
	layer  int
	kind   string // stable, dynamic or text
	at     int    // where its encoded marker is in the skeleton
	quoted []byte // its encoded marker
}

// fill puts the escaped strings in place of their markers. It fails on
// a marker found other than once (a pack's names might hold one).
func (r *replyWriter) fill(skeleton []byte, parts []markedString, doc renderDoc) ([]byte, bool) {
	skeleton = bytes.Clone(skeleton) // r.buf is reused below
	for i := range parts {
		q, _ := json.Marshal(parts[i].marker)
		if bytes.Count(skeleton, q) != 1 {
			return nil, false
		}
		parts[i].quoted, parts[i].at = q, bytes.Index(skeleton, q)
	}
	slices.SortFunc(parts, func(a, b markedString) int { return a.at - b.at })
	r.line = r.line[:0]
	from := 0
	for _, p := range parts {
		r.line = append(r.line, skeleton[from:p.at]...)
		r.line = r.appendLayerString(r.line, doc.Layers[p.layer], p)
		from = p.at + len(p.quoted)
	}
	return append(r.line, skeleton[from:]...), true
}

// appendLayerString appends the escaped stable prefix, dynamic part or
// text of layer l.
func (r *replyWriter) appendLayerString(dst []byte, l jsonLayer, p markedString) []byte {
	switch p.kind {
	case "stable":
		return append(dst, r.stablePrefix(p.layer, l.Stable)...)
	case "dynamic":
		return r.appendEscaped(dst, l.Dynamic)
	}
	// The text is the stable prefix and the rest: the rest is escaped,
	// the prefix reused. The cut is at an ASCII byte (a newline, as
	// assembled), so no rune, nor any broken one, spans it.
	cut := len(l.Stable)
	if !strings.HasPrefix(l.Text, l.Stable) || cut < len(l.Text) && l.Text[cut] >= utf8.RuneSelf {
		return r.appendEscaped(dst, l.Text)
	}
	stable := r.stablePrefix(p.layer, l.Stable)
	dst = append(dst, stable[:len(stable)-1]...) // without its closing quote
	rest := len(dst)
	dst = r.appendEscaped(dst, l.Text[len(l.Stable):])
	return slices.Delete(dst, rest, rest+1) // without the rest's opening quote
}

// stablePrefix returns the escaped stable prefix of a layer, escaping it
// only when it differs from the one before.
func (r *replyWriter) stablePrefix(layer int, s string) []byte {
	for len(r.stable) <= layer {
		r.stable = append(r.stable, escapedString{})
	}
	kept := &r.stable[layer]
	if kept.json == nil || kept.s != s {
		kept.s = s
		kept.json = r.appendEscaped(kept.json[:0], s)
	}
	return kept.json
}

// appendEscaped appends s as encoding/json writes a string.
func (r *replyWriter) appendEscaped(dst []byte, s string) []byte {
	r.buf.Reset()
	r.enc.Encode(s) // a string always encodes
	return append(dst, bytes.TrimSuffix(r.buf.Bytes(), []byte("\n"))...)
}

// plain encodes reply with encoding/json.
func (r *replyWriter) plain(reply serveReply) ([]byte, error) {
	r.buf.Reset()
	if err := r.enc.Encode(reply); err != nil {
		return nil, err
	}
	return r.buf.Bytes(), nil
}
