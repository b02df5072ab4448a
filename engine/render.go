package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/engine/internal/diag"
	"github.com/sysprompt/sysprompt/engine/internal/dot"
	"github.com/sysprompt/sysprompt/engine/internal/memo"
	"github.com/sysprompt/sysprompt/engine/internal/pack"
	"github.com/sysprompt/sysprompt/engine/internal/tidy"
	"github.com/sysprompt/sysprompt/engine/internal/zone"
	"github.com/sysprompt/sysprompt/engine/request"
	"github.com/sysprompt/sysprompt/engine/skills"
	"github.com/sysprompt/sysprompt/engine/view"
	"github.com/sysprompt/sysprompt/internal/echo"
	"github.com/sysprompt/sysprompt/internal/runes"
	"github.com/sysprompt/sysprompt/vfs"
)

// Result is one rendered prompt.
type Result struct {
	Mode     Mode
	Harness  string
	Boundary string // the marker between the tiers; "" in mode none, whose text has none
	Layers   []Layer
	Settings config.Settings
	Files    []bootstrap.File // every bootstrap file considered, with its outcome
	// TruncationSignature identifies what was cut ("" when nothing was).
	TruncationSignature string
	TruncationWarned    bool
	Omitted             []Omission     // manifest sections that did not render, and why
	Skills              skills.Catalog // the skills catalog and what it left out
	SkillsSize          CatalogSize    // what the catalog costs, measured when it was built
	// SkillDirs are the folders on the real disk the catalog was found
	// in, for a watch that calls Engine.SkillsChanged.
	SkillDirs []string
	Tools     []Tool // the request's tools, for the report's schema sizes
	// Warnings are problems the render worked around, its prompt whole:
	// a *host.StateError (engine/host) for a state file it could not lock, read or
	// write, which may cost a repeated truncation notice.
	Warnings []error

	warningMode bootstrap.WarningMode
	// What Window reads; only a report asks.
	pack          *pack.Pack
	model         string
	contextTokens int
	outline       *Outline // shared by every result of the harness; see Outline
}

// Layer is the prompt for one carrier of a harness (the embedded harness
// has one, "system").
type Layer struct {
	Name    string
	Stable  string // the stable sections joined, without the boundary
	Dynamic string // the dynamic sections joined
	// Text is the whole layer: Stable, the boundary marker, Dynamic, with
	// one blank line between parts and one newline at the end. Mode none
	// prints no marker: its one line is the whole prompt.
	Text     string
	Sections []RenderedSection
	// digest is Stable's sha256, shared by every layer rendered with the
	// same stable sections; see StableSHA256.
	digest *stableDigest
}

// StableSHA256 returns the hex sha256 of Stable, the prefix a provider
// caches. It is worked out on the first call and then shared by every
// result with the same stable sections, so a turn whose caller never asks
// for it does not hash the prefix.
func (l Layer) StableSHA256() string {
	if d := l.digest; d != nil && d.text == l.Stable {
		d.once.Do(func() { d.hex = sha256Hex(d.text) })
		return d.hex
	}
	return sha256Hex(l.Stable) // a layer built or changed by its caller
}

// stableDigest is one stable prefix's sha256, worked out on first use.
type stableDigest struct {
	text string
	once sync.Once
	hex  string
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s)) // a copy, made once a prefix at most
	return hex.EncodeToString(sum[:])
}

// RenderedSection is where a section landed in its layer's Text.
type RenderedSection struct {
	ID         string
	Tier       Tier
	Start, End int // byte offsets in Layer.Text
	Chars      int // code points
	Overridden bool
}

// Window is the run's model and its context window in tokens (0 when
// unknown), and the output reserve kept free for the model's answer.
type Window struct {
	Model         string
	ContextWindow int
	OutputReserve int
	Source        string // "-context-window", "config contextTokens", "templates/models.toml" or ""
}

// Window is the run's model and its context window: override if positive,
// else the config's contextTokens, else the pack's templates/models.toml.
// A window set by hand keeps at most half of itself as output reserve.
func (r *Result) Window(override int) Window {
	w := Window{Model: r.model}
	if m, ok := r.pack.Window(r.model); ok {
		w.ContextWindow, w.OutputReserve, w.Source = m.ContextWindow, m.OutputReserve, "templates/models.toml"
	}
	set := func(n int, source string) {
		if n > 0 {
			w.ContextWindow, w.OutputReserve, w.Source = n, min(w.OutputReserve, n/2), source
		}
	}
	set(r.contextTokens, "config contextTokens")
	set(override, "-context-window")
	return w
}

