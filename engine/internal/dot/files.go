package dot

import (
	"slices"
	"strings"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/view"
)

// SplitFiles returns the files above the boundary and those below. Load
// lists the stable ones first, so both are views of one array, capped so
// that neither reaches into the other.
func SplitFiles(r bootstrap.Result) (stable, dynamic view.FileList) {
	k := slices.IndexFunc(r.Files, func(f bootstrap.File) bool { return f.Dynamic })
	if k < 0 {
		return r.Files, nil
	}
	if slices.ContainsFunc(r.Files[k:], func(f bootstrap.File) bool { return !f.Dynamic }) {
		return r.Stable(), r.Dynamic() // not partitioned: copy each side
	}
	return r.Files[:k:k], r.Files[k:]
}

// Truncation names every file a budget cut: those cut short and
// those left out because the total ran out.
func Truncation(warn bool, files []bootstrap.File) view.TruncationInfo {
	info := view.TruncationInfo{Warn: warn}
	for _, f := range files {
		switch {
		case len(f.Causes) == 0:
		case f.Status == bootstrap.StatusTruncated:
			info.Files = append(info.Files, f.Name)
		default:
			info.Skipped = append(info.Skipped, f.Name)
		}
	}
	return info
}

// ProtectedTexts are the injected file contents, which the newline
// tidy-up must leave exactly as they are.
func ProtectedTexts(files []bootstrap.File) []string {
	var out []string
	for _, f := range files {
		if strings.Contains(f.Content, "\n\n\n") {
			out = append(out, f.Content)
		}
	}
	return out
}
