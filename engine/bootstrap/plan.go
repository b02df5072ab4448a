package bootstrap

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/sysprompt/sysprompt/internal/echo"
	"github.com/sysprompt/sysprompt/vfs"
)

// candidate is a file to load, with what the plan knows about it.
type candidate struct {
	Entry
	optional bool
	dynamic  bool
	startup  bool
	// redirected paths came from Replace or the hook; a refusal for them
	// is an error, since the user chose them.
	redirected bool
	omit       string
	private    bool // a private file in a session that must not see it
}

// plan holds the options, with the name lists as sets.
type plan struct {
	opts        Options
	maxChars    int
	total       int
	optional    nameSet
	dynamic     nameSet
	subagent    nameSet
	cron        nameSet
	private     map[string]bool // lower-case names and paths; only in a session that keeps them out
	privateDirs []string        // lower-case folder prefixes ("memory/")
	startup     []string        // the daily memory names added on a /new or /reset turn
	keep        vfs.Keep        // what to read of every file; see readWindow
}

func newPlan(opts Options) *plan {
	p := &plan{opts: opts, maxChars: opts.MaxChars, total: opts.TotalMaxChars}
	if opts.Bound > 0 {
		p.maxChars, p.total = min(p.maxChars, opts.Bound), min(p.total, opts.Bound)
	}
	if p.opts.Session == "" {
		p.opts.Session = "main"
	}
	p.optional = newNameSet(opts.Optional)
	p.dynamic = newNameSet(opts.DynamicFiles)
	p.subagent = newNameSet(opts.SubagentFiles)
	p.cron = newNameSet(opts.CronFiles)
	if p.keepsPrivate() {
		p.private = map[string]bool{}
		for _, name := range opts.Private {
			if dir, ok := strings.CutSuffix(strings.ToLower(name), "/"); ok {
				p.privateDirs = append(p.privateDirs, dir+"/")
			} else {
				p.private[strings.ToLower(name)] = true
			}
		}
	}
	p.keep = readWindow(p.maxChars)
	return p
}

// nameSet is a set of names. The lists are a handful of names, which a
// scan finds faster than building a map on every turn; a long list gets
// its map.
type nameSet struct {
	list []string
	m    map[string]bool
}

// nameSetScan is the longest list a nameSet scans.
const nameSetScan = 16

func newNameSet(names []string) nameSet {
	if len(names) <= nameSetScan {
		return nameSet{list: names}
	}
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return nameSet{m: m}
}

func (s nameSet) has(name string) bool {
	if s.m != nil {
		return s.m[name]
	}
	return slices.Contains(s.list, name)
}

// candidates builds the file list: gates, startup memory, session filter,
// then Replace.
func (p *plan) candidates() ([]candidate, error) {
	switch p.opts.Session {
	case "main", "subagent", "cron", "heartbeat":
	default:
		return nil, fmt.Errorf("bootstrap: unknown session kind %s (allowed: main, subagent, cron, heartbeat)", echo.Quote(p.opts.Session))
	}
	// Names first, paths once all are in, so a bad date is reported
	// before a bad name, as the steps go.
	list := make([]candidate, 0, len(p.opts.Files)+2)
	var seen map[string]bool // past nameSetScan names
	add := func(name string) {
		if seen == nil && len(list) >= nameSetScan {
			seen = make(map[string]bool, len(p.opts.Files)+2)
			for _, c := range list {
				seen[c.Name] = true
			}
		}
		if seen != nil && seen[name] || seen == nil && slices.ContainsFunc(list, func(c candidate) bool { return c.Name == name }) {
			return
		}
		if seen != nil {
			seen[name] = true
		}
		list = append(list, candidate{Entry: Entry{Name: name}})
	}
	for _, name := range p.opts.Files {
		switch {
		case name == SetupFile && p.opts.Setup == SetupSkip,
			name == "HEARTBEAT.md" && !p.opts.Heartbeat:
			continue
		}
		add(name)
	}
	// Daily notes are the detail behind the private MEMORY.md: a session
	// that may not see it gets none of them either.
	if p.opts.Startup && !p.keepsPrivate() {
		for _, day := range []string{p.opts.Yesterday, p.opts.Today} {
			if day == "" {
				continue
			}
			if _, err := time.Parse(time.DateOnly, day); err != nil {
				return nil, fmt.Errorf("bootstrap: startup memory date %s is not YYYY-MM-DD", echo.Quote(day))
			}
			name := "memory/" + day + ".md"
			p.startup = append(p.startup, name)
			add(name)
		}
	}
	for i := range list {
		c := &list[i]
		var err error
		if c.Path, err = vfs.Clean(c.Name); err != nil {
			return nil, fmt.Errorf("bootstrap: file name %s: %w", echo.Quote(c.Name), err)
		}
		if target, ok := p.opts.Replace[c.Name]; ok {
			if c.Path, err = vfs.Clean(target); err != nil {
				return nil, fmt.Errorf("bootstrap: replace %s: %w", echo.Quote(c.Name), err)
			}
			c.redirected = true
		}
	}
	return p.classify(p.filter(list)), nil
}

// filter applies the session filter: a sub-agent or cron session keeps
// only the names listed for it.
func (p *plan) filter(list []candidate) []candidate {
	var keep nameSet
	switch p.opts.Session {
	case "subagent":
		keep = p.subagent
	case "cron":
		keep = p.cron
	default:
		return list
	}
	return slices.DeleteFunc(list, func(c candidate) bool { return !keep.has(c.Name) })
}

