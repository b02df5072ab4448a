package engine_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sysprompt/sysprompt/engine"
)

// snippets are the pieces a generated section is built from: loops,
// recursion, calls that grow values, and output. Each byte of fuzz input
// picks one, so nearly every input is a template that parses; the
// numbers come from the input too.
var snippets = []string{
	`{{ range until %d }}`, `{{ range %d }}`, `{{ end }}`, `x`, `{{ . }}`,
	`{{ $s = print $s $s }}`, `{{ $s = repeat %d $s }}`, `{{ $l = list $l $l }}`,
	`{{ $l = append $l $s }}`, `{{ $s }}`, `{{ $l }}`, `{{ template "t" . }}`,
	`{{ include "t" . }}`, `{{ if eq (len $s) %d }}`, `{{ printf "%%0%dd" 1 }}`,
	`{{ $s = replace "x" $s $s }}`, `{{ $s = replace "" $s $s }}`,
	`{{ $s = indent 2 $s }}`, `{{ $l = until %d }}`, `{{ toJson $l }}`,
	`{{ $s = join $s $l }}`, `{{ has $s $l }}`, `{{ $l = splitList "" $s }}`,
}

// generate turns fuzz input into a section body and a partial "t" that
// may call itself.
func generate(in []byte) (body, partial string) {
	build := func(in []byte) string {
		var b strings.Builder
		b.WriteString(`{{ $s := "ab" }}{{ $l := list 1 }}`)
		open := 0
		for i := 0; i < len(in); i++ {
			sn := snippets[int(in[i])%len(snippets)]
			switch {
			case sn == `{{ end }}`:
				if open == 0 {
					continue
				}
				open--
			case strings.HasPrefix(sn, `{{ range`), strings.HasPrefix(sn, `{{ if`):
				open++
			}
			if strings.Contains(sn, "%d") {
				n := 3
				if i+1 < len(in) {
					i++
					n = int(in[i]) * int(in[i]) * 16
				}
				sn = strings.Replace(sn, "%d", strconv.Itoa(n), 1)
			}
			b.WriteString(strings.ReplaceAll(sn, "%%", "%"))
		}
		b.WriteString(strings.Repeat(`{{ end }}`, open))
		return b.String()
	}
	half := len(in) / 2
	return build(in[:half]), `{{ define "t" }}` + build(in[half:]) + `{{ end }}`
}

// FuzzTemplateExecution renders generated packs with the default limits.
// Whatever the template does, the render ends by itself (a bound, not
// the test's deadline, stops it) in a prompt within the output bound or
// an *Error.
func FuzzTemplateExecution(f *testing.F) {
	f.Add([]byte{0, 200, 5, 0, 255, 5, 2, 2})                 // loops printing the dot
	f.Add([]byte{11, 11, 0, 255, 11})                         // recursion through template
	f.Add([]byte{0, 100, 5, 6, 3, 2, 9})                      // a doubling string in a loop
	f.Add([]byte{0, 60, 7, 2, 10})                            // a doubling list
	f.Add([]byte{16, 16, 16, 16, 9, 12, 12})                  // replacing the empty string
	f.Add([]byte{1, 255, 1, 255, 3, 2, 2})                    // ranges over integers
	f.Add([]byte{14, 255, 14, 255, 14, 255, 18, 200, 19, 19}) // printf widths and until
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 256 {
			return
		}
		body, partial := generate(in)
		p := minimalPack(t, manifest(`"identity", "gen"`), map[string]string{"gen": section(dynamic, body)})
		addFile(p, "templates/gen.tmpl", partial)
		e, err := engine.New(p)
		if err != nil {
			if _, ok := errors.AsType[engine.ErrorList](err); !ok {
				t.Fatalf("New: want an ErrorList, got %T: %v", err, err)
			}
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := e.Render(ctx, directRequest())
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("no bound stopped the render within 10 s:\n%s\n%s", body, partial)
		}
		if err != nil {
			if _, ok := errors.AsType[*engine.Error](err); !ok {
				t.Fatalf("Render: want an *Error, got %T: %v", err, err)
			}
			return
		}
		if n := len(res.Layers[0].Text); n > engine.DefaultLimits().PromptOutput+1024 {
			t.Fatalf("a %d-byte prompt passed the output bound", n)
		}
	})
}
