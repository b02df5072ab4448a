package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/report"
	"github.com/sysprompt/sysprompt/internal/echo"
)

// tiktoken counts tokens exactly with an embedded vocabulary.
type tiktoken struct {
	name  string
	codec tokenizer.Codec
}

func (t tiktoken) Name() string { return t.name }

func (t tiktoken) Count(s string) int {
	n, err := t.codec.Count(s)
	if err != nil {
		// The codec only fails on invalid UTF-8, which the engine never
		// produces; count what an estimate would rather than crash.
		return report.EstimateTokens{}.Count(s)
	}
	return n
}

// newTokenizer returns the tokenizer for -tokenizer NAME.
func newTokenizer(name string) (report.Tokenizer, error) {
	var enc tokenizer.Encoding
	switch name {
	case "", "estimate":
		return report.EstimateTokens{}, nil
	case "o200k":
		enc = tokenizer.O200kBase
	case "cl100k":
		enc = tokenizer.Cl100kBase
	default:
		return nil, &usageError{fmt.Sprintf("-tokenizer %s: want estimate, o200k or cl100k", echo.Quote(name))}
	}
	codec, err := tokenizer.Get(enc)
	if err != nil {
		return nil, err
	}
	return tiktoken{name: name, codec: codec}, nil
}

// renderFor parses the common flags, -tokenizer and the flags extra
// adds, hands the positional arguments to args for checking, and renders
// once.
func renderFor(name string, argv []string, stdin io.Reader, stdout, stderr io.Writer, extra func(*flag.FlagSet), args func([]string) error) (*engine.Result, report.Tokenizer, error) {
	fs := newFlagSet(name, stdout, stderr)
	var c common
	c.register(fs)
	c.registerRequest(fs)
	tokName := fs.String("tokenizer", "estimate", "token counts: estimate (ceil(chars/4)), o200k or cl100k (exact) `NAME`")
	if extra != nil {
		extra(fs)
	}
	if err := parse(fs, argv); err != nil {
		return nil, nil, err
	}
	if err := args(fs.Args()); err != nil {
		return nil, nil, err
	}
	tok, err := newTokenizer(*tokName)
	if err != nil {
		return nil, nil, err
	}
	if err := c.validate(); err != nil {
		return nil, nil, err
	}
	c.preview = true
	e, req, err := c.load(stdin)
	if err != nil {
		return nil, nil, err
	}
	res, err := renderOnce(e, req)
	if err != nil {
		return nil, nil, inPack(err, c.pack)
	}
	return res, tok, nil
}

func cmdReport(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	view := "list"
	var out string
	var format *string
	var ro reportFlags
	var flagSet *flag.FlagSet
	flags := func(fs *flag.FlagSet) {
		ro.register(htmlFlags(&out))(fs)
		format = formatFlag(fs)
		flagSet = fs
	}
	res, tok, err := renderFor("report", args, stdin, stdout, stderr, flags, func(rest []string) error {
		if len(rest) > 0 {
			view = rest[0]
		}
		if err := checkFormat(*format); err != nil {
			return err
		}
		if *format == "json" {
			// "report json" is the older spelling of -format json.
			if len(rest) > 0 && view != "json" {
				return &usageError{fmt.Sprintf("report %s -format json: -format json is the json view; give one of them", view)}
			}
			view = "json"
		}
		switch {
		case view != "list" && view != "detail" && view != "json" && view != "html":
			return &usageError{fmt.Sprintf("report %s: want list, detail, json or html", echo.Quote(view))}
		case len(rest) > 1:
			return &usageError{fmt.Sprintf("unexpected argument %s", echo.Quote(rest[1]))}
		case out != "" && view != "html":
			return &usageError{fmt.Sprintf("-o applies to report html only; report %s prints to stdout", view)}
		case *format == "text" && setFlags(flagSet)["format"] && view != "list" && view != "detail":
			return &usageError{fmt.Sprintf("report %s -format text: the %s view has no text form", view, view)}
		}
		return nil
	})
	if err != nil {
		return err
	}
	rep := report.Build(res, tok, ro.options()...)
	if view == "json" {
		return encodeJSON(stdout, rep)
	}
	if view == "html" {
		return writeHTMLReport(rep, out, stdout)
	}
	// As on the page, invisible characters in names show as escapes.
	var b strings.Builder
	writeReport(&b, rep, view == "detail")
	_, err = io.WriteString(stdout, echo.Visible(b.String()))
	return err
}