// Omission says why a manifest section of the harness did not render.
type Omission struct {
	ID     string `json:"id"`
	Layer  string `json:"layer"`
	Reason string `json:"reason"` // one of the Omit reasons below
}

// BoundaryRemoved is what the prompt shows in place of a cache boundary
// marker found inside a section's text (a workspace file holding one,
// say), which would otherwise split the prompt in the wrong place.
const BoundaryRemoved = tidy.BoundaryRemoved

// Omission reasons.
const (
	OmitMode  = "mode not declared"
	OmitNone  = "mode none renders only the identity section"
	OmitEmpty = "rendered empty"
)

// TextWithoutBoundary is Text with the marker line removed.
func (l Layer) TextWithoutBoundary() string {
	if parts := slices.DeleteFunc([]string{l.Stable, l.Dynamic}, func(p string) bool { return p == "" }); len(parts) > 0 {
		return strings.Join(parts, "\n\n") + "\n"
	}
	return ""
}

// Render builds the prompt for one request. It is safe for concurrent use.
func (e *Engine) Render(ctx context.Context, req Request) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	set := e.pool.Get().(*renderSet)
	defer e.pool.Put(set)
	set.meter.Start(ctx)
	return e.render(ctx, set, &req)
}

// render is one turn, top to bottom: settings, the workspace read, the
// skills catalog, then each layer's sections in manifest order, each from
// the memo or executed, and the layer joined (or taken from the memo).
func (e *Engine) render(ctx context.Context, set *renderSet, req *Request) (*Result, error) {
	st, h, res, err := e.begin(ctx, set, req)
	if err != nil {
		return nil, err
	}
	if res.Layers, err = st.renderLayers(h); err != nil {
		return nil, err
	}
	res.Omitted = st.omitted
	if err := checkPromptSize(res.Layers, res.Settings.MaxPromptChars); err != nil {
		return nil, err
	}
	// Only a render that succeeded, in a mode that shows the notice, uses
	// up a "once" warning.
	if res.TruncationWarned && req.Mode != ModeNone {
		if err := bootstrap.Record(ctx, res.warningMode, res.TruncationSignature, e.opts.store); err != nil {
			return nil, &Error{Phase: PhaseWorkspace, Err: err}
		}
	}
	return res, nil
}

// begin is a turn up to its sections: the settings, the workspace read,
// the skills catalog and the derived values the sections' views hold.
func (e *Engine) begin(ctx context.Context, set *renderSet, req *Request) (*renderState, *pack.Harness, *Result, error) {
	h, settings, err := e.prepare(req)
	if err != nil {
		return nil, nil, nil, err
	}
	overlays, err := e.overlayContributions(req, &settings)
	if err != nil {
		return nil, nil, nil, err
	}
	contrib := dot.Merge(append(overlays, req.Contributions...))
	res := &Result{Mode: req.Mode, Harness: h.Name, Boundary: e.pack.Manifest.Boundary, Settings: settings, Tools: req.Tools,
		outline: e.outlines[h.Name]}
	if req.Mode == ModeNone {
		res.Boundary = "" // the text holds no marker
	}
	res.pack, res.model, res.contextTokens = e.pack, req.Runtime.Model, e.opts.config.ContextTokens(req.Agent)
	ctx = bootstrap.CollectProblems(ctx, &res.Warnings) // the warning store's

	var ws *vfs.Workspace
	if e.opts.fs != nil && settings.Workspace != "" {
		ws = vfs.OpenWorkspace(e.opts.fs, settings.Workspace)
		defer ws.Close()
	}
	files, err := e.loadBootstrap(ctx, set, req, &settings, h, ws, res)
	if err != nil {
		return nil, nil, nil, err
	}
	sk, err := e.buildSkills(ctx, set, req, &settings, ws)
	if err != nil {
		return nil, nil, nil, err
	}
	res.Skills, res.SkillsSize, res.SkillDirs = sk.catalog, sk.size, sk.dirs
	stableFiles, dynamicFiles := dot.SplitFiles(files)
	st := renderState{e: e, set: set, req: req, contrib: contrib, files: files.Files, d: dot.Derived{
		Overrides:     view.OverrideSet(contrib.Overrides),
		Skills:        sk.view,
		Config:        settings,
		Pack:          view.PackInfo{Product: e.pack.Manifest.Product, Vars: e.pack.Manifest.Vars, Channels: e.pack.Channels},
		Files:         stableFiles,
		StablePrefix:  contrib.StablePrefix,
		DynamicFiles:  dynamicFiles,
		DynamicSuffix: contrib.DynamicSuffix,
		Truncation:    dot.Truncation(res.TruncationWarned, files.Files),
	}}
	st.d.BootstrapMode = bootstrapMode(req, files) // "" without a workspace: nothing was loaded
	if settings.UserTimezone != "" {
		st.d.Today, _ = localDay(req.Date, settings.UserTimezone, 0) // "" for a zone not known
	}
	st.d.SharedChat, st.d.SkillsKey = req.SharedChat(), sk.key
	set.sums.have = 0
	return &st, h, res, nil
}