// classify sets the per-name properties, which follow the name wherever
// the hook moved or put it. Privacy comes last, so nothing overrides it.
func (p *plan) classify(list []candidate) []candidate {
	for i := range list {
		c := &list[i]
		c.startup = slices.Contains(p.startup, c.Name)
		c.optional = p.optional.has(c.Name) || c.startup
		c.dynamic = p.dynamic.has(c.Name) || c.startup
		c.omit = p.opts.Omit[c.Name]
		if c.Name == SetupFile && p.opts.Setup == SetupDetect {
			c.omit = ReasonSetupDetect
		}
		if p.keepsPrivate() && (p.isPrivate(c.Name) || p.isPrivate(c.Path)) {
			c.markPrivate()
		}
	}
	return list
}

// markPrivate keeps c out of the prompt as a private file.
func (c *candidate) markPrivate() {
	c.omit, c.optional, c.private = ReasonPrivate, true, true
}

// isPrivate reports whether a workspace-relative name or path is listed
// private, or lies in a private folder.
func (p *plan) isPrivate(name string) bool {
	name = strings.ToLower(name)
	return p.private[name] || slices.ContainsFunc(p.privateDirs, func(dir string) bool { return strings.HasPrefix(name, dir) })
}

// privateTexts reads the private files, so that the same file under
// another name (a symlink or hard link that a replace or the hook points
// at, known by its inode where the filesystem reports one) or a copy of
// its text is kept out as well.
func (p *plan) privateTexts(l *loader) []*text {
	if !p.keepsPrivate() {
		return nil
	}
	var out []*text
	for _, name := range p.opts.Private {
		if strings.HasSuffix(name, "/") {
			continue
		}
		if t, err := l.read(name); err == nil && t.raw > 0 {
			out = append(out, t)
		}
	}
	return out
}

// folderLister is a Reader that lists folders and states files, as a
// vfs.Workspace does.
type folderLister interface {
	ReadDirN(name string, n int) ([]vfs.Entry, bool, error)
	Stat(name string) (vfs.FileID, error)
}

// maxPrivateFolderFiles bounds the entries of the private folders looked
// at on a turn, and maxPrivateFolderDepth how deep below them.
const (
	maxPrivateFolderFiles = 4096
	maxPrivateFolderDepth = 8
)

// privateFolderFiles returns the identities of the files in the private
// folders and the folders below them, where the filesystem has them (a disk: an in-memory
// one has no links to hide a file behind), when a replace or the hook
// moved a candidate to another path. Listing and stating the folders costs
// as much as the rest of a warm turn, so a bootstrap file read at its own
// name is not compared with them (a symlink put in its place is only
// caught when it leads to a private file itself).
func (p *plan) privateFolderFiles(ws Reader, list []candidate) []vfs.FileID {
	fl, ok := ws.(folderLister)
	if !ok || !p.keepsPrivate() || !slices.ContainsFunc(list, func(c candidate) bool { return c.Path != c.Name && !c.private }) {
		return nil
	}
	var out []vfs.FileID
	budget := maxPrivateFolderFiles // entries looked at, in all
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		entries, _, err := fl.ReadDirN(dir, budget)
		if err != nil {
			return
		}
		budget -= len(entries)
		for _, e := range entries {
			switch {
			case e.Type == fs.ModeDir && depth < maxPrivateFolderDepth && budget > 0:
				walk(dir+"/"+e.Name, depth+1)
			case e.Type == 0: // a file; a link there leads elsewhere
				if id, err := fl.Stat(dir + "/" + e.Name); err == nil && id.Ino != 0 {
					out = append(out, id)
				}
			}
		}
	}
	for _, name := range p.opts.Private {
		if dir, ok := strings.CutSuffix(name, "/"); ok && budget > 0 {
			walk(dir, 0)
		}
	}
	return out
}

// keepsPrivate reports whether the session must not see private files.
func (p *plan) keepsPrivate() bool {
	return p.opts.Shared || p.opts.Session == "subagent" || p.opts.Session == "cron"
}

// runHook hands the list to the hook and validates what comes back.
func (p *plan) runHook(ctx context.Context, ws Reader, list []candidate) ([]candidate, error) {
	ev := Event{Type: "agent", Action: "bootstrap", Workspace: ws.Root(), Session: p.opts.Session,
		Files: make([]Entry, len(list))}
	if d, ok := ws.(interface{ DiskDir() string }); ok {
		ev.Dir = d.DiskDir()
	}
	before := map[Entry]bool{}
	for i, c := range list {
		ev.Files[i] = c.Entry
		if !c.redirected {
			before[c.Entry] = true
		}
	}
	entries, err := p.opts.Hook(ctx, ev)
	if err != nil {
		return nil, fmt.Errorf("bootstrap: agent:bootstrap hook: %w", err)
	}
	out := make([]candidate, 0, len(entries))
	for i, e := range entries {
		if strings.TrimSpace(e.Name) == "" {
			return nil, fmt.Errorf("bootstrap: agent:bootstrap hook: file %d has no name", i)
		}
		// The name is what the prompt and the report show, so it obeys the
		// rules a name in the [bootstrap] lists does, even with a path.
		if _, err := vfs.Clean(e.Name); err != nil {
			return nil, fmt.Errorf("bootstrap: agent:bootstrap hook: file %d: bad name: %w", i, err)
		}
		if e.Path == "" {
			e.Path = e.Name
		}
		path, err := vfs.Clean(e.Path)
		if err != nil {
			return nil, fmt.Errorf("bootstrap: agent:bootstrap hook: file %s: %w", echo.Quote(e.Name), err)
		}
		e.Path = path
		out = append(out, candidate{Entry: e, redirected: !before[e]})
	}
	return p.classify(p.filter(out)), nil
}