// reportFlags are the report's own flags: what else the request holds,
// and the model's window.
type reportFlags struct {
	messages []string
	window   int
}

// register adds the flags, after those of also.
func (f *reportFlags) register(also func(*flag.FlagSet)) func(*flag.FlagSet) {
	return func(fs *flag.FlagSet) {
		also(fs)
		fs.Func("message", "count a user message `TEXT` in the request (repeatable)", func(text string) error {
			f.messages = append(f.messages, text)
			return nil
		})
		fs.Func("context-window", "the model's context window in `TOKENS`, over the config's contextTokens and the pack's templates/models.toml", func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return errors.New("want a positive number of tokens")
			}
			f.window = n
			return nil
		})
	}
}

func (f *reportFlags) options() []report.Option {
	return []report.Option{report.Messages(f.messages...), report.ContextWindow(f.window)}
}

// num formats n with thousands separators.
func num(n int) string { return report.Thousands(n) }

func pct(part, whole int) string {
	if whole <= 0 {
		return "-"
	}
	return fmt.Sprintf("%d%%", part*100/whole)
}

// grid is a small table: text columns left-aligned, numbers
// right-aligned, two spaces between columns, indented by two.
type grid struct {
	right []bool // per column
	rows  [][]string
}

func newGrid(right ...bool) *grid { return &grid{right: right} }

func (g *grid) add(cells ...string) { g.rows = append(g.rows, cells) }