// renderLayers renders the harness's layers.
func (st *renderState) renderLayers(h *pack.Harness) ([]Layer, error) {
	layers := make([]Layer, 0, len(h.Layers))
	for _, ly := range h.Layers {
		layer, err := st.renderLayer(ly)
		if err != nil {
			return nil, err
		}
		layers = append(layers, layer)
	}
	return layers, nil
}

// checkPromptSize fails a prompt over promptLimits.maxChars (0: no cap).
func checkPromptSize(layers []Layer, max int) error {
	if max <= 0 {
		return nil
	}
	total := 0
	for _, l := range layers {
		total += runes.Count(l.Text)
	}
	if total > max {
		return &Error{Phase: PhaseExec, Err: fmt.Errorf("the prompt is %d characters, over promptLimits.maxChars = %d", total, max)}
	}
	return nil
}

// prepare validates the request, fills its defaults and resolves the
// harness and the settings.
func (e *Engine) prepare(req *Request) (*pack.Harness, config.Settings, error) {
	if err := req.Validate(); err != nil {
		if ke, ok := err.(*request.KeyError); ok {
			err = ke.Err // its message already names the key
		}
		return nil, config.Settings{}, &Error{Phase: PhaseRequest, Err: err}
	}
	if err := req.Complete(); err != nil {
		return nil, config.Settings{}, &Error{Phase: PhaseRequest, Err: err}
	}
	h, ok := e.pack.Harnesses[req.Harness]
	if !ok {
		return nil, config.Settings{}, &Error{Phase: PhaseRequest, Err: fmt.Errorf("harness %s is not declared in the pack (have %s)", echo.Quote(req.Harness), strings.Join(e.Harnesses(), ", "))}
	}
	settings, err := e.resolve(req)
	return h, settings, err
}

// resolve applies the config precedence for req (see Resolve).
func (e *Engine) resolve(req *Request) (config.Settings, error) {
	return config.Resolve(e.opts.config, e.pack.Defaults,
		config.Turn{Agent: req.Agent, Workspace: req.Workspace.Path, Timezone: req.Timezone})
}

// otherWorkspace reports whether the request reads a workspace other than
// the one the agent config gives the agent, both being set. Paths are
// compared as written, cleaned: "~" is not expanded, so a config that
// spells the same folder differently counts as another workspace, and the
// harness then falls back to injecting the memory file.
func (e *Engine) otherWorkspace(req *Request) bool {
	if req.Workspace.Path == "" || e.opts.config == nil {
		return false
	}
	own, err := config.Resolve(e.opts.config, e.pack.Defaults, config.Turn{Agent: req.Agent})
	if err != nil || own.Workspace == "" {
		return false // the same resolve has already succeeded in prepare
	}
	return path.Clean(own.Workspace) != path.Clean(req.Workspace.Path)
}

