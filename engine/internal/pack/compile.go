package pack

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"

	"github.com/sysprompt/sysprompt/engine/internal/diag"
	"github.com/sysprompt/sysprompt/engine/internal/meter"
	"github.com/sysprompt/sysprompt/internal/hint"

	"github.com/sysprompt/sysprompt/funcs"
)

// funcMap is the function map templates are parsed with; each render set
// binds its own, charged to its meter. Nothing modifies it: the master
// copies it once (Funcs), and each file is parsed against it by
// reference.
var funcMap = sync.OnceValue(func() template.FuncMap { return funcs.New(nil) })

// builtinNames are text/template's predefined functions (its unexported
// builtins()), which Template.Parse passes to parse.Parse alongside the
// set's own functions. The parser only asks whether a name is present,
// so the values are placeholders. TestBuiltinNames checks the list
// against text/template.
var builtinNames = map[string]any{
	"and": true, "call": true, "html": true, "index": true, "slice": true,
	"js": true, "len": true, "not": true, "or": true, "print": true,
	"printf": true, "println": true, "urlquery": true,
	"eq": true, "ge": true, "gt": true, "le": true, "lt": true, "ne": true,
}

// Fields describes a section's dot: every name it can hold, and the
// volatile ones only dynamic sections may read. Type, when set, is the
// dot's type, against which every chain read from it (.Tools.Has) is
// checked; MapKeys holds the keys of the maps in it that are known
// before any request (the pack's vars), by path ("Pack.Vars").
type Fields struct {
	All, Volatile map[string]bool
	Type          reflect.Type
	MapKeys       map[string][]string
}

