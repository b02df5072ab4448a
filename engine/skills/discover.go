package skills

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sysprompt/sysprompt/internal/echo"
	"github.com/sysprompt/sysprompt/vfs"
)

// Bounds of one discovery, so a huge or hostile tree costs bounded time
// and memory. The catalog lists at most 150 skills by default; the bounds
// leave room for skills that turn out ineligible, and for group folders.
const (
	maxSkillFileSize = 256 << 10
	maxWalkDepth     = 4    // skill folders at most this many levels below a root's Dir
	maxRootEntries   = 1000 // directory entries read per root, all its folders together
	maxSkillFiles    = 2000 // SKILL.md files read per discovery, all roots together
	// YAML is the costly part of a SKILL.md: a front matter is refused
	// over maxFrontMatter bytes, and once a discovery has parsed
	// frontMatterBudget bytes in all, the skills left are not read.
	maxFrontMatter    = 16 << 10
	frontMatterBudget = 2 << 20
	skillFileName     = "SKILL.md"
)

// Found is the result of [Discover].
type Found struct {
	// Skills are the loaded skills that won their name, sorted by name.
	Skills []Skill
	// Skipped holds shadowed skills, skills with broken SKILL.md files
	// and skills with invalid names.
	Skipped []Skipped
	// Problems explain broken files and folders that were not searched.
	Problems []Problem
	// Warnings are flaws in skills that were loaded all the same.
	Warnings []Problem
	// Cuts say where a bound stopped the search, in root order.
	Cuts []Cut
}

// Discover finds the skills under roots. Roots are searched in precedence
// order (see [Sources]; roots of one source in the order given). It fails only on invalid roots or a cancelled ctx; unreadable or
// broken files become Problems, and a search stopped by a bound a Cut.
func Discover(ctx context.Context, roots []Root, opts Options) (Found, error) {
	for i, r := range roots {
		if err := r.validate(); err != nil {
			return Found{}, fmt.Errorf("skills: root %d: %w", i, err)
		}
	}
	ordered := slices.Clone(roots)
	slices.SortStableFunc(ordered, func(a, b Root) int {
		ra, _ := a.Source.rank()
		rb, _ := b.Source.rank()
		return cmp.Compare(ra, rb)
	})

	var found Found
	winners := map[string]int{} // name → index in found.Skills
	left := readBudget{files: maxSkillFiles, yaml: frontMatterBudget}
	for _, r := range ordered {
		w := walker{ctx: ctx, root: r, home: opts.Home, found: &found, winners: winners,
			entriesLeft: maxRootEntries, left: &left}
		if err := w.walkRoot(); err != nil {
			return Found{}, err
		}
	}
	sortSkills(found.Skills)
	slices.SortFunc(found.Skipped, compareSkipped)
	slices.SortFunc(found.Problems, compareProblems)
	slices.SortFunc(found.Warnings, compareProblems)
	return found, nil
}

func compareProblems(a, b Problem) int {
	return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), strings.Compare(a.Message, b.Message))
}

func (r Root) validate() error {
	if _, ok := r.Source.rank(); !ok {
		names := make([]string, len(sources))
		for i, s := range sources {
			names[i] = string(s)
		}
		return fmt.Errorf("unknown source %q (want one of %s)", r.Source, strings.Join(names, ", "))
	}
	if r.Files == nil {
		return fmt.Errorf("%s root %q has no filesystem", r.Source, r.Dir)
	}
	if !fs.ValidPath(r.Dir) {
		return fmt.Errorf("%s root dir %q is not an unrooted slash path", r.Source, r.Dir)
	}
	return nil
}

// sortSkills sorts skills in compareSkills order. It sorts indices and then
// moves each large Skill value once, instead of swapping them while sorting.
func sortSkills(skills []Skill) {
	order := make([]int, len(skills))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return compareSkills(&skills[a], &skills[b]) })
	// Apply the permutation (skills[i] = old skills[order[i]]) cycle by
	// cycle, marking placed slots with -1.
	for start := range order {
		if order[start] < 0 {
			continue
		}
		held := skills[start]
		at := start
		for {
			from := order[at]
			order[at] = -1
			if from == start {
				skills[at] = held
				break
			}
			skills[at] = skills[from]
			at = from
		}
	}
}

// compareSkills orders by name in byte order, then by location.
func compareSkills(a, b *Skill) int {
	return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Location, b.Location))
}

func compareSkipped(a, b Skipped) int {
	return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Location, b.Location), strings.Compare(a.Reason, b.Reason))
}

func skippedFor(s Skill, reason string) Skipped {
	return Skipped{Name: s.Name, Location: s.Location, Source: s.Source, Reason: reason}
}

// walker searches one root.
type walker struct {
	ctx  context.Context
	root Root
	home string

	found   *Found
	winners map[string]int // name → index in found.Skills: the first seen wins

	entriesLeft int         // directory entries this root may still read
	listingCut  bool        // a listing held more entries than were left
	left        *readBudget // what the discovery may still read, all roots together
	unread      int         // skill folders found here once left ran out
}