// renderLayer renders one layer's sections in manifest order. A layer is
// a function of what its sections read (layerKey), so the joined layer
// and its omissions are kept in the memo under that; the stable prefix's
// digest is kept under its stable sections' keys. In a layer not in the
// memo, each section comes from the memo under its own key, or runs.
func (st *renderState) renderLayer(ly *pack.Layer) (Layer, error) {
	set := st.set
	if err := set.meter.Err(); err != nil {
		return Layer{}, &Error{Phase: PhaseExec, Err: err}
	}
	layerKey := st.layerKey(ly)
	if v, ok := st.e.memo.Get(layerKey); ok {
		if err := set.meter.Kept(v.kept); err != nil {
			return Layer{}, &Error{Phase: PhaseExec, Err: err}
		}
		st.omitted = append(st.omitted, v.omitted...)
		l := *v.layer
		l.Sections = slices.Clone(l.Sections) // the caller's to change
		return l, nil
	}
	keys, nStable := set.keys[:0], 0
	boundary := st.e.pack.Manifest.Boundary
	if st.req.Mode == ModeNone {
		boundary = ""
	}
	var infos []RenderedSection
	var omitted []Omission
	parts, nStableParts, kept := set.parts[:0], 0, 0
	defer func() {
		clear(parts)
		set.parts, set.keys = parts[:0], keys[:0]
	}()
	for _, sec := range ly.Sections {
		if err := set.meter.Err(); err != nil {
			return Layer{}, &Error{Phase: PhaseExec, File: sec.File, Section: sec.ID, Err: err}
		}
		stable := sec.Tier == TierStable // stable sections come first in a layer
		key, o := st.key(sec)
		if keys = append(keys, key); stable {
			nStable++
		}
		if o.pending {
			var err error
			if o, err = st.run(sec, key); err != nil {
				return Layer{}, err
			}
		}
		if err := set.meter.Kept(len(o.out)); err != nil {
			return Layer{}, &Error{Phase: PhaseExec, File: sec.File, Section: sec.ID, Err: err}
		}
		kept += len(o.out)
		if o.out == "" {
			omitted = append(omitted, Omission{ID: sec.ID, Layer: ly.Name, Reason: o.reason})
			continue
		}
		infos = append(infos, RenderedSection{ID: sec.ID, Tier: sec.Tier, Chars: o.chars, Overridden: o.overridden})
		if parts = append(parts, o.out); stable {
			nStableParts++
		}
	}
	st.omitted = append(st.omitted, omitted...)
	digestKey := set.key.Keys("sha256", ly.Name, keys[:nStable])
	cached, _ := st.e.memo.Get(digestKey)
	l := assemble(ly.Name, boundary, parts[:nStableParts], parts[nStableParts:], infos, cached.digest)
	if cached.digest == nil {
		st.e.memo.Put(digestKey, memoValue{digest: l.digest})
	}
	layer := l
	layer.Sections = slices.Clone(l.Sections)
	st.e.memo.Put(layerKey, memoValue{layer: &layer, omitted: omitted, kept: kept})
	return l, nil
}

// key returns the key a section's outcome is known by, and the outcome
// itself when no template need run for it: omitted for the mode, or a
// provider's override. Otherwise the outcome is pending: see run.
func (st *renderState) key(sec *pack.Section) (memo.Key, sectionOutcome) {
	req, k := st.req, &st.set.key
	k.Reset()
	k.String("section")
	k.String(sec.ID)
	k.String(string(req.Mode))
	switch {
	case !sec.HasMode(req.Mode):
		return k.Sum(), sectionOutcome{reason: OmitMode}
	case req.Mode == ModeNone && sec.ID != st.e.pack.Manifest.IdentitySection:
		return k.Sum(), sectionOutcome{reason: OmitNone}
	}
	if text, ok := st.contrib.Overrides[sec.Override]; ok && sec.Override != "" {
		k.String(text)
		return k.Sum(), st.finish("", nil, sectionOutcome{out: text, overridden: true})
	}
	return st.sectionKey(sec, st.e.plans[sec]), sectionOutcome{pending: true}
}

// run returns a section's template output: from the memo under its key,
// or executed and then kept there.
func (st *renderState) run(sec *pack.Section, key memo.Key) (sectionOutcome, error) {
	if v, ok := st.e.memo.Get(key); ok {
		return v.outcome, nil
	}
	o, err := st.execSection(sec, st.e.plans[sec])
	if err != nil {
		return sectionOutcome{}, err
	}
	st.e.memo.Put(key, memoValue{outcome: o})
	return o, nil
}

// renderState is what the sections of one render share. It lives on the
// render's stack; the views and tool lines are built on first use, once.
type renderState struct {
	e       *Engine
	set     *renderSet
	req     *Request
	contrib dot.Merged
	d       dot.Derived
	files   []bootstrap.File
	omitted []Omission

	toolLinesDone bool
	stable, full  any
	// Injected texts that tidy leaves alone, of the stable and of the
	// dynamic files; see tidy.
	protectedStable, protectedDynamic []string
	protectedDone                     bool
}

