package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"unicode/utf8"
)

// replyWriter writes serve's reply lines, each in one Write. A result
// carries each layer's stable text twice (as stable, and at the start of
// text), and escaping those for JSON was most of the cost of a reply;
// the stable text is the same turn after turn, so each layer's is
// escaped once and kept. encoding/json still writes the whole document
// but those two strings, which are spliced into it.
type replyWriter struct {
	w         io.Writer
	doc, text bytes.Buffer
	enc, str  *json.Encoder // into doc and text
	line      []byte
	kept      []keptStable // by layer
}

// keptStable is a layer's last stable text and its JSON string body.
type keptStable struct {
	text    string
	escaped []byte
}

func newReplyWriter(w io.Writer) *replyWriter {
	r := &replyWriter{w: w}
	r.enc, r.str = json.NewEncoder(&r.doc), json.NewEncoder(&r.text)
	r.enc.SetEscapeHTML(false) // prompt text is full of <, > and &
	r.str.SetEscapeHTML(false)
	return r
}

// The keys the stable texts are spliced after. Inside a JSON string
// every quote is escaped, so in the result these bytes occur only as
// keys; the id before it is the client's JSON, so it is skipped.
var (
	emptyStable = []byte(`"stable":""`)
	textKey     = []byte(`"text":"`)
)

// write writes one reply line.
func (r *replyWriter) write(reply serveReply) error {
	r.doc.Reset()
	if err := r.enc.Encode(serveReply{SchemaVersion: reply.SchemaVersion, ID: reply.ID, Error: reply.Error}); err != nil {
		return err
	}
	if reply.Result == nil {
		_, err := r.w.Write(r.doc.Bytes())
		return err
	}
	// The result follows what that line holds but its "}\n".
	head := r.doc.Len() - 2
	layers := reply.Result.Layers
	doc := *reply.Result
	doc.Layers = append([]jsonLayer(nil), layers...)
	spliced := make([]bool, len(layers))
	for i, l := range layers {
		doc.Layers[i].Stable = ""
		// The rest of the text is escaped apart only where that cannot
		// change how its first bytes read.
		if rest, ok := strings.CutPrefix(l.Text, l.Stable); ok && (rest == "" || utf8.RuneStart(rest[0])) {
			doc.Layers[i].Text, spliced[i] = rest, true
		}
	}
	reply.Result = &doc
	r.doc.Reset()
	if err := r.enc.Encode(reply); err != nil {
		return err
	}
	out, rest := append(r.line[:0], r.doc.Bytes()[:head]...), r.doc.Bytes()[head:]
	for i, l := range layers {
		escaped := r.escaped(i, l.Stable)
		at := bytes.Index(rest, emptyStable) + len(emptyStable) - 1 // before the closing quote
		out = append(append(out, rest[:at]...), escaped...)
		rest = rest[at:]
		if spliced[i] {
			at = bytes.Index(rest, textKey) + len(textKey)
			out = append(append(out, rest[:at]...), escaped...)
			rest = rest[at:]
		}
	}
	r.line = append(out, rest...)
	_, err := r.w.Write(r.line)
	return err
}

// escaped is layer i's stable text as a JSON string body, escaped again
// only when the text changed.
func (r *replyWriter) escaped(i int, stable string) []byte {
	if i < len(r.kept) && r.kept[i].text == stable {
		return r.kept[i].escaped
	}
	r.text.Reset()
	_ = r.str.Encode(stable) // a string always encodes
	// Kept less its quotes and newline.
	k := keptStable{text: stable, escaped: bytes.Clone(r.text.Bytes()[1 : r.text.Len()-2])}
	if i < len(r.kept) {
		r.kept[i] = k
	} else {
		r.kept = append(r.kept, k)
	}
	return k.escaped
}
