package report

import (
	"github.com/sysprompt/sysprompt/engine"
)

// Explanation says what happened to one section of the pack in a render.
type Explanation struct {
	ID       string      `json:"id"`
	Layer    string      `json:"layer,omitempty"`
	Tier     engine.Tier `json:"tier"`
	Rendered bool        `json:"rendered"`
	Chars    int         `json:"chars,omitempty"`
	Reason   string      `json:"reason,omitempty"` // why it did not render, or "provider override"
}

// Reasons an explanation gives beyond the Omission ones.
const (
	ExplainOverride     = "replaced by a provider override"
	ExplainNotInHarness = "not in a layer of this harness"
)

// Explain lists every section of the pack for a result: the harness's
// sections in manifest order, rendered or not and why, then the pack's
// other sections, which this harness does not use.
func Explain(res *engine.Result) []Explanation {
	omitted := map[string]string{}
	for _, o := range res.Omitted {
		omitted[o.Layer+"/"+o.ID] = o.Reason
	}
	rendered := map[string]engine.RenderedSection{}
	for _, l := range res.Layers {
		for _, s := range l.Sections {
			rendered[l.Name+"/"+s.ID] = s
		}
	}
	outline := res.Outline()
	var out []Explanation
	for _, l := range outline.Layers {
		for _, sec := range l.Sections {
			x := Explanation{ID: sec.ID, Layer: l.Name, Tier: sec.Tier}
			if s, ok := rendered[l.Name+"/"+sec.ID]; ok {
				x.Rendered, x.Chars = true, s.Chars
				if s.Overridden {
					x.Reason = ExplainOverride
				}
			} else {
				x.Reason = omitted[l.Name+"/"+sec.ID]
			}
			out = append(out, x)
		}
	}
	for _, sec := range outline.Unused {
		out = append(out, Explanation{ID: sec.ID, Tier: sec.Tier, Reason: ExplainNotInHarness})
	}
	return out
}