func (g *grid) write(w io.Writer) {
	widths := make([]int, len(g.right))
	for _, r := range g.rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range g.rows {
		var b strings.Builder
		b.WriteString("  ")
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if g.right[i] {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

func writeReport(w io.Writer, r report.Report, detail bool) {
	fmt.Fprintf(w, "Context report (%s harness, %s mode; tokens: %s)\n", r.Harness, r.Mode, r.Tokenizer)
	ws := r.Workspace
	if ws == "" {
		ws = "(none)"
	}
	fmt.Fprintf(w, "Workspace: %s\n", ws)
	writeRequest(w, r)
	writeBootstrap(w, r.Bootstrap)
	writeSections(w, r.Sections)
	writeSkills(w, r.Skills)
	writeTools(w, r.Tools)
	fmt.Fprintln(w, "\nLayers (stable + boundary + dynamic = total, tokens):")
	for _, l := range r.Layers {
		fmt.Fprintf(w, "  %s: %s + %s + %s = %s\n", l.Name, num(l.Stable.Tokens), num(l.Boundary.Tokens), num(l.Dynamic.Tokens), num(l.Total.Tokens))
	}
	fmt.Fprintln(w, "\nStable prefix:")
	for _, l := range r.Layers {
		fmt.Fprintf(w, "  %s: %s tokens, %s chars, sha256 %s\n", l.Name, num(l.Stable.Tokens), num(l.Stable.Chars), l.StableSHA256)
	}
	fmt.Fprintf(w, "\nTotal: %s tokens (%s chars) in the request: %s (%s chars) of prompt text, the rest tools and messages\n",
		num(r.Request.Tokens), num(r.Request.Chars), num(r.Total.Tokens), num(r.Total.Chars))
	if detail {
		writeDetail(w, r)
	}
}

// writeRequest is the headline: the request against the model's window,
// by group, and the warnings.
func writeRequest(w io.Writer, r report.Report) {
	win := r.Window
	model := win.Model
	if model == "" {
		model = "(none)"
	}
	if win.ContextWindow > 0 {
		fmt.Fprintf(w, "Model: %s; window %s tokens (%s), output reserve %s\n", model, num(win.ContextWindow), win.Source, num(win.OutputReserve))
		fmt.Fprintf(w, "Request: %s tokens of %s (%s); %s free after the output reserve\n",
			num(win.Used), num(win.ContextWindow), permille(win.UsedPermille), num(win.Free))
	} else {
		fmt.Fprintf(w, "Model: %s; window unknown (-context-window N or the config's contextTokens sets it)\n", model)
		fmt.Fprintf(w, "Request: %s tokens\n", num(win.Used))
	}
	g := newGrid(false, true, true, true)
	g.add("part", "tokens", "chars", "share")
	for _, gr := range r.Groups {
		g.add(gr.Name, num(gr.Tokens), num(gr.Chars), pct(gr.Tokens, r.Request.Tokens))
	}
	g.add("total", num(r.Request.Tokens), num(r.Request.Chars), "")
	g.write(w)
	if len(r.Warnings) > 0 {
		fmt.Fprintln(w, "Warnings:")
		for _, x := range r.Warnings {
			fmt.Fprintf(w, "  %s\n", x.Message)
		}
	}
}

// permille formats tenths of a percent, "2.8%".
func permille(n int) string { return fmt.Sprintf("%d.%d%%", n/10, n%10) }

func writeBootstrap(w io.Writer, b report.BootstrapReport) {
	fmt.Fprintf(w, "\nBootstrap budget: %s chars per file, %s total; injected %s of %s (%s)%s\n",
		num(b.MaxChars), num(b.TotalMaxChars), num(b.InjectedChars), num(b.TotalMaxChars), pct(b.InjectedChars, b.TotalMaxChars), mark(b.TotalNearLimit, " near limit"))
	if b.Truncated > 0 {
		fmt.Fprintf(w, "Truncation notice: %s (mode %s)\n", map[bool]string{true: "shown", false: "not shown"}[b.WarningShown], b.WarningMode)
	}
	fmt.Fprintln(w, "\nInjected workspace files:")
	if len(b.Files) == 0 {
		fmt.Fprintln(w, "  (none)")
		return
	}
	g := newGrid(false, false, true, true, true, true, false)
	g.add("file", "status", "raw tokens", "injected tokens", "raw chars", "injected chars", "cause")
	var marked []string
	for _, f := range b.Files {
		cause := strings.Join(f.Causes, " and ")
		if f.Reason != "" && f.Status != "OK" && f.Status != "TRUNCATED" {
			cause = f.Reason + mark(len(f.Causes) > 1, " (over the per-file limit too)")
		}
		g.add(f.Name, f.Status, num(f.RawTokens), num(f.InjectedTokens), num(f.RawChars), num(f.InjectedChars), cause+mark(f.ShowNearLimit(), " (near limit)"))
		if f.BoundaryMarkers > 0 {
			marked = append(marked, f.Name)
		}
	}
	g.write(w)
	if len(marked) > 0 {
		fmt.Fprintf(w, "  Note: %s held the cache boundary marker; the prompt shows it as %q so the prefix is split only where the pack puts the boundary.\n",
			strings.Join(marked, ", "), engine.BoundaryRemoved)
	}
}

func writeSections(w io.Writer, sections []report.SectionReport) {
	fmt.Fprintln(w, "\nSections (files and the skills catalog included where printed):")
	g := newGrid(false, false, false, true, true)
	g.add("layer", "tier", "section", "tokens", "chars")
	for _, s := range sections {
		id := s.ID
		if s.Overridden {
			id += " (override)"
		}
		g.add(s.Layer, string(s.Tier), id, num(s.Tokens), num(s.Chars))
	}
	g.write(w)
}

func writeSkills(w io.Writer, sk report.SkillsReport) {
	fmt.Fprintf(w, "\nSkills: %d listed of %d eligible, %d found; catalog %s tokens (%s chars)", sk.Listed, sk.Eligible, sk.Found, num(sk.CatalogTokens), num(sk.CatalogChars))
	if !sk.Descriptions && sk.Listed > 0 {
		fmt.Fprint(w, "; descriptions dropped to fit the budget")
	}
	fmt.Fprintln(w)
	if sk.Note != "" {
		fmt.Fprintf(w, "  %s\n", sk.Note)
	}
	over := 0
	for _, s := range sk.Skipped {
		if strings.HasPrefix(s.Reason, "over budget") {
			over++
		}
	}
	if over > 0 {
		fmt.Fprintf(w, "  %d dropped by the budget\n", over)
	}
	for _, c := range sk.Cuts {
		if c.Skipped > 0 {
			fmt.Fprintf(w, "  %s: %s skipped (%s)\n", c.Root, num(c.Skipped), c.Reason)
		} else {
			fmt.Fprintf(w, "  %s: %s\n", c.Root, c.Reason)
		}
	}
	if n := len(sk.Warnings); n > 0 {
		fmt.Fprintf(w, "  %d %s (report detail lists them)\n", n, map[bool]string{true: "warning", false: "warnings"}[n == 1])
	}
}

func writeTools(w io.Writer, tl report.ToolsReport) {
	fmt.Fprintf(w, "\nTools: %d; descriptions %s tokens (%s chars); JSON schemas %s tokens (%s chars), sent beside the prompt\n",
		len(tl.Entries), num(tl.DescriptionTokens), num(tl.DescriptionChars), num(tl.SchemaTokens), num(tl.SchemaChars))
	if len(tl.Entries) > 0 {
		g := newGrid(false, true, true, true, true)
		g.add("tool", "description", "schema", "desc chars", "schema chars")
		for _, e := range tl.Entries {
			g.add(e.Name, num(e.DescriptionTokens), num(e.SchemaTokens), num(e.DescriptionChars), num(e.SchemaChars))
		}
		g.write(w)
	}
}

// writeDetail adds the largest skills and tool schemas, skills not
// listed and sections left out.
func writeDetail(w io.Writer, r report.Report) {
	sk, tl := r.Skills, r.Tools
	fmt.Fprintln(w, "\nTop skills by catalog block:")
	g := newGrid(false, true)
	for _, s := range sk.TopSkills(30) {
		g.add(s.Name, num(s.BlockChars))
	}
	g.write(w)
	if len(sk.Skipped) > 0 || len(sk.Problems) > 0 {
		fmt.Fprintln(w, "\nSkills not listed:")
		for _, s := range sk.Skipped {
			fmt.Fprintf(w, "  %s (%s): %s\n", s.Name, s.Location, s.Reason)
		}
		for _, p := range sk.Problems {
			fmt.Fprintf(w, "  %s\n", p.String())
		}
	}
	if len(sk.Warnings) > 0 {
		fmt.Fprintln(w, "\nSkill warnings:")
		for _, p := range sk.Warnings {
			fmt.Fprintf(w, "  %s\n", p.String())
		}
	}
	fmt.Fprintln(w, "\nTop tools by schema size:")
	g = newGrid(false, true)
	for _, e := range tl.TopSchemas(30) {
		g.add(e.Name, num(e.SchemaChars))
	}
	g.write(w)
	if len(r.Omitted) > 0 {
		fmt.Fprintln(w, "\nSections left out:")
		for _, o := range r.Omitted {
			fmt.Fprintf(w, "  %s/%s: %s\n", o.Layer, o.ID, o.Reason)
		}
	}
}

func mark(on bool, text string) string {
	if on {
		return text
	}
	return ""
}

// explainDoc is explain's -format json document: every section of the
// pack, rendered (with its size) or why not.
type explainDoc struct {
	SchemaVersion int            `json:"schema_version"`
	Harness       string         `json:"harness"`
	Mode          string         `json:"mode"`
	Tokenizer     string         `json:"tokenizer"`
	Sections      []explainEntry `json:"sections"`
}

type explainEntry struct {
	report.Explanation
	Tokens int `json:"tokens,omitempty"` // of a rendered section, like Chars
}

func cmdExplain(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var format *string
	flags := func(fs *flag.FlagSet) { format = formatFlag(fs) }
	res, tok, err := renderFor("explain", args, stdin, stdout, stderr, flags, func(rest []string) error {
		return cmp.Or(noArgs(rest), checkFormat(*format))
	})
	if err != nil {
		return err
	}
	// A section's tokens are the report's, so the two commands agree.
	tokens := map[string]int{}
	for _, s := range report.Build(res, tok).Sections {
		tokens[s.Layer+"/"+s.ID] = s.Tokens
	}
	doc := explainDoc{SchemaVersion: report.SchemaVersion, Harness: res.Harness, Mode: string(res.Mode), Tokenizer: tok.Name()}
	for _, x := range report.Explain(res) {
		e := explainEntry{Explanation: x}
		if x.Rendered {
			e.Tokens = tokens[x.Layer+"/"+x.ID]
		}
		doc.Sections = append(doc.Sections, e)
	}
	if *format == "json" {
		return encodeJSON(stdout, doc)
	}
	g := newGrid(false, false, false, false, false)
	for _, x := range doc.Sections {
		status := "rendered"
		detail := fmt.Sprintf("%s chars, %s tokens", num(x.Chars), num(x.Tokens))
		if x.Reason != "" {
			detail += "; " + x.Reason
		}
		if !x.Rendered {
			status, detail = "omitted", x.Reason
		}
		layer := x.Layer
		if layer == "" {
			layer = "-"
		}
		g.add(x.ID, status, layer, string(x.Tier), detail)
	}
	g.write(stdout)
	return nil
}