// tidy is tidy for this render: the injected texts it must leave alone
// are those of the file lists the section reads, gathered only once a
// section has blank lines to fold.
func (st *renderState) tidy(raw string, plan *sectionPlan) string {
	if trimmed := strings.TrimSpace(raw); !tidy.HasBlankRun(trimmed) {
		return trimmed
	}
	if !st.protectedDone {
		st.protectedStable, st.protectedDynamic, st.protectedDone = dot.ProtectedTexts(st.d.Files), dot.ProtectedTexts(st.d.DynamicFiles), true
	}
	var protected []string
	if plan.files {
		protected = st.protectedStable
	}
	if plan.dynamicFiles {
		protected = append(slices.Clip(protected), st.protectedDynamic...)
	}
	for _, r := range plan.fileReads { // its key holds these files alone
		if f := r.File(&st.d); f != nil {
			protected = append(slices.Clip(protected), dot.ProtectedTexts([]bootstrap.File{*f})...)
		}
	}
	return tidy.Text(raw, protected)
}

// dot returns the section data for a section of the given plan: the
// stable or the full view, built on first use. The tool lines are worked
// out only for a section that reads them; a view built before they were
// is built again.
func (st *renderState) dot(sec *pack.Section, plan *sectionPlan) any {
	vt, built := &dot.Full, &st.full
	if sec.Tier == TierStable {
		vt, built = &dot.Stable, &st.stable
	}
	if plan.toolLines && !st.toolLinesDone {
		st.d.ToolLines, st.toolLinesDone = dot.ToolLines(st.e.pack.Tools, st.req.Tools), true
		st.stable, st.full = nil, nil
	}
	if *built == nil {
		if vt.Tools && st.d.ToolList == nil && st.req.Tools != nil {
			st.d.ToolList = dot.ToolInfos(st.req.Tools)
		}
		*built = vt.Build(st.req, &st.d)
	}
	return *built
}

// execSection executes a section's template against its tier's view.
func (st *renderState) execSection(sec *pack.Section, plan *sectionPlan) (sectionOutcome, error) {
	raw, err := st.exec(sec, st.dot(sec, plan))
	if err != nil {
		return sectionOutcome{}, err
	}
	return st.finish(raw, plan, sectionOutcome{}), nil
}

// finish tidies raw (unless o already holds an override's text), keeps
// the boundary marker out, and counts.
func (st *renderState) finish(raw string, plan *sectionPlan, o sectionOutcome) sectionOutcome {
	if !o.overridden {
		o.out = st.tidy(raw, plan)
	}
	o.out = tidy.Boundary(o.out, st.e.pack.Manifest.Boundary)
	if o.out == "" {
		o.reason = OmitEmpty
		return o
	}
	o.chars = runes.Count(o.out)
	return o
}

// execError converts an error from executing a section's template,
// turning a missing field of a stable view into a TierError.
func execError(sec *pack.Section, err error) *Error {
	e := diag.Template(PhaseExec, sec.File, sec.ID, err)
	if le, ok := errors.AsType[*LimitError](err); ok {
		e.Err = le // it names the function; not "error calling _sysprompt_step"
		if e.Line == 0 {
			e.File = sec.File
		}
		return e
	}
	for _, done := range []error{context.DeadlineExceeded, context.Canceled} {
		if errors.Is(err, done) {
			e.Err = done // not "error calling _sysprompt_step" either
			return e
		}
	}
	if field, ok := diag.MissingField(e); ok {
		if sec.Tier == TierStable && dot.Volatile[field] {
			e.Phase, e.Err = PhaseTier, &TierError{Field: field}
		} else {
			e.Err = fmt.Errorf("the section data has no field %s", field)
		}
	}
	return e
}

// exec executes a section's template against dot.
func (st *renderState) exec(sec *pack.Section, dot any) (string, error) {
	set := st.set
	set.buf.Reset()
	set.meter.Section()
	if err := set.t.ExecuteTemplate(set.meter, sec.File, dot); err != nil {
		return "", execError(sec, err)
	}
	return set.buf.String(), nil
}

