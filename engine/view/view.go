// Package view holds the types a section template sees beyond the
// request's own fields: the pack, the bootstrap files, the tools, the
// skills catalog and the provider overrides, with the small lookup
// methods templates call ({{ if .Tools.Has "exec" }}). The renderer
// builds them; templates only read them.
package view

import (
	"slices"
	"strings"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/skills"
)

// PackInfo is what templates know about the pack itself.
type PackInfo struct {
	Product  string            // product name used in headings, default "OpenClaw"
	Vars     map[string]string // free-form [vars] from the manifest
	Channels ChannelCatalog    // templates/channels.toml, in file order
}

// Channel returns the catalog's entry for a channel id, as
// {{ .Pack.Channel .Channel.ID }} reads it (see ChannelCatalog.Get).
func (p PackInfo) Channel(id string) ChannelInfo { return p.Channels.Get(id) }

// ChannelInfo is one messaging channel of the pack's catalog: its id, the
// name people know it by, and what it can do without any configuration.
type ChannelInfo struct {
	ID           string
	Name         string   // display name; "" for a channel the catalog does not list
	Capabilities []string // as a request's [channel] capabilities spells them
}

// Has reports whether the channel has the capability (any case).
func (c ChannelInfo) Has(capability string) bool {
	return slices.ContainsFunc(c.Capabilities, func(s string) bool { return strings.EqualFold(s, capability) })
}

// HasAny reports whether the channel has any of the capabilities.
func (c ChannelInfo) HasAny(capabilities ...string) bool {
	return slices.ContainsFunc(capabilities, c.Has)
}

// With returns the entry with the turn's own capabilities added, so one
// check covers what the channel has by default and what this request
// says it has: (.Pack.Channel .Channel.ID).With .Channel.Capabilities.
// A request can add a capability, never take one away.
func (c ChannelInfo) With(capabilities []string) ChannelInfo {
	out := c
	out.Capabilities = slices.Clone(c.Capabilities) // never append to the catalog's own array
	for _, s := range capabilities {
		if s != "" && !out.Has(s) {
			out.Capabilities = append(out.Capabilities, s)
		}
	}
	return out
}

// ChannelCatalog is the pack's channel catalog, in file order.
type ChannelCatalog []ChannelInfo

// Get returns the entry whose id matches (any case). A channel the
// catalog does not list, and the empty id of a run without a channel,
// get an entry holding only the id: no name, no capabilities.
func (c ChannelCatalog) Get(id string) ChannelInfo {
	for _, ch := range c {
		if strings.EqualFold(ch.ID, id) {
			return ch
		}
	}
	return ChannelInfo{ID: id}
}

// TruncationInfo tells the notice section whether to speak.
type TruncationInfo struct {
	Warn    bool     // show the truncation notice this turn
	Files   []string // names of the files that were cut short
	Skipped []string // names of the files left out because the total budget ran out
}

// OverrideSet is the provider section overrides in force this render,
// keyed by override name, so one section can react to another being
// replaced (the exec-approval line steps aside for a provider's own
// tool-call style).
type OverrideSet map[string]string

// Has reports whether the named override is in force.
func (o OverrideSet) Has(name string) bool { _, ok := o[name]; return ok }

// ToolInfo is what templates see of a tool: its name and description.
// Its JSON schema is not template data: providers send schemas as tool
// definitions, never as prompt text, and the context report counts them
// from the request. Keeping schemas out of the prompt's inputs also keeps
// them out of the stable memo key.
type ToolInfo struct {
	Name        string
	Description string
}

// ToolList is the request's tools with case-insensitive lookups.
type ToolList []ToolInfo

// Has reports whether a tool of that name (any case) is available.
func (l ToolList) Has(name string) bool { return l.Get(name) != nil }

// HasAny reports whether any of the named tools is available.
func (l ToolList) HasAny(names ...string) bool {
	for _, n := range names {
		if l.Has(n) {
			return true
		}
	}
	return false
}

// Get returns the tool with that name (any case), or nil.
func (l ToolList) Get(name string) *ToolInfo {
	for i := range l {
		if strings.EqualFold(l[i].Name, name) {
			return &l[i]
		}
	}
	return nil
}

// Names returns the tool names as given.
func (l ToolList) Names() []string {
	out := make([]string, len(l))
	for i, t := range l {
		out[i] = t.Name
	}
	return out
}

// FileList is a list of bootstrap files as templates see them.
type FileList []bootstrap.File

// Get returns the file with that name, or nil.
func (l FileList) Get(name string) *bootstrap.File {
	for i := range l {
		if l[i].Name == name {
			return &l[i]
		}
	}
	return nil
}

// Injected returns the files that inject text (including markers).
func (l FileList) Injected() FileList {
	// Usually every listed file does; then l itself is returned, uncopied
	// (templates cannot change it).
	n := 0
	for i := range l {
		if l[i].Content != "" {
			n++
		}
	}
	if n == len(l) {
		return l
	}
	out := make(FileList, 0, n)
	for _, f := range l {
		if f.Content != "" {
			out = append(out, f)
		}
	}
	return out
}

// Except returns the injected files whose names are not listed.
func (l FileList) Except(names ...string) FileList {
	var out FileList
	for _, f := range l.Injected() {
		if !slices.Contains(names, f.Name) {
			out = append(out, f)
		}
	}
	return out
}

// Only returns the injected files whose names are listed, in list order.
func (l FileList) Only(names ...string) FileList {
	var out FileList
	for _, f := range l.Injected() {
		if slices.Contains(names, f.Name) {
			out = append(out, f)
		}
	}
	return out
}

// ToolLine is one line of the tool list templates print.
type ToolLine struct {
	Name    string
	Summary string
}

// SkillsView is what templates see of the skills catalog.
type SkillsView struct {
	Listed       []skills.Skill // sorted by name
	Descriptions bool           // false when the budget dropped descriptions
	Note         string         // "N of M skills listed" when skills were dropped
	Eligible     int
	// Catalog is the skills_catalog partial's output for this view,
	// rendered once when the catalog is built, not on every turn.
	Catalog string
}
