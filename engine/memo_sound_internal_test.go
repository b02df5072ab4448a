package engine

import (
	"context"
	"fmt"
	iofs "io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"

	"github.com/sysprompt/sysprompt/engine/internal/dot"
)

// A turnPair is two turns of one engine: the memo holds what the first
// rendered when the second is rendered.
type turnPair struct {
	name        string
	first, next Request
	edit        func(fs afero.Fs) // applied to the workspace between them
}

// soundEngine is the built-in pack over the example workspace (in memory
// at /ws) and the example agent config.
func soundEngine(t *testing.T) (*Engine, afero.Fs) {
	cfg, err := config.Parse("agents.toml", readFile(t, "../examples/agents.toml"))
	require.NoError(t, err)
	fs := afero.NewMemMapFs()
	copyWorkspace(t, fs)
	e, err := New(os.DirFS(".."), WithFS(fs), WithConfig(cfg), WithWarningStore(noStore{}))
	require.NoError(t, err)
	return e, fs
}

// copyWorkspace writes examples/workspace into fs at /ws.
func copyWorkspace(t *testing.T, fs afero.Fs) {
	src := os.DirFS("../examples/workspace")
	require.NoError(t, iofs.WalkDir(src, ".", func(name string, d iofs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := iofs.ReadFile(src, name)
		if err != nil {
			return err
		}
		return afero.WriteFile(fs, "/ws/"+name, b, 0o644)
	}))
}

func readFile(t *testing.T, name string) []byte {
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	return b
}

// noStore has seen no truncation and remembers none, so that every
// render of a pair warns alike.
type noStore struct{}

func (noStore) Claim(context.Context, string) (bool, error) { return true, nil }
func (noStore) Remember(context.Context, string) error      { return nil }

// swappable are the request values a pair changes one at a time: every
// field and, for the per-turn structs, every part.
func swappable() [][]string {
	var out [][]string
	rt := reflect.TypeFor[Request]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		switch f.Name {
		case "Channel", "Session", "Runtime":
			for j := range f.Type.NumField() {
				out = append(out, []string{f.Name, f.Type.Field(j).Name})
			}
		}
		out = append(out, []string{f.Name})
	}
	return out
}

func fieldAt(r *Request, path []string) reflect.Value {
	v := reflect.ValueOf(r).Elem()
	for _, name := range path {
		v = v.FieldByName(name)
	}
	return v
}

// turnPairs are the example requests, each followed by itself with one
// value taken from another example, and by itself after a workspace
// edit.
func turnPairs(t *testing.T) []turnPair {
	files, err := filepath.Glob("../examples/requests/*.toml")
	require.NoError(t, err)
	var reqs []Request
	for _, f := range files {
		r, err := ParseRequest(f, readFile(t, f))
		require.NoError(t, err)
		r.Workspace.Path = "/ws"
		reqs = append(reqs, r)
	}
	// Two more requests give the examples' fields values they lack: one
	// sets nearly everything, one nearly nothing.
	rich := reqs[0]
	rich.Agent, rich.SessionKind, rich.ChatType = "scout", "cron", "channel"
	rich.Tools = rich.Tools[:1]
	rich.Channel = Channel{ID: "slack", Delivery: "message_tool_only", Capabilities: []string{"nativeApprovals"}, SilentReplies: "none"}
	rich.Runtime.Reasoning, rich.Runtime.Thinking, rich.Runtime.Shell = "stream", "high", "zsh"
	rich.Workspace.BrandNew = new(true)
	rich.Docs = Docs{Path: "/docs", URL: "https://docs.example", Source: "https://src.example"}
	rich.Sandbox = Sandbox{Enabled: true, Workdir: "/sandbox", WorkspaceAccess: "ro", Elevated: true}
	rich.Owners, rich.TTSHint, rich.ExtraSystemPrompt = []string{"telegram:1"}, "speak slowly", "A group of four."
	rich.Reactions.Level, rich.Heartbeat.Prompt = "extensive", "Check the inbox."
	rich.ModelAliases = map[string]string{"fast": "anthropic/claude-haiku-4-5"}
	rich.Contributions = []Contribution{{StablePrefix: "Prefix.", DynamicSuffix: "Suffix.",
		SectionOverrides: map[string]string{"tool_call_style": "Call tools plainly.", "interaction_style": "Be brief."}}}
	bare := Request{Workspace: Workspace{Path: "/ws"}, Date: reqs[0].Date}
	// A brand-new workspace's first run, where adding BOOTSTRAP.md
	// changes how the setup notice points at it.
	fresh := reqs[slices.Index(files, "../examples/requests/direct.toml")]
	fresh.Workspace.BrandNew = new(true)
	files, reqs = append(files, "rich", "bare", "fresh"), append(reqs, rich, bare, fresh)

	var pairs []turnPair
	for i, a := range reqs {
		name := filepath.Base(files[i])
		for _, path := range swappable() {
			var seen []any
			for _, c := range reqs {
				from := fieldAt(&c, path)
				if reflect.DeepEqual(from.Interface(), fieldAt(&a, path).Interface()) ||
					slices.ContainsFunc(seen, func(v any) bool { return reflect.DeepEqual(v, from.Interface()) }) {
					continue
				}
				seen = append(seen, from.Interface())
				next := a
				fieldAt(&next, path).Set(from)
				pairs = append(pairs, turnPair{name: fmt.Sprintf("%s, %s from another", name, strings.Join(path, ".")), first: a, next: next})
			}
		}
		for _, ed := range workspaceEdits {
			next := a
			if ed.newSession {
				next.Session.ID += "-next"
			}
			pairs = append(pairs, turnPair{name: name + ", " + ed.name, first: a, next: next, edit: ed.apply})
		}
	}
	return pairs
}

var workspaceEdits = []struct {
	name       string
	newSession bool
	apply      func(fs afero.Fs)
}{
	{"MEMORY.md edited", false, func(fs afero.Fs) { write(fs, "MEMORY.md", "# Memory\n\nA new fact.\n") }},
	{"SOUL.md removed", false, func(fs afero.Fs) { fs.Remove("/ws/SOUL.md") }},
	{"HEARTBEAT.md edited", false, func(fs afero.Fs) { write(fs, "HEARTBEAT.md", "- water the plants\n") }},
	{"TOOLS.md oversized", false, func(fs afero.Fs) { write(fs, "TOOLS.md", strings.Repeat("a tool note\n", 5000)) }},
	{"BOOTSTRAP.md added", false, func(fs afero.Fs) { write(fs, "BOOTSTRAP.md", "# Setup\n\nAsk the user's name.\n") }},
	{"a skill added", true, func(fs afero.Fs) {
		write(fs, "skills/brand-new/SKILL.md", "---\nname: brand-new\ndescription: A skill added between turns.\n---\nSteps.\n")
	}},
}

func write(fs afero.Fs, name, text string) {
	if err := afero.WriteFile(fs, "/ws/"+name, []byte(text), 0o644); err != nil {
		panic(err)
	}
}

// turn renders req with set and a memo of its own unless memo is given,
// and returns each section's text by id.
type turnResult struct {
	res   *Result
	texts map[string]string
	sums  fieldSums
}

func renderTurn(t *testing.T, e *Engine, req Request) turnResult {
	set := e.newRenderSet()
	set.meter.Start(context.Background())
	res, err := e.render(context.Background(), set, &req)
	require.NoError(t, err)
	texts := map[string]string{}
	for _, l := range res.Layers {
		for _, s := range l.Sections {
			texts[l.Name+"/"+s.ID] = l.Text[s.Start:s.End]
		}
	}
	return turnResult{res, texts, set.sums}
}

// resetWorkspace puts the example workspace back as it was.
func resetWorkspace(t *testing.T, fs afero.Fs) {
	require.NoError(t, fs.RemoveAll("/ws"))
	copyWorkspace(t, fs)
}

// memoMismatches renders each pair's two turns on e, the second with the
// memo the first left, and again with an empty memo, and names the
// sections whose text differs. With longLived, the memo is never
// emptied between pairs: one engine serves the whole sequence.
func memoMismatches(t *testing.T, e *Engine, fs afero.Fs, pairs []turnPair, longLived bool) []string {
	var out []string
	long := newMemo()
	for _, p := range pairs {
		resetWorkspace(t, fs)
		if !longLived {
			long = newMemo()
		}
		e.memo = long
		renderTurn(t, e, p.first)
		if p.edit != nil {
			p.edit(fs)
		}
		got := renderTurn(t, e, p.next)
		e.memo = newMemo()
		want := renderTurn(t, e, p.next)
		for id, text := range want.texts {
			if got.texts[id] != text {
				out = append(out, p.name+": "+id)
			}
		}
		if !reflect.DeepEqual(want.res.Layers, got.res.Layers) && len(out) == 0 {
			out = append(out, p.name+": the layers differ")
		}
	}
	return out
}

// A section served from the memo is what executing it would print, over
// every example request changed one value at a time and every kind of
// workspace edit.
func TestMemoAnswersAsAFreshRender(t *testing.T) {
	e, fs := soundEngine(t)
	pairs := turnPairs(t)
	require.Greater(t, len(pairs), 200)
	if testing.Short() || raceBuild {
		pairs = pairs[:len(pairs)/8]
	}
	assert.Empty(t, memoMismatches(t, e, fs, pairs, false))
}

// One long-lived engine over the same turns in sequence, each request
// value changed in turn and the workspace edited between turns, answers
// as a fresh one.
func TestLongLivedMemoOverTurnSequences(t *testing.T) {
	e, fs := soundEngine(t)
	pairs := turnPairs(t)
	if testing.Short() || raceBuild {
		pairs = pairs[len(pairs)/2 : len(pairs)/2+len(pairs)/8]
	}
	assert.Empty(t, memoMismatches(t, e, fs, pairs, true))
}

