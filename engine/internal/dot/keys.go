package dot

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/internal/memo"
	"github.com/sysprompt/sysprompt/engine/internal/pack"
	"github.com/sysprompt/sysprompt/engine/skills"
	"github.com/sysprompt/sysprompt/engine/view"
)

func writeSettings(k *memo.Encoder, s *config.Settings) {
	k.String(s.Agent)
	k.String(s.Workspace)
	k.Int(s.BootstrapMaxChars)
	k.Int(s.BootstrapTotalMaxChars)
	k.String(s.TruncationWarning)
	k.String(s.UserTimezone)
	k.String(s.TimeFormat)
	k.Bool(s.HeartbeatEnabled)
	k.Bool(s.HeartbeatSection)
	k.String(s.HeartbeatPrompt)
	k.String(s.DelegationMode)
	memo.SortedMap(k, s.PromptOverlays, k.String)
	k.Allowlist(s.SkillsAllowlist)
	k.Int(s.MaxSkillsPromptChars)
	k.Int(s.MaxSkillsInPrompt)
	k.Int(s.MaxPromptChars)
	memo.SortedMap(k, s.ContextLimits, k.Int) // templates can read them in .Config
	k.String(s.MemoryCitations)
	memo.SortedMap(k, s.BootstrapReplace, k.String)
	k.Bool(s.PlanTool)
	memo.SortedMap(k, s.Plugins, k.Bool)
}

func writeFiles(k *memo.Encoder, files []bootstrap.File) {
	if files == nil {
		k.Nil()
		return
	}
	k.Int(len(files))
	for i := range files {
		writeFile(k, &files[i])
	}
}

func writeFile(k *memo.Encoder, f *bootstrap.File) {
	k.String(f.Name)
	k.String(f.Path)
	k.String(f.Display)
	k.String(f.Content)
	k.Int(f.RawChars)
	k.Int(f.InjectedChars)
	k.String(string(f.Status))
	k.Int(len(f.Causes))
	for _, c := range f.Causes {
		k.String(string(c))
	}
	k.Bool(f.NearLimit)
	k.String(f.Reason)
	k.Bool(f.Dynamic)
	k.Bool(f.Startup)
	k.Bool(f.Private)
}

// CatalogKey encodes the skills view a catalog gives templates. It is
// computed once per built catalog, not per render.
func CatalogKey(k *memo.Encoder, v *view.SkillsView) memo.Key {
	k.Reset()
	if v.Listed == nil {
		k.Nil()
	} else {
		k.Int(len(v.Listed))
		for i := range v.Listed {
			s := &v.Listed[i]
			k.String(s.Name)
			k.String(s.Description)
			k.String(s.Key)
			k.String(string(s.Source))
			k.String(s.Plugin)
			k.String(s.Path)
			k.String(s.Location)
			k.String(s.Version)
			writeMetadata(k, &s.Meta)
		}
	}
	k.Bool(v.Descriptions)
	k.String(v.Note)
	k.Int(v.Eligible)
	k.String(v.Catalog)
	return k.Sum()
}

func writeMetadata(k *memo.Encoder, m *skills.Metadata) {
	k.Strings(m.OS)
	k.Bool(m.Always)
	k.String(m.SkillKey)
	k.String(m.PrimaryEnv)
	k.Strings(m.Requires.Bins)
	k.Strings(m.Requires.AnyBins)
	k.Strings(m.Requires.Env)
	k.Strings(m.Requires.Config)
}

// KeyField writes one value a template can read.
type KeyField struct {
	Path  string // "Channel" or "Channel.Delivery"
	Write func(k *memo.Encoder, r *Request, d *Derived)
}