// assemble joins the sections around the boundary and records offsets.
// With no boundary (mode none, where nothing is cached apart from the
// identity line) the parts are joined without a marker.
// Stable and Dynamic are slices of Text, not copies. digest is the
// stable prefix's digest when the memo already has one, else nil.
func assemble(name, boundary string, stable, dynamic []string, infos []RenderedSection, digest *stableDigest) Layer {
	l := Layer{Name: name}
	size := len(boundary) + 8
	for _, p := range stable {
		size += len(p) + 2
	}
	for _, p := range dynamic {
		size += len(p) + 2
	}
	var b strings.Builder
	b.Grow(size)
	i := 0
	place := func(parts []string) {
		for j, part := range parts {
			if j > 0 {
				b.WriteString("\n\n")
			}
			infos[i].Start = b.Len()
			b.WriteString(part)
			infos[i].End = b.Len()
			i++
		}
	}
	place(stable)
	stableEnd := b.Len()
	if boundary != "" {
		if len(stable) > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(boundary)
		b.WriteString("\n")
	}
	dynamicStart := b.Len()
	if len(dynamic) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
			dynamicStart++
			if boundary == "" {
				b.WriteString("\n")
				dynamicStart++
			}
		}
		place(dynamic)
		b.WriteString("\n")
	} else if boundary == "" && len(stable) > 0 {
		b.WriteString("\n")
	}
	l.Text = b.String()
	l.Stable = l.Text[:stableEnd]
	if len(dynamic) > 0 {
		l.Dynamic = l.Text[dynamicStart : len(l.Text)-1]
	}
	l.Sections = infos
	if digest == nil {
		digest = &stableDigest{text: l.Stable}
	}
	l.digest = digest
	return l
}

// loadBootstrap resolves and budgets the workspace files for the request.
func (e *Engine) loadBootstrap(ctx context.Context, set *renderSet, req *Request, s *config.Settings, h *pack.Harness, ws *vfs.Workspace, res *Result) (bootstrap.Result, error) {
	if ws == nil {
		return bootstrap.Result{}, nil
	}
	var today, yesterday string
	if req.Session.Reset { // with no known zone, days are UTC days
		var err error
		if today, err = localDay(req.Date, s.UserTimezone, 0); err == nil {
			yesterday, err = localDay(req.Date, s.UserTimezone, -1)
		}
		if err != nil {
			return bootstrap.Result{}, &Error{Phase: PhaseConfig, Err: fmt.Errorf("time zone %q: %w", s.UserTimezone, err)}
		}
	}
	if req.LightContext { // a lightweight run reads no workspace file, and the report lists none
		return bootstrap.Result{}, nil
	}
	lists := e.pack.Bootstrap
	opts := bootstrap.Options{
		Files:         lists.Files,
		Optional:      lists.Optional,
		DynamicFiles:  lists.Dynamic,
		SubagentFiles: lists.Subagent,
		CronFiles:     lists.Cron,
		Private:       lists.Private,
		Shared:        req.SharedChat(),
		MaxChars:      s.BootstrapMaxChars,
		TotalMaxChars: s.BootstrapTotalMaxChars,
		Bound:         e.opts.limits.PromptOutput, // no prompt holds more than that
		Session:       req.SessionKind,
		Setup:         setupFor(req),
		Heartbeat:     s.HeartbeatEnabled && s.HeartbeatSection,
		Startup:       req.Session.Reset,
		Today:         today,
		Yesterday:     yesterday,
		Omit:          h.Omit(pack.Turn{HasAnyTool: hasAnyTool(req.Tools), OtherWorkspace: e.otherWorkspace(req)}),
		Replace:       s.BootstrapReplace,
		Hook:          e.opts.hook,
		Markers:       markers{set: set}, // one pointer: no allocation as an interface
		Boundary:      e.pack.Manifest.Boundary,
	}
	r, err := bootstrap.Load(ctx, e.snap.texts.Reader(ws, &set.key), opts)
	if err != nil {
		return bootstrap.Result{}, &Error{Phase: PhaseWorkspace, File: s.Workspace, Err: err}
	}
	res.Files = r.Files
	res.TruncationSignature = r.Signature
	mode, err := bootstrap.ParseWarningMode(s.TruncationWarning)
	if err != nil {
		return bootstrap.Result{}, &Error{Phase: PhaseConfig, Err: err}
	}
	warn, err := bootstrap.ShouldWarn(ctx, mode, r.Signature, e.opts.store)
	if err != nil {
		return bootstrap.Result{}, &Error{Phase: PhaseWorkspace, Err: err}
	}
	res.TruncationWarned = warn
	res.warningMode = mode
	return r, nil
}