// readBudget is what a discovery may still read: SKILL.md files, and
// bytes of front matter parsed.
type readBudget struct{ files, yaml int }

// spent names the bound that stops further reads, or is "".
func (b *readBudget) spent() string {
	switch {
	case b.files <= 0:
		return fmt.Sprintf("at most %d skills are read across all skills folders", maxSkillFiles)
	case b.yaml <= 0:
		return fmt.Sprintf("at most %d KiB of front matter is read across all skills folders", frontMatterBudget>>10)
	}
	return ""
}

func (w *walker) walkRoot() error {
	id, err := w.root.Files.Stat(w.root.Dir)
	var refused *vfs.RefusedError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // a root that does not exist holds no skills
	case errors.As(err, &refused):
		w.problem("", 0, "skills folder refused: "+refused.Reason)
		return nil
	case err != nil:
		w.problem("", 0, "cannot read skills folder: "+errText(err))
		return nil
	case !id.Mode.IsDir():
		w.problem("", 0, "skills root is not a folder")
		return nil
	}
	if err := w.walk(w.root.Dir, "", 1); err != nil {
		return err
	}
	if w.listingCut {
		w.cut(0, fmt.Sprintf("search stopped: at most %d entries are read per skills folder", maxRootEntries))
	}
	if w.unread > 0 {
		w.cut(w.unread, w.left.spent())
	}
	return nil
}

func (w *walker) cut(skipped int, reason string) {
	w.found.Cuts = append(w.found.Cuts, Cut{Root: w.location(""), Reason: reason, Skipped: skipped})
}

// walk lists dir (rel is its path below the root's Dir) at the given
// depth: a folder holding a SKILL.md is a skill; another is searched
// deeper. A listing reads only the entries the root has left, so the
// folders listed first, and their entries, are the ones searched.
func (w *walker) walk(dir, rel string, depth int) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if w.listingCut {
		return nil
	}
	entries, more, err := w.root.Files.ReadDirN(dir, w.entriesLeft)
	if err != nil {
		w.problem(rel, 0, "cannot list folder: "+errText(err))
		return nil
	}
	w.entriesLeft -= len(entries)
	w.listingCut = more
	// Walk in the byte order of the paths below, so the first path wins a
	// name clash: "tools/…" sorts after "tools-v2/…", though "tools" sorts
	// before "tools-v2".
	slices.SortFunc(entries, func(a, b vfs.Entry) int { return strings.Compare(a.Name+"/", b.Name+"/") })
	for _, e := range entries {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		if strings.HasPrefix(e.Name, ".") {
			continue
		}
		if (e.Type.IsDir() || e.Type&fs.ModeSymlink != 0) && !printable(e.Name) {
			// Its location would carry the raw bytes into the prompt: line
			// breaks, or bytes the escaping replaces so the path is wrong.
			w.problem(rel, 0, fmt.Sprintf("folder %q not searched: its name holds a control character or invalid UTF-8", e.Name))
			continue
		}
		childRel := joinPath(rel, e.Name)
		if e.Type&fs.ModeSymlink != 0 {
			w.problem(childRel, 0, "symlink not followed")
			continue
		}
		if !e.Type.IsDir() {
			continue
		}
		skillPath := joinPath(dir, e.Name+"/"+skillFileName)
		id, err := w.root.Files.Lstat(skillPath)
		switch {
		case err == nil && id.Mode.IsRegular() && w.left.spent() != "":
			w.unread++
		case err == nil && id.Mode.IsRegular():
			w.left.files--
			w.load(skillPath, childRel, e.Name)
		case err == nil && id.Mode&fs.ModeSymlink != 0:
			w.problem(childRel+"/"+skillFileName, 0, "symlink not followed")
		case err == nil:
			w.problem(childRel+"/"+skillFileName, 0, "not a regular file")
		case errors.Is(err, fs.ErrNotExist):
			if depth < maxWalkDepth {
				if err := w.walk(joinPath(dir, e.Name), childRel, depth+1); err != nil {
					return err
				}
			}
		default:
			w.problem(childRel+"/"+skillFileName, 0, "cannot read: "+errText(err))
		}
	}
	return nil
}