// KeyFields has a writer for every field of the full view, and for the
// parts of the volatile fields that change turn by turn, so that a
// section reading .Channel.Delivery is not executed again for a new
// .Channel.ID. A field with parts is written as all of its parts.
// TestKeyFieldsFollowTheirFields checks every one against the types.
var KeyFields = func() []KeyField {
	str := func(path string, get func(r *Request, d *Derived) string) KeyField {
		return KeyField{path, func(k *memo.Encoder, r *Request, d *Derived) { k.String(get(r, d)) }}
	}
	channel := []KeyField{
		str("Channel.ID", func(r *Request, _ *Derived) string { return r.Channel.ID }),
		str("Channel.Delivery", func(r *Request, _ *Derived) string { return r.Channel.Delivery }),
		{"Channel.Capabilities", func(k *memo.Encoder, r *Request, _ *Derived) { k.Strings(r.Channel.Capabilities) }},
		str("Channel.SilentReplies", func(r *Request, _ *Derived) string { return r.Channel.SilentReplies }),
	}
	session := []KeyField{
		str("Session.Key", func(r *Request, _ *Derived) string { return r.Session.Key }),
		str("Session.ID", func(r *Request, _ *Derived) string { return r.Session.ID }),
		{"Session.Reset", func(k *memo.Encoder, r *Request, _ *Derived) { k.Bool(r.Session.Reset) }},
	}
	runtime := []KeyField{
		str("Runtime.Host", func(r *Request, _ *Derived) string { return r.Runtime.Host }),
		str("Runtime.OS", func(r *Request, _ *Derived) string { return r.Runtime.OS }),
		str("Runtime.Arch", func(r *Request, _ *Derived) string { return r.Runtime.Arch }),
		str("Runtime.Version", func(r *Request, _ *Derived) string { return r.Runtime.Version }),
		str("Runtime.Provider", func(r *Request, _ *Derived) string { return r.Runtime.Provider }),
		str("Runtime.Model", func(r *Request, _ *Derived) string { return r.Runtime.Model }),
		str("Runtime.DefaultModel", func(r *Request, _ *Derived) string { return r.Runtime.DefaultModel }),
		str("Runtime.RepoRoot", func(r *Request, _ *Derived) string { return r.Runtime.RepoRoot }),
		str("Runtime.Shell", func(r *Request, _ *Derived) string { return r.Runtime.Shell }),
		str("Runtime.Thinking", func(r *Request, _ *Derived) string { return r.Runtime.Thinking }),
		str("Runtime.Reasoning", func(r *Request, _ *Derived) string { return r.Runtime.Reasoning }),
	}
	whole := func(path string, parts []KeyField) KeyField {
		return KeyField{path, func(k *memo.Encoder, r *Request, d *Derived) {
			for _, p := range parts {
				p.Write(k, r, d)
			}
		}}
	}
	tools := func(k *memo.Encoder, r *Request, _ *Derived) { writeTools(k, r.Tools) }
	fields := []KeyField{
		str("Mode", func(r *Request, _ *Derived) string { return string(r.Mode) }),
		str("Harness", func(r *Request, _ *Derived) string { return r.Harness }),
		str("Agent", func(r *Request, _ *Derived) string { return r.Agent }),
		str("SessionKind", func(r *Request, _ *Derived) string { return r.SessionKind }),
		str("ChatType", func(r *Request, _ *Derived) string { return r.ChatType }),
		{"LightContext", func(k *memo.Encoder, r *Request, _ *Derived) { k.Bool(r.LightContext) }},
		whole("Session", session),
		{"Tools", tools},
		whole("Channel", channel),
		whole("Runtime", runtime),
		{"Workspace", func(k *memo.Encoder, r *Request, _ *Derived) {
			k.String(r.Workspace.Path)
			k.OptionalBool(r.Workspace.BrandNew)
		}},
		{"Docs", func(k *memo.Encoder, r *Request, _ *Derived) {
			k.String(r.Docs.Path)
			k.String(r.Docs.URL)
			k.String(r.Docs.Source)
		}},
		{"Sandbox", func(k *memo.Encoder, r *Request, _ *Derived) {
			k.Bool(r.Sandbox.Enabled)
			k.String(r.Sandbox.Workdir)
			k.String(r.Sandbox.MountSource)
			k.String(r.Sandbox.WorkspaceAccess)
			k.Bool(r.Sandbox.Elevated)
			k.Bool(r.Sandbox.ElevatedFull)
		}},
		str("Date", func(r *Request, _ *Derived) string { return r.Date }),
		str("Timezone", func(r *Request, _ *Derived) string { return r.Timezone }),
		str("ElevatedLevel", func(r *Request, _ *Derived) string { return r.ElevatedLevel }),
		str("Heartbeat", func(r *Request, _ *Derived) string { return r.Heartbeat.Prompt }),
		{"Owners", func(k *memo.Encoder, r *Request, _ *Derived) { k.Strings(r.Owners) }},
		str("TTSHint", func(r *Request, _ *Derived) string { return r.TTSHint }),
		{"ModelAliases", func(k *memo.Encoder, r *Request, _ *Derived) { memo.SortedMap(k, r.ModelAliases, k.String) }},
		str("Reactions", func(r *Request, _ *Derived) string { return r.Reactions.Level }),
		str("ExtraSystemPrompt", func(r *Request, _ *Derived) string { return r.ExtraSystemPrompt }),

		{"Config", func(k *memo.Encoder, _ *Request, d *Derived) { writeSettings(k, &d.Config) }},
		{"Pack", func(*memo.Encoder, *Request, *Derived) {}}, // fixed for the Engine, whose memo this is
		{"Files", func(k *memo.Encoder, _ *Request, d *Derived) { writeFiles(k, d.Files) }},
		{"Files.Injected?", func(k *memo.Encoder, _ *Request, d *Derived) { k.Bool(injectsAny(d.Files)) }},
		str("StablePrefix", func(_ *Request, d *Derived) string { return d.StablePrefix }),
		{"DynamicFiles", func(k *memo.Encoder, _ *Request, d *Derived) { writeFiles(k, d.DynamicFiles) }},
		{"DynamicFiles.Injected?", func(k *memo.Encoder, _ *Request, d *Derived) { k.Bool(injectsAny(d.DynamicFiles)) }},
		str("DynamicSuffix", func(_ *Request, d *Derived) string { return d.DynamicSuffix }),
		{"Truncation", func(k *memo.Encoder, _ *Request, d *Derived) {
			k.Bool(d.Truncation.Warn)
			k.Strings(d.Truncation.Files)
			k.Strings(d.Truncation.Skipped)
		}},
		{"ToolLines", tools}, // the tools ordered by the pack's table
		{"Skills", func(k *memo.Encoder, _ *Request, d *Derived) {
			k.Uint(d.SkillsKey[0])
			k.Uint(d.SkillsKey[1])
		}},
		{"Overrides", func(k *memo.Encoder, _ *Request, d *Derived) { memo.SortedMap(k, d.Overrides, k.String) }},
		str("BootstrapMode", func(_ *Request, d *Derived) string { return d.BootstrapMode }),
		str("Today", func(_ *Request, d *Derived) string { return d.Today }),
		{"SharedChat", func(k *memo.Encoder, _ *Request, d *Derived) { k.Bool(d.SharedChat) }},
	}
	return slices.Concat(fields, channel, session, runtime)
}()

