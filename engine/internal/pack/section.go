package pack

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/sysprompt/sysprompt/engine/internal/diag"
	"github.com/sysprompt/sysprompt/engine/internal/strict"
)

// frontMatter is the TOML head of a section file.
type frontMatter struct {
	Modes    []string `toml:"modes"`
	Tier     string   `toml:"tier"`
	Override string   `toml:"override"`
}

// Section is one parsed section file.
type Section struct {
	ID, File string
	Modes    []Mode
	Tier     Tier
	Override string
	Body     string // template text; front matter lines kept as blank lines so positions match the file
	// Reads is what the section's template reads of its dot, found by
	// Compile: field paths of at most two names ("Channel.Delivery",
	// "Files"), sorted; a path of two names is narrowed to a truth test
	// ("Files.Injected?", only tested by an if) or a call with constant
	// arguments (`Files.Get "BOOTSTRAP.md"`). ReadsAll says the whole dot
	// escapes (printed, handed to a function, or to a template chosen at
	// run time), so the section may depend on any field.
	Reads    []string
	ReadsAll bool
}

func (s *Section) HasMode(m Mode) bool { return slices.Contains(s.Modes, m) }

// parseSection splits a section file into front matter and body.
func parseSection(file, text string) (*Section, *diag.Error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	sf := &sectionFile{file: file, id: strings.TrimSuffix(path.Base(file), sectionSuffix)}
	head, end, bodyAt, err := sf.split(text)
	if err != nil {
		return nil, err
	}
	sf.head = head
	fm, err := sf.decode()
	if err != nil {
		return nil, err
	}
	sec := &Section{ID: sf.id, File: file, Tier: Tier(fm.Tier), Override: fm.Override}
	if sec.Modes, err = sf.modes(fm.Modes); err != nil {
		return nil, err
	}
	if err := sf.checkTier(sec.Tier); err != nil {
		return nil, err
	}
	if err := sf.checkOverride(sec.Override); err != nil {
		return nil, err
	}
	// Keep the front matter as blank lines so template positions are file positions.
	sec.Body = strings.Repeat("\n", end+1) + text[bodyAt:]
	return sec, nil
}

// sectionFile is a section file being parsed: its name, its id and the
// text of its front matter, which starts on the file's second line.
type sectionFile struct {
	file, id, head string
}

func (sf *sectionFile) fail(line, col int, format string, args ...any) *diag.Error {
	return &diag.Error{Phase: diag.PhaseFrontMatter, File: sf.file, Line: line, Col: col, Section: sf.id, Err: fmt.Errorf(format, args...)}
}

// at is where key is written in the file; the first line when it is not.
func (sf *sectionFile) at(key string) (int, int) {
	l, c := strict.LocateKey(sf.head, key)
	if l == 0 {
		return 1, 1
	}
	return l + 1, c
}

// split finds the front matter the first line opens: its text, the
// index of the line that closes it, and where the body after that line
// starts.
func (sf *sectionFile) split(text string) (head string, end, bodyAt int, err *diag.Error) {
	first, _, _ := strings.Cut(text, "\n")
	if first != frontMatterSep {
		return "", 0, 0, sf.fail(1, 1, "a section file starts with a %q line, then TOML front matter, then %q", frontMatterSep, frontMatterSep)
	}
	for at, i := len(first)+1, 1; at < len(text); i++ {
		line, _, _ := strings.Cut(text[at:], "\n")
		if line == frontMatterSep {
			return text[len(first)+1 : at], i, min(at+len(line)+1, len(text)), nil
		}
		at += len(line) + 1
	}
	return "", 0, 0, sf.fail(1, 1, "front matter is not closed by a %q line", frontMatterSep)
}

func (sf *sectionFile) decode() (frontMatter, *diag.Error) {
	var fm frontMatter
	if err := strict.TOML(sf.head, &fm); err != nil {
		e := diag.Decode(diag.PhaseFrontMatter, sf.file, hintMoved(err, movedFrontMatterKeys))
		if e.Line > 0 {
			e.Line++ // front matter starts on the file's second line
		}
		e.Section = sf.id
		return fm, e
	}
	return fm, nil
}

// modes checks the modes list: present, known, none twice.
func (sf *sectionFile) modes(names []string) ([]Mode, *diag.Error) {
	if names == nil {
		return nil, sf.fail(1, 1, "front matter needs modes (a subset of full, minimal, none)")
	}
	var out []Mode
	for _, m := range names {
		switch Mode(m) {
		case ModeFull, ModeMinimal, ModeNone:
			if slices.Contains(out, Mode(m)) {
				l, c := sf.at("modes")
				return nil, sf.fail(l, c, "mode %q is listed twice", m)
			}
			out = append(out, Mode(m))
		default:
			l, c := sf.at("modes")
			return nil, sf.fail(l, c, "unknown mode %q (want full, minimal or none)", m)
		}
	}
	return out, nil
}

func (sf *sectionFile) checkTier(t Tier) *diag.Error {
	switch t {
	case TierStable, TierDynamic:
		return nil
	case "":
		return sf.fail(1, 1, "front matter needs tier (stable or dynamic)")
	}
	l, c := sf.at("tier")
	return sf.fail(l, c, "unknown tier %q (want stable or dynamic)", t)
}

func (sf *sectionFile) checkOverride(o string) *diag.Error {
	if o == "" || slices.Contains(OverrideKeys, o) {
		return nil
	}
	l, c := sf.at("override")
	return sf.fail(l, c, "unknown override %q (want one of %s)", o, strings.Join(OverrideKeys, ", "))
}