// localDay is the day of the RFC 3339 time date (validated: it parses)
// in the zone tz (UTC for ""), moved by days; "" when date is.
func localDay(date, tz string, days int) (string, error) {
	if date == "" {
		return "", nil
	}
	loc, err := zone.Load(tz)
	if err != nil {
		return "", err
	}
	t, _ := time.Parse(time.RFC3339, date)
	return t.In(loc).AddDate(0, 0, days).Format(time.DateOnly), nil
}

// setupFor says what the run does with BOOTSTRAP.md. Only a main
// session works through first-run setup (heartbeat, cron and sub-agent
// runs never do), only the owner's own (not a group or channel, where
// anyone could answer its questions), and only with a read tool;
// otherwise the file is still read, to tell the model that setup is
// pending. A brand_new of false says setup is done.
func setupFor(req *Request) bootstrap.Setup {
	switch {
	case req.SessionKind != "main", req.Workspace.BrandNew != nil && !*req.Workspace.BrandNew:
		return bootstrap.SetupSkip
	case req.SharedChat(), !hasAnyTool(req.Tools)("read"):
		return bootstrap.SetupDetect
	}
	return bootstrap.SetupInject
}

// bootstrapMode is the derived BootstrapMode: whether setup is pending
// (the file has content, or the request says the workspace is brand-new)
// and whether this run can work through it.
func bootstrapMode(req *Request, r bootstrap.Result) string {
	pending := r.SetupPending || req.Workspace.BrandNew != nil && *req.Workspace.BrandNew
	switch {
	case !pending || r.Setup == bootstrap.SetupSkip:
		return ""
	case r.Setup == bootstrap.SetupDetect:
		return "limited"
	}
	return "full"
}

// markers renders the bootstrap markers from the pack's partials.
type markers struct {
	set *renderSet
}

// exec renders a marker partial. New has executed every marker partial
// with values of the same types, so the fallback is only reached if a
// partial fails on specific values (a path that trips a user's own
// function), and even then the file's fate is still stated.
func (m markers) exec(name string, data any, fallback string) string {
	if err := m.set.partial(name, data); err != nil {
		return fallback
	}
	return strings.TrimSpace(m.set.buf.String())
}

func (m markers) Missing(display string) string {
	return m.exec("missing_marker", map[string]any{"Path": display}, "[MISSING] Expected at: "+display)
}

func (m markers) Truncated(display string, kept, raw int) string {
	return "\n" + m.exec("truncation_marker", map[string]any{"Path": display, "Kept": kept, "Raw": raw},
		fmt.Sprintf("[... truncated %s: kept %d of %d characters; read the file for the full text ...]", display, kept, raw)) + "\n"
}

func (m markers) Binary(display string) string {
	return m.exec("binary_marker", map[string]any{"Path": display}, "[BINARY] Not injected: "+display)
}

// checkMarkers executes the marker partials once with sample values, so a
// broken user partial fails at New rather than mid-render.
func (e *Engine) checkMarkers() *Error {
	set := e.newRenderSet()
	// The first render takes this set rather than cloning another: a
	// cold CLI render makes one.
	defer e.pool.Put(set)
	set.meter.Start(context.Background())
	for _, c := range []struct {
		name string
		data any
	}{
		{"missing_marker", map[string]any{"Path": "/ws/AGENTS.md"}},
		{"truncation_marker", map[string]any{"Path": "/ws/AGENTS.md", "Kept": 1, "Raw": 2}},
		{"binary_marker", map[string]any{"Path": "/ws/AGENTS.md"}},
	} {
		if set.t.Lookup(c.name) == nil {
			return &Error{Phase: PhaseParse, File: pack.TemplatesDir, Err: fmt.Errorf("the pack defines no %q partial", c.name)}
		}
		if err := set.partial(c.name, c.data); err != nil {
			return execError(&pack.Section{File: pack.TemplatesDir}, err)
		}
	}
	return nil
}

// hasAnyTool reports whether tools holds any of the names (any case).
func hasAnyTool(tools []Tool) func(names ...string) bool {
	return func(names ...string) bool {
		return slices.ContainsFunc(tools, func(t Tool) bool {
			return slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(t.Name, n) })
		})
	}
}
