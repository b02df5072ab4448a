package golden

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/spf13/afero"

	"github.com/sysprompt/sysprompt/engine"
)

// RegenerateCommand rewrites every snapshot from its scenario.
const RegenerateCommand = "go test ./golden -update"

// header is the comment every snapshot carries below its title.
const header = "<!-- Generated from golden/scenarios; do not edit. Regenerate with `" +
	RegenerateCommand + "` (or `go run ./cmd/render snapshots gen`). -->"

// Render renders the scenario with the given pack and returns its snapshot:
// Markdown with the scenario metadata, the effective config, each layer's
// full text (boundary marker included), token estimates and the sha256 of
// each layer's stable prefix. The same scenario and pack give the same
// bytes on any machine and in any time zone.
func Render(ctx context.Context, pack fs.FS, sc *Scenario) ([]byte, error) {
	if sc == nil {
		return nil, errors.New("golden: Render: nil scenario")
	}
	res, err := render(ctx, pack, sc)
	if err != nil {
		return nil, fmt.Errorf("golden: scenario %s: %w", sc.Name, err)
	}
	out, err := format(sc, res)
	if err != nil {
		return nil, fmt.Errorf("golden: scenario %s: %w", sc.Name, err)
	}
	return out, nil
}

// render runs the engine over a fresh in-memory workspace. A new engine
// per render keeps scenarios independent: its "once" warning store and
// file cache start empty. A next turn renders on an engine of its own too
// (on the first one the memo would hand back the first turn's stable tier
// without rendering it) and must keep every stable prefix byte for byte.
func render(ctx context.Context, pack fs.FS, sc *Scenario) (*engine.Result, error) {
	res, err := renderFresh(ctx, pack, sc, sc.request)
	if err != nil || sc.nextTurn == nil {
		return res, err
	}
	next, err := renderFresh(ctx, pack, sc, *sc.nextTurn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", nextTurnFile, err)
	}
	for i, l := range res.Layers {
		if i >= len(next.Layers) || next.Layers[i].Stable != l.Stable {
			return nil, fmt.Errorf("%s: the %s layer's stable prefix differs from %s's: a later turn of one session must keep the cached prefix (compare them with render diff)",
				nextTurnFile, l.Name, requestFile)
		}
	}
	return res, nil
}

// renderFresh renders req on a new engine over the scenario's workspace.
func renderFresh(ctx context.Context, pack fs.FS, sc *Scenario, req engine.Request) (*engine.Result, error) {
	fsys := afero.NewMemMapFs()
	for _, rel := range sc.workspaceFiles() {
		if err := afero.WriteFile(fsys, sc.workspacePath(rel), sc.workspace[rel], 0o644); err != nil {
			return nil, fmt.Errorf("workspace/%s: %w", rel, err)
		}
	}
	opts := []engine.Option{engine.WithFS(fsys)}
	if sc.config != nil {
		opts = append(opts, engine.WithConfig(sc.config))
	}
	e, err := engine.New(pack, opts...)
	if err != nil {
		return nil, err
	}
	return e.Render(ctx, req)
}

// format lays out the snapshot. Blocks are joined with one blank line and
// the file ends with exactly one newline.
func format(sc *Scenario, res *engine.Result) ([]byte, error) {
	meta, err := sortedJSON(scenarioMetadata(sc, res))
	if err != nil {
		return nil, fmt.Errorf("scenario metadata: %w", err)
	}
	settings, err := sortedJSON(res.Settings)
	if err != nil {
		return nil, fmt.Errorf("effective config: %w", err)
	}
	tokens, err := sortedJSON(tokenEstimates(res.Layers))
	if err != nil {
		return nil, fmt.Errorf("token estimates: %w", err)
	}

	blocks := []string{
		"# " + sc.Name,
		header,
		sc.Description,
		"## Scenario",
		fenced("json", meta),
		"## Effective Config",
		fenced("json", settings),
	}
	for _, l := range res.Layers {
		blocks = append(blocks, "## Layer: "+l.Name, fenced("text", l.Text))
	}
	blocks = append(blocks, "## Token Estimates", fenced("json", tokens), "## Stable Prefix")
	var hashes []string
	for _, l := range res.Layers {
		hashes = append(hashes, fmt.Sprintf("- %s: sha256 %s", l.Name, l.StableSHA256()))
	}
	if len(hashes) == 0 {
		hashes = append(hashes, "(no layers)")
	}
	if sc.nextTurn != nil {
		hashes = append(hashes, "- "+nextTurnFile+": the same stable prefix in every layer")
	}
	blocks = append(blocks, strings.Join(hashes, "\n"))
	return []byte(strings.Join(blocks, "\n\n") + "\n"), nil
}

// scenarioMetadata is what the Scenario block shows: the resolved mode
// and harness, and the request's agent, session kind and workspace.
func scenarioMetadata(sc *Scenario, res *engine.Result) map[string]any {
	sessionKind := sc.request.SessionKind
	if sessionKind == "" {
		sessionKind = "main" // the engine's documented default
	}
	return map[string]any{
		"name":         sc.Name,
		"mode":         string(res.Mode),
		"harness":      res.Harness,
		"agent":        sc.request.Agent,
		"session_kind": sessionKind,
		"workspace":    sc.request.Workspace.Path,
		"files":        sc.workspaceFiles(),
	}
}

// estimate is a character count and its rough token cost.
type estimate struct {
	Chars  int `json:"chars"`
	Tokens int `json:"tokens"`
}

// estimateChars counts code points and estimates ceil(chars/4) tokens.
func estimateChars(chars int) estimate {
	return estimate{Chars: chars, Tokens: (chars + 3) / 4}
}

type tierEstimates struct {
	Stable  estimate `json:"stable"`
	Dynamic estimate `json:"dynamic"`
	Total   estimate `json:"total"` // the whole layer text, boundary marker included
}

// tokenEstimates gives per-layer and overall estimates. Overall tokens are
// estimated from the summed characters, like every other figure.
func tokenEstimates(layers []engine.Layer) map[string]any {
	perLayer := map[string]tierEstimates{}
	var stable, dynamic, total int
	for _, l := range layers {
		s, d, t := utf8.RuneCountInString(l.Stable), utf8.RuneCountInString(l.Dynamic), utf8.RuneCountInString(l.Text)
		perLayer[l.Name] = tierEstimates{Stable: estimateChars(s), Dynamic: estimateChars(d), Total: estimateChars(t)}
		stable, dynamic, total = stable+s, dynamic+d, total+t
	}
	return map[string]any{
		"layers": perLayer,
		"total":  tierEstimates{Stable: estimateChars(stable), Dynamic: estimateChars(dynamic), Total: estimateChars(total)},
	}
}

// sortedJSON renders v as 2-space indented JSON with every object's keys
// sorted, however deeply nested: a round trip through any turns structs
// into maps, whose keys encoding/json sorts. HTML characters stay as they
// are, so prompt text reads the same as in the layers.
func sortedJSON(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep large integers exact
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(generic); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// fenced wraps text in a code fence longer than any backtick run inside
// it, so the text can hold fences of its own.
func fenced(info, text string) string {
	fence := strings.Repeat("`", max(3, longestBacktickRun(text)+1))
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return fence + info + "\n" + text + fence
}

func longestBacktickRun(s string) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}
