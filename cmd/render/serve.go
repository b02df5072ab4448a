package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/host"
	"github.com/sysprompt/sysprompt/engine/report"
	"github.com/sysprompt/sysprompt/internal/echo"
)

// serveSchemaVersion is the schema_version of every line serve writes:
// its result is the render document, so the two change together.
const serveSchemaVersion = report.SchemaVersion

// maxServeLine bounds one input line, envelope included: the largest
// request document the engine parses. A longer line is skipped, never
// held whole.
const maxServeLine = engine.MaxRequestBytes

// serveMemoryLimit is serve's soft memory limit when GOMEMLIMIT is unset.
const serveMemoryLimit = 192 << 20

// hookExitGrace bounds how long serve and watch, ended by a signal, wait
// for a hook in flight to end what it started: its context is cancelled,
// so it kills its group and reaps at once.
const hookExitGrace = 2 * time.Second

// serveInput names stdin in the positions of errors.
const serveInput = "<stdin>"

// cmdServe answers newline-delimited JSON requests on stdin with one JSON
// line each on stdout, rendering on one engine that lives as long as the
// process, so its workspace snapshot and stable-tier memo stay warm.
func cmdServe(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", stdout, stderr)
	var c common
	c.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	// A bad flag is refused once rather than on every line.
	if err := c.validate(); err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		// A turn allocates about 40 KB (60 KB with -pack) over a live
		// heap of about 3 MB; at 400 the heap grows to about 16 MB, and
		// collections are a quarter as many.
		defer debug.SetGCPercent(debug.SetGCPercent(400))
		if os.Getenv("GOMEMLIMIT") == "" {
			// The engine's caches hold up to about 130 MB of large
			// entries; past that, collect as often as it takes, so a run
			// of requests carrying megabyte strings cannot grow the heap
			// fivefold.
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(serveMemoryLimit))
		}
	}
	s, err := newServer(&c)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return s.serve(ctx, stdin, stdout)
}

// serveReply is one output line: a result or an error, never both.
type serveReply struct {
	SchemaVersion int             `json:"schema_version"`
	ID            json.RawMessage `json:"id"` // null when the line gave none
	Result        *renderDoc      `json:"result,omitempty"`
	Error         *serveError     `json:"error,omitempty"`
}