// Compile parses partials and section bodies into one set, refusing a
// name defined twice, then runs the static checks: every template a
// section calls exists, no stable section reads a volatile field, and no
// call's constant arguments pass one of limits. Last, every template is
// instrumented (meter.Instrument) for the meter.Meter each render set
// binds (Meter.Funcs).
//
// Each file is parsed on its own with parse.Parse, exactly as
// Template.Parse would, but against the shared function map instead of a
// per-file template with its own copy of it; its trees then go into the
// master with AddParseTree.
func Compile(p *Pack, fields Fields, limits meter.Limits) (*template.Template, diag.ErrorList) {
	var errs diag.ErrorList
	fm := funcMap()
	master := template.New("").Option("missingkey=error").Funcs(fm)
	// template name -> where its define is; the position is worked out
	// only when a second define needs to name it.
	type site struct{ file, text string }
	defined := map[string]site{}

	// Files are parsed side by side, then added in order: partials, then
	// sections by id, so which define of a name counts as the second one,
	// and the order of errors, do not depend on the schedule.
	type file struct{ name, text, sectionID string }
	var files []file
	for _, pf := range p.partials {
		files = append(files, file{pf.file, pf.text, ""})
	}
	for _, id := range sortedKeys(p.Sections) {
		sec := p.Sections[id]
		files = append(files, file{sec.File, sec.Body, id})
	}
	parsed := make([]map[string]*parse.Tree, len(files))
	parseErrs := make([]error, len(files))
	each(len(files), func(i int) {
		parsed[i], parseErrs[i] = parse.Parse(files[i].name, files[i].text, "", "", fm, builtinNames)
	})
	for i, f := range files {
		if f.sectionID != "" {
			if _, dup := defined[f.name]; dup {
				errs = append(errs, &diag.Error{Phase: diag.PhaseParse, File: f.name, Line: 1, Col: 1, Section: f.sectionID,
					Err: fmt.Errorf("a partial defines a template named like this section file")})
				continue
			}
		}
		if err := parseErrs[i]; err != nil {
			errs = append(errs, placeRedefinition(suggestFunc(diag.Template(diag.PhaseParse, f.name, f.sectionID, err), f.text), f.name, f.text))
			continue
		}
		trees := parsed[i]
		for _, name := range sortedKeys(trees) {
			if name != f.name {
				if prev, dup := defined[name]; dup {
					l, c := definePos(f.text, name)
					pl, pc := definePos(prev.text, name)
					errs = append(errs, &diag.Error{Phase: diag.PhaseParse, File: f.name, Line: l, Col: c, Section: f.sectionID,
						Err: fmt.Errorf("template %q is defined twice: here and at %s:%d:%d", name, prev.file, pl, pc)})
					continue
				}
				defined[name] = site{f.name, f.text}
			}
			if _, err := master.AddParseTree(name, trees[name]); err != nil {
				errs = append(errs, &diag.Error{Phase: diag.PhaseParse, File: f.name, Section: f.sectionID, Err: err})
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	errs = append(errs, checkReferences(master, p)...)
	errs = append(errs, checkTiers(master, p, fields)...)
	errs = append(errs, checkConstants(master, p, limits.WithDefaults())...)
	if len(errs) > 0 {
		return nil, errs
	}
	meter.Instrument(master)
	return master, nil
}

func sortedTemplates(t *template.Template) []*template.Template {
	list := t.Templates()
	sort.Slice(list, func(i, j int) bool { return list[i].Name() < list[j].Name() })
	return list
}

// definePos finds where {{define "name"}} is written in text.
func definePos(text, name string) (line, col int) {
	if loc := defineRe(name).FindStringIndex(text); loc != nil {
		return lineCol(text, loc[0])
	}
	return 0, 0
}

func defineRe(name string) *regexp.Regexp {
	return regexp.MustCompile(`\{\{-?\s*define\s+"` + regexp.QuoteMeta(name) + `"`)
}

// lineCol is the 1-based line and byte column of offset i in text.
func lineCol(text string, i int) (line, col int) {
	before := text[:i]
	return strings.Count(before, "\n") + 1, i - (strings.LastIndex(before, "\n") + 1) + 1
}

var redefinedRe = regexp.MustCompile(`^template: multiple definition of template ("(?:[^"\\]|\\.)*")$`)

// placeRedefinition words a template defined twice in one file as one
// defined in two files are, at its second define: the parser gives only
// the line that define's body ends on.
func placeRedefinition(e *diag.Error, file, text string) *diag.Error {
	m := redefinedRe.FindStringSubmatch(e.Err.Error())
	if m == nil {
		return e
	}
	name, err := strconv.Unquote(m[1])
	locs := defineRe(name).FindAllStringIndex(text, 2)
	if err != nil || len(locs) < 2 {
		return e
	}
	e.Line, e.Col = lineCol(text, locs[1][0])
	pl, pc := lineCol(text, locs[0][0])
	e.Err = fmt.Errorf("template %q is defined twice: here and at %s:%d:%d", name, file, pl, pc)
	return e
}

// removedFuncs are sprig functions the map dropped, with what does
// their work, for an error to point at.
var removedFuncs = map[string]string{"empty": "not", "quote": `printf "%q"`}

// suggestFunc adds the nearest allowed function to a parse error
// naming one it does not have, and the column the parser leaves out: the
// name's first use on the line as a word of its own.
func suggestFunc(e *diag.Error, text string) *diag.Error {
	name, ok := diag.UndefinedFunction(e)
	if !ok {
		return e
	}
	if lines := strings.SplitN(text, "\n", e.Line+1); e.Col == 0 && e.Line > 0 && e.Line <= len(lines) {
		if loc := regexp.MustCompile(`(^|[^\w.$])` + regexp.QuoteMeta(name) + `\b`).FindStringSubmatchIndex(lines[e.Line-1]); loc != nil {
			e.Col = loc[3] + 1
		}
	}
	if r := removedFuncs[name]; r != "" {
		e.Err = fmt.Errorf("%w (did you mean %s?)", e.Err, r)
		return e
	}
	// text/template's builtins (len, index, …) are allowed functions too.
	if h := hint.Suffix(name, append(sortedKeys(funcMap()), sortedKeys(builtinNames)...)); h != "" {
		e.Err = fmt.Errorf("%w%s", e.Err, h)
	}
	return e
}