func injectsAny(files []bootstrap.File) bool {
	return slices.ContainsFunc(files, func(f bootstrap.File) bool { return f.Content != "" })
}

// KeySlot returns the index in KeyFields that covers the read path: the
// path's own writer, else that of the path without its detail (a truth
// test "?", constant arguments), else its first name's.
func KeySlot(path string) (int, bool) {
	plain, _, _ := strings.Cut(strings.TrimSuffix(path, "?"), " ")
	top, _, _ := strings.Cut(plain, ".")
	for _, p := range []string{path, plain, top} {
		if i := slices.IndexFunc(KeyFields, func(f KeyField) bool { return f.Path == p }); i >= 0 {
			return i, true
		}
	}
	return -1, false
}

// FileRead is a read of one workspace file by name ({{ .Files.Get
// "BOOTSTRAP.md" }}): a section reading only that is keyed on that file
// alone, so an edit of another file leaves it be.
type FileRead struct {
	List string // "Files" or "DynamicFiles"
	Name string
}

// fileRead parses a read path of the form `Files.Get "NAME"`.
func fileRead(path string) (FileRead, bool) {
	list, arg, ok := strings.Cut(path, ".Get ")
	if !ok || list != "Files" && list != "DynamicFiles" {
		return FileRead{}, false
	}
	name, err := strconv.Unquote(arg)
	return FileRead{list, name}, err == nil
}

// File is what Get returns over d.
func (r FileRead) File(d *Derived) *bootstrap.File {
	files := d.Files
	if r.List == "DynamicFiles" {
		files = d.DynamicFiles
	}
	return view.FileList(files).Get(r.Name)
}

// Write writes the file Get returns, or a nil mark.
func (r FileRead) Write(k *memo.Encoder, d *Derived) {
	if f := r.File(d); f != nil {
		writeFile(k, f)
	} else {
		k.Nil()
	}
}

// ReadSlots returns the KeyFields a section's key is made of, sorted:
// those covering its read set, or every field of its view when the view
// escapes; and the files it reads by name alone, in path order.
func ReadSlots(sec *pack.Section, vt *View) ([]int, []FileRead, error) {
	var slots []int
	var files []FileRead
	add := func(path string) error {
		if r, ok := fileRead(path); ok {
			files = append(files, r)
			return nil
		}
		i, ok := KeySlot(path)
		if !ok {
			return fmt.Errorf("section %s reads %s, which no memo key field covers", sec.ID, path)
		}
		if !slices.Contains(slots, i) {
			slots = append(slots, i)
		}
		return nil
	}
	paths := sec.Reads
	if sec.ReadsAll {
		paths = nil
		for _, f := range vt.Fields {
			paths = append(paths, f.Name)
		}
	}
	for _, p := range paths {
		if err := add(p); err != nil {
			return nil, nil, err
		}
	}
	slices.Sort(slots)
	return slots, files, nil
}

func writeTools(k *memo.Encoder, tools []Tool) {
	if tools == nil {
		k.Nil()
		return
	}
	k.Int(len(tools))
	for _, t := range tools { // what templates see of them: not the schemas
		k.String(t.Name)
		k.String(t.Description)
	}
}
