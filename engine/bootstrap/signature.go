package bootstrap

import (
	"cmp"
	"encoding/json"
	"slices"
)

// signatureFile is one cut file in a truncation signature.
type signatureFile struct {
	Name     string  `json:"name"`
	Raw      int     `json:"raw"`
	Injected int     `json:"injected"`
	Causes   []Cause `json:"causes"`
}

// signatureDoc is the JSON form of a truncation signature. Field order is
// fixed by the struct and files are sorted, so equal inputs give equal bytes.
type signatureDoc struct {
	MaxChars      int             `json:"maxChars"`
	TotalMaxChars int             `json:"totalMaxChars"`
	Files         []signatureFile `json:"files"`
}

// signature identifies a truncation outcome: the limits plus every file that
// lost content to a budget (truncated, or skipped for the total budget).
// It is "" when nothing was cut.
func signature(maxChars, totalMaxChars int, files []File) string {
	var cut []signatureFile
	for _, f := range files {
		if len(f.Causes) == 0 {
			continue
		}
		cut = append(cut, signatureFile{Name: f.Name, Raw: f.RawChars, Injected: f.InjectedChars, Causes: f.Causes})
	}
	if len(cut) == 0 {
		return ""
	}
	slices.SortFunc(cut, func(a, b signatureFile) int {
		return cmp.Or(
			cmp.Compare(a.Name, b.Name),
			cmp.Compare(a.Raw, b.Raw),
			cmp.Compare(a.Injected, b.Injected),
			slices.Compare(a.Causes, b.Causes),
		)
	})
	b, err := json.Marshal(signatureDoc{MaxChars: maxChars, TotalMaxChars: totalMaxChars, Files: cut})
	if err != nil {
		// Only strings and ints are marshalled; this cannot happen.
		return ""
	}
	return string(b)
}
