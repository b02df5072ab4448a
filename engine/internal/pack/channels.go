package pack

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/sysprompt/sysprompt/engine/internal/diag"
	"github.com/sysprompt/sysprompt/engine/internal/strict"
	"github.com/sysprompt/sysprompt/engine/view"
)

// The channel catalog: which messaging channels the pack knows, their
// display names and what each can do by default. It is data so that a
// pack, not the engine, decides which channels show approval cards.

const channelsPath = "templates/channels.toml"

// maxChannelErrors is how many problems of channels.toml are reported.
const maxChannelErrors = 20

// channelID is the shape of a catalog id: lowercase, as the original
// product spells channel ids, so a lookup in any case finds one entry.
var channelID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

type channelEntry struct {
	ID           string   `toml:"id"`
	Name         string   `toml:"name"`
	Capabilities []string `toml:"capabilities"`
}

// readChannels reads templates/channels.toml; a pack without it has an
// empty catalog, so every channel is one it does not list.
func readChannels(fsys fs.FS) (view.ChannelCatalog, diag.ErrorList) {
	var doc struct {
		Channel []channelEntry `toml:"channel"`
	}
	src, errs := decodeOptional(fsys, channelsPath, &doc)
	if src == "" || errs != nil {
		return nil, errs
	}
	c := channelCheck{doc: strict.LazyScan(src), first: map[string]int{}}
	out := make(view.ChannelCatalog, 0, len(doc.Channel))
	for i, ch := range doc.Channel {
		if c.entry(i, ch) {
			out = append(out, view.ChannelInfo{ID: ch.ID, Name: ch.Name, Capabilities: ch.Capabilities})
		}
	}
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return out, nil
}

// channelCheck collects the problems of channels.toml, each where it is
// written.
type channelCheck struct {
	doc    *strict.Scan   // positions, for errors only
	first  map[string]int // the entry where each id is first written, from 1
	errs   diag.ErrorList // the first maxChannelErrors problems
	failed int            // every problem, reported or not
}

// fail reports a problem with key of the i-th [[channel]]: at its value
// when written, else at the entry's header.
func (c *channelCheck) fail(i int, key string, element int, format string, args ...any) {
	c.failed++
	if len(c.errs) >= maxChannelErrors {
		return // enough to fix first; locating more would cost a scan each
	}
	doc := c.doc.Doc()
	pos, ok := doc.Value("channel", i, key)
	if at := doc.Elements("channel", i, key); element >= 0 && element < len(at) {
		pos, ok = at[element], true
	}
	if !ok {
		pos, ok = doc.Table("channel", i)
	}
	if !ok {
		pos = strict.Pos{Line: 1, Col: 1}
	}
	c.errs = append(c.errs, &diag.Error{Phase: diag.PhaseManifest, File: channelsPath, Line: pos.Line, Col: pos.Col,
		Err: fmt.Errorf(format, args...)})
}

// entry checks the i-th [[channel]] and reports whether it is usable.
func (c *channelCheck) entry(i int, ch channelEntry) bool {
	n := c.failed
	switch {
	case ch.ID == "":
		c.fail(i, "id", -1, "[[channel]] entry %d has no id", i+1)
	case !channelID.MatchString(ch.ID):
		c.fail(i, "id", -1, "channel id %q must be lowercase letters, digits, '-' or '_'", ch.ID)
	case c.first[ch.ID] != 0:
		at, _ := c.doc.Doc().Value("channel", c.first[ch.ID]-1, "id")
		c.fail(i, "id", -1, "channel %q is listed twice (first at line %d)", ch.ID, max(at.Line, 1))
	default:
		c.first[ch.ID] = i + 1
	}
	if strings.TrimSpace(ch.Name) == "" {
		c.fail(i, "name", -1, "channel %q has no name: templates show it to the model", ch.ID)
	}
	seen := make(map[string]bool, len(ch.Capabilities))
	for j, capability := range ch.Capabilities {
		key := strings.ToLower(capability) // as ChannelInfo.Has compares
		switch {
		case capability == "" || strings.ContainsFunc(capability, isSpace):
			c.fail(i, "capabilities", j, "channel %q: capability %q is empty or holds white space", ch.ID, capability)
		case seen[key]:
			c.fail(i, "capabilities", j, "channel %q lists capability %q twice", ch.ID, capability)
		}
		seen[key] = true
	}
	return c.failed == n
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }
