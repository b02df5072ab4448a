package main

import (
	"bytes"
	"flag"
	"io"

	"github.com/sysprompt/sysprompt/engine/report"
)

// htmlFlags registers report html's own flag: -o FILE.
func htmlFlags(out *string) func(*flag.FlagSet) {
	return func(fs *flag.FlagSet) {
		fs.StringVar(out, "o", "", "report html: write the page to `FILE` (atomically)")
	}
}

// writeHTMLReport writes the report's page to stdout, or to out through a
// temporary file and a rename like a render's -o.
func writeHTMLReport(rep report.Report, out string, stdout io.Writer) error {
	var buf bytes.Buffer
	if err := report.WriteHTML(&buf, rep); err != nil {
		return err
	}
	if out == "" {
		_, err := stdout.Write(buf.Bytes())
		return err
	}
	return writeAtomic(out, buf.Bytes())
}