// The test above fails when a section's key leaves out a field it
// reads: each field is taken out of each section's read set (and so from
// its layer's, unless another section reads it) in turn, and
// a pair where that field alone changes the section must then come out
// wrong. Fields no pair changes alone in a way the section shows are
// listed, so that a shrinking corpus is seen.
func TestMemoMismatchesCatchAMissingRead(t *testing.T) {
	if testing.Short() || raceBuild {
		t.Skip("renders every pair three times")
	}
	e, fs := soundEngine(t)
	pairs := turnPairs(t)
	probes := make([]probe, len(pairs))
	for i, p := range pairs {
		resetWorkspace(t, fs)
		e.memo = newMemo()
		probes[i].a = renderTurn(t, e, p.first)
		if p.edit != nil {
			p.edit(fs)
		}
		e.memo = newMemo()
		probes[i].b = renderTurn(t, e, p.next)
	}
	caught, caughtFiles, unexercised := 0, 0, []string{}
	for _, id := range slices.Sorted(maps.Keys(e.pack.Sections)) {
		sec := e.pack.Sections[id]
		plan := e.plans[sec]
		for _, slot := range plan.slots {
			switch dot.KeyFields[slot].Path {
			case "Pack", "Mode", "Harness":
				continue // fixed for the Engine, or in every key anyway
			}
			reveal := slices.IndexFunc(probes, func(p probe) bool { return reveals(p, id, plan, slot, -1) })
			if reveal < 0 {
				unexercised = append(unexercised, id+" "+dot.KeyFields[slot].Path)
				continue
			}
			bad := without(t, e, fs, pairs[reveal], func() func() {
				kept := plan.slots
				plan.slots = slices.DeleteFunc(slices.Clone(kept), func(s int) bool { return s == slot })
				return func() { plan.slots = kept }
			})
			assert.NotEmpty(t, bad, "%s without %s: %s goes unnoticed", id, dot.KeyFields[slot].Path, pairs[reveal].name)
			caught++
		}
		// The same for each file the section reads by name.
		for j, fr := range plan.fileReads {
			reveal := slices.IndexFunc(probes, func(p probe) bool { return reveals(p, id, plan, -1, j) })
			if reveal < 0 {
				unexercised = append(unexercised, id+" "+fr.List+".Get "+fr.Name)
				continue
			}
			bad := without(t, e, fs, pairs[reveal], func() func() {
				kept := plan.fileReads
				plan.fileReads = slices.Delete(slices.Clone(kept), j, j+1)
				return func() { plan.fileReads = kept }
			})
			assert.NotEmpty(t, bad, "%s without %s.Get %q: %s goes unnoticed", id, fr.List, fr.Name, pairs[reveal].name)
			caught++
			caughtFiles++
		}
	}
	t.Logf("caught %d removals (%d of files read by name); no pair shows %d: %v", caught, caughtFiles, len(unexercised), unexercised)
	assert.GreaterOrEqual(t, caught, 50)
	assert.Positive(t, caughtFiles)
}

// A probe is a pair's two turns, each rendered with an empty memo.
type probe struct {
	a, b turnResult
}

// reveals says whether the probe shows section id's text change while
// all it reads (the plan's slots and file reads, but the slot or the
// file read numbered skip, -1 for none), its mode and its harness stay
// the same: what taking that one read out of the key must make the memo
// get wrong.
func reveals(p probe, id string, plan *sectionPlan, skipSlot, skipFile int) bool {
	if p.a.res.Mode != p.b.res.Mode || p.a.res.Harness != p.b.res.Harness {
		return false
	}
	for _, slot := range plan.slots {
		if slot != skipSlot && (p.a.sums.have&(1<<slot) == 0 || p.a.sums.sum[slot] != p.b.sums.sum[slot]) {
			return false
		}
	}
	for k, fr := range plan.fileReads {
		if k != skipFile && !reflect.DeepEqual(fileOf(p.a.res, fr), fileOf(p.b.res, fr)) {
			return false
		}
	}
	for _, l := range p.a.res.Layers {
		if p.a.texts[l.Name+"/"+id] != p.b.texts[l.Name+"/"+id] {
			return true
		}
	}
	return false
}

// without renders the pair with one read taken out of a section's plan
// by take, which returns what puts it back, and names the sections the
// memo got wrong. The layers' keys are made from the plans too.
func without(t *testing.T, e *Engine, fs afero.Fs, pair turnPair, take func() (restore func())) []string {
	restore := take()
	e.layerPlans = layerPlans(e.pack, e.plans)
	defer func() {
		restore()
		e.layerPlans = layerPlans(e.pack, e.plans)
	}()
	return memoMismatches(t, e, fs, []turnPair{pair}, false)
}

// fileOf is the file {{ .LIST.Get "NAME" }} returned in res.
func fileOf(res *Result, fr dot.FileRead) *bootstrap.File {
	i := slices.IndexFunc(res.Files, func(f bootstrap.File) bool {
		return f.Name == fr.Name && f.Dynamic == (fr.List == "DynamicFiles")
	})
	if i < 0 {
		return nil
	}
	return &res.Files[i]
}
