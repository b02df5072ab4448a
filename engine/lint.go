package engine

import "io/fs"

// LintResult is what Lint found in a pack.
type LintResult struct {
	Errors    ErrorList // load, parse and tier errors; the pack does not render
	Warnings  []*Error  // findings that do not stop a render
	Sections  int       // section files found
	Harnesses int
}

// Lint validates a pack the way New does and also returns the warnings
// New tolerates, such as a section file listed in no layer.
func Lint(packFS fs.FS) LintResult {
	e, err := New(packFS)
	if err != nil {
		// New reports every load problem as an ErrorList.
		list, ok := err.(ErrorList)
		if !ok {
			list = ErrorList{{Err: err}}
		}
		return LintResult{Errors: list}
	}
	return LintResult{Warnings: e.pack.Warnings, Sections: len(e.pack.Sections), Harnesses: len(e.pack.Harnesses)}
}