// load turns one SKILL.md into a Skill. folderRel is the skill folder's
// path below the root's Dir.
func (w *walker) load(skillPath, folderRel, folder string) {
	location := w.location(folderRel + "/" + skillFileName)
	parsed, err := parseSkillFile(w.root.Files, skillPath, folder, &w.left.yaml)
	if err != nil {
		w.found.Problems = append(w.found.Problems, Problem{Path: location, Message: "cannot read: " + errText(err)})
		return
	}
	if parsed.err != nil {
		w.found.Problems = append(w.found.Problems, Problem{Path: location, Line: parsed.err.line, Message: parsed.err.msg})
		reason := "broken front matter: " + parsed.err.Error()
		if parsed.tooLarge {
			reason = parsed.err.msg
		}
		w.found.Skipped = append(w.found.Skipped, Skipped{Name: parsed.name, Location: location, Source: w.root.Source, Reason: reason})
		return
	}
	if msg := nameProblem(parsed.name); msg != "" {
		where := "the folder's name"
		if parsed.nameLine > 0 {
			where = "line " + strconv.Itoa(parsed.nameLine)
		}
		w.found.Skipped = append(w.found.Skipped, Skipped{Name: parsed.name, Location: location, Source: w.root.Source,
			Reason: fmt.Sprintf("invalid name %s (%s): %s", echo.Quote(parsed.name), where, msg)})
		return
	}
	if parsed.name != folder {
		// Only advice: the prompt shows the name, wherever the folder is.
		w.found.Warnings = append(w.found.Warnings, Problem{Path: location, Line: parsed.nameLine,
			Message: fmt.Sprintf("name %q differs from its folder %q", parsed.name, folder)})
	}
	if i, ok := w.winners[parsed.name]; ok {
		prev := &w.found.Skills[i]
		w.found.Skipped = append(w.found.Skipped, Skipped{Name: parsed.name, Location: location, Source: w.root.Source,
			Reason: fmt.Sprintf("shadowed by %s skill at %s", prev.Source, prev.Location)})
		return
	}
	w.winners[parsed.name] = len(w.found.Skills)
	w.found.Skills = append(w.found.Skills, Skill{
		Name:        parsed.name,
		Description: parsed.description,
		Key:         cmp.Or(parsed.meta.SkillKey, parsed.name),
		Source:      w.root.Source,
		Plugin:      w.root.Plugin,
		Path:        skillPath,
		Location:    location,
		Version:     parsed.version,
		Meta:        parsed.meta,
	})
}

func (w *walker) problem(rel string, line int, msg string) {
	w.found.Problems = append(w.found.Problems, Problem{Path: w.location(rel), Line: line, Message: msg})
}

// printable reports whether name is valid UTF-8 without control characters.
func printable(name string) bool {
	return utf8.ValidString(name) && strings.IndexFunc(name, unicode.IsControl) < 0
}

// joinPath joins a clean slash path ("" or "." for none) and one entry name.
func joinPath(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	return dir + "/" + name
}

// location is the display path of rel (a path below the root's Dir).
func (w *walker) location(rel string) string {
	base := strings.TrimRight(cmp.Or(w.root.Display, w.root.Dir), `/\`)
	if base == "" { // Display was "/"
		base = "/"
	}
	p := base
	if rel != "" {
		if strings.HasSuffix(base, "/") {
			p = base + rel
		} else {
			p = base + "/" + rel
		}
	}
	return shortenHome(p, w.home)
}

// shortenHome replaces a leading home directory with "~", only at a path
// component boundary (/home/ana does not shorten /home/anabel).
func shortenHome(p, home string) string {
	home = strings.TrimRight(home, `/\`)
	if home == "" {
		return p
	}
	if p == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(p, home); ok && (rest[0] == '/' || rest[0] == '\\') {
		return "~" + rest
	}
	return p
}

// parsedFile is the outcome of reading one SKILL.md.
type parsedFile struct {
	name, description string
	nameLine          int
	meta              Metadata
	version           string
	err               *lineError // broken front matter or oversize file
	tooLarge          bool       // err is the size, not the front matter
}

// parseSkillFile reads and parses one SKILL.md, taking the bytes of its
// front matter from yamlLeft.
func parseSkillFile(files Files, name, folder string, yamlLeft *int) (parsedFile, error) {
	data, _, err := files.ReadFile(name, maxSkillFileSize)
	if errors.Is(err, vfs.ErrTooLarge) {
		return oversize(folder), nil
	}
	if err != nil {
		return parsedFile{}, err
	}
	sum := sha256.Sum256(data)
	p := parsedFile{name: folder, version: "sha256:" + hex.EncodeToString(sum[:])}
	fm, err := parseFrontMatter(data, yamlLeft)
	if err != nil {
		var le *lineError
		if !errors.As(err, &le) {
			le = &lineError{msg: err.Error()}
		}
		p.err = le
		return p, nil
	}
	p.name = cmp.Or(fm.name, folder)
	if fm.name != "" {
		p.nameLine = fm.nameLine
	}
	p.description = fm.description
	p.meta = fm.meta
	return p, nil
}

func oversize(folder string) parsedFile {
	return parsedFile{name: folder, tooLarge: true, err: &lineError{msg: fmt.Sprintf("SKILL.md is larger than %d KiB", maxSkillFileSize>>10)}}
}

// errText drops the path an *fs.PathError repeats; problems name the file already.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