// serveError is an error as data; the position fields are set when known.
type serveError struct {
	Message string `json:"message"` // the one line render would print
	Phase   string `json:"phase,omitempty"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Section string `json:"section,omitempty"`
}

func serveErrorOf(err error) *serveError {
	out := &serveError{Message: err.Error()}
	var e *engine.Error // the first one of an ErrorList
	if errors.As(err, &e) {
		out.Phase, out.File, out.Line, out.Col, out.Section = string(e.Phase), e.File, e.Line, e.Col, e.Section
	}
	return out
}

// serve answers stdin's lines until EOF (nil) or a read or write error,
// or until ctx ends (nil). One goroutine reads, answers and writes each
// line in turn, with no hand-over between goroutines on the way; this
// one only waits for it or for ctx, so that a signal ends serve while
// stdin is still open, or a render is stuck where no context reaches (a
// read of a named pipe, say): the line in hand gets no reply, and only a
// reply already being written is finished. A panic is raised again here,
// where run recovers.
func (s *server) serve(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	type outcome struct {
		err      error
		panicked any
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			o.panicked = recover()
			done <- o
		}()
		o.err = s.answerLines(ctx, stdin, stdout)
	}()
	select {
	case o := <-done:
		if o.panicked != nil {
			panic(o.panicked)
		}
		return o.err
	case <-ctx.Done():
		s.mu.Lock() // waits for a reply being written, not for a render
		s.stopped = true
		s.mu.Unlock()
		host.AwaitHooks(hookExitGrace)
		return nil
	}
}

// answerLines is serve's loop. Each reply is one Write to stdout, which
// is not buffered, so it is out before the next line is read.
func (s *server) answerLines(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	br := bufio.NewReaderSize(stdin, maxServeLine+1) // a line and its newline
	out := newReplyWriter(stdout)
	for n := 1; ; n++ {
		in, err := readLine(br, n)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading stdin: %w", err)
		}
		if in.tooLong || len(bytes.TrimSpace(in.text)) > 0 {
			if ok, err := s.reply(ctx, in, out); !ok || err != nil {
				return err
			}
		}
		if err != nil {
			return nil // EOF
		}
	}
}

// reply answers one line unless serve has stopped; it reports whether it
// had not.
func (s *server) reply(ctx context.Context, in inputLine, out *replyWriter) (bool, error) {
	s.mu.Lock()
	stopped := s.stopped
	s.mu.Unlock()
	if stopped {
		return false, nil
	}
	r := s.answer(ctx, in)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return false, nil
	}
	return true, out.write(r)
}

// answer renders one line's request, or says why it cannot.
func (s *server) answer(ctx context.Context, in inputLine) serveReply {
	reply := serveReply{SchemaVersion: serveSchemaVersion}
	fail := func(err error) serveReply {
		reply.Error = serveErrorOf(err)
		return reply
	}
	if in.tooLong {
		return fail(lineError(in.n, maxServeLine+1, fmt.Sprintf("line is longer than %d bytes; skipped", maxServeLine)))
	}
	id, req, err := parseLine(in)
	reply.ID = id
	if err != nil {
		return fail(err)
	}
	e, err := s.engine()
	if err != nil {
		return fail(err)
	}
	s.c.override(e, &req)
	res, err := e.Render(ctx, req)
	if err != nil {
		return fail(inPack(err, s.c.pack))
	}
	doc := renderDocument(res)
	reply.Result = &doc
	return reply
}

// inputLine is one line of stdin, without its newline.
type inputLine struct {
	n       int    // 1-based
	text    []byte // the reader's buffer: good until the next read
	tooLong bool   // text is nil: the line was skipped
}

// readLine reads line n. A line over maxServeLine is read past in
// buffer-sized pieces, never held whole, and comes back tooLong.
func readLine(br *bufio.Reader, n int) (inputLine, error) {
	text, err := br.ReadSlice('\n')
	in := inputLine{n: n, text: bytes.TrimSuffix(text, []byte("\n"))}
	if errors.Is(err, bufio.ErrBufferFull) {
		in.text, in.tooLong = nil, true
		err = skipLine(br)
	}
	return in, err
}

// skipLine reads past the rest of a line, holding one buffer at a time.
func skipLine(br *bufio.Reader) error {
	for {
		_, err := br.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// serveLine is what one line holds, decoded in one pass.
type serveLine struct {
	ID      json.RawMessage `json:"id"`
	Request *engine.Request `json:"request"`
}

// parseLine reads a line's id and request. A good line is decoded in one
// pass; a line with a mistake in it is read again, envelope first, then
// the request, so that the error says what the envelope or the request
// got wrong, at its column in the line.
func parseLine(in inputLine) (json.RawMessage, engine.Request, error) {
	var line serveLine
	if engine.DecodeJSON(serveInput, in.text, &line) == nil && line.Request != nil && line.Request.Validate() == nil {
		return line.ID, *line.Request, nil
	}
	return parseLineInParts(in)
}

// parseLineInParts reads the envelope, then the request in it.
func parseLineInParts(in inputLine) (json.RawMessage, engine.Request, error) {
	env, err := parseEnvelope(in)
	if err != nil {
		return env.id, engine.Request{}, err
	}
	req, err := engine.ParseRequest(serveInput, env.request)
	if err != nil {
		return env.id, engine.Request{}, atLine(err, in.n, env.requestAt)
	}
	return env.id, req, nil
}

// envelope is what one line holds: {"id": …, "request": {…}}.
type envelope struct {
	id        json.RawMessage // nil when absent
	request   json.RawMessage
	requestAt int // byte offset of request in the line
}

// parseEnvelope reads a line's envelope; the id is kept when it was read
// before a mistake, so the error line can echo it. The request is kept
// raw: ParseRequest reads it, strictly.
func parseEnvelope(in inputLine) (envelope, error) {
	var env envelope
	text := in.text
	fail := func(offset int, msg string) (envelope, error) {
		return env, lineError(in.n, offset+1, msg)
	}
	if !utf8.Valid(text) {
		return fail(invalidUTF8At(text), "line is not valid UTF-8")
	}
	// A repeated key is this reader's to name. The line is UTF-8; an id
	// with a lone surrogate escape is echoed as written, as it was sent.
	opts := []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
	dec := jsontext.NewDecoder(bytes.NewReader(text), opts...)
	syntax := func(err error) (envelope, error) {
		// Read as one value, the line gets jsontext's best words: the
		// token reader blames a trailing comma, not the bracket after it.
		whole := jsontext.NewDecoder(bytes.NewReader(text), opts...)
		if _, werr := whole.ReadValue(); werr != nil {
			err = werr
		}
		se, ok := errors.AsType[*jsontext.SyntacticError](err)
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return fail(len(text), "unexpected end of JSON input")
		case ok:
			return fail(int(se.ByteOffset), se.Err.Error())
		}
		return fail(int(dec.InputOffset()), err.Error())
	}
	if dec.PeekKind() != '{' {
		return fail(nextAt(text, 0, ""), `a line must be one JSON object: {"id": …, "request": {…}}`)
	}
	dec.ReadToken()
	for dec.PeekKind() != '}' {
		keyAt := nextAt(text, dec.InputOffset(), ",")
		tok, err := dec.ReadToken()
		if err != nil {
			return syntax(err)
		}
		key := tok.String()
		switch {
		case key == "id" && env.id == nil, key == "request" && env.request == nil:
		case key == "id" || key == "request":
			return fail(keyAt, fmt.Sprintf("key %s repeated", echo.Quote(key)))
		default:
			return fail(keyAt, fmt.Sprintf("unknown key %s (want id and request)", echo.Quote(key)))
		}
		value, err := dec.ReadValue()
		if err != nil {
			return syntax(err)
		}
		if key == "id" {
			env.id = bytes.Clone(value)
		} else {
			env.request, env.requestAt = bytes.Clone(value), int(dec.InputOffset())-len(value)
		}
	}
	if _, err := dec.ReadToken(); err != nil { // the closing brace
		return syntax(err)
	}
	if at := nextAt(text, dec.InputOffset(), ""); at < len(text) {
		return fail(at, "text after the JSON object")
	}
	if env.request == nil {
		return fail(0, `no "request" key`)
	}
	if env.request[0] != '{' {
		return fail(env.requestAt, "request must be a JSON object")
	}
	return env, nil
}

// nextAt is the offset of the first byte from off on that is neither
// white space nor in skip.
func nextAt(text []byte, off int64, skip string) int {
	return len(text) - len(bytes.TrimLeft(text[off:], " \t\r"+skip))
}

func invalidUTF8At(text []byte) int {
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRune(text[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(text)
}

// lineError is a mistake at a column of an input line.
func lineError(line, col int, msg string) error {
	return &engine.Error{Phase: engine.PhaseRequest, File: serveInput, Line: line, Col: col, Err: errors.New(msg)}
}

// atLine moves the position of a request error from the request's own
// text to the input line: a line holds no newline, so the request is all
// on its line 1, which starts offset bytes into the line.
func atLine(err error, line, offset int) error {
	e, ok := errors.AsType[*engine.Error](err)
	if !ok {
		return err
	}
	moved := *e
	moved.Line = line
	if e.Line == 1 && e.Col > 0 {
		moved.Col = offset + e.Col
	}
	return &moved
}
