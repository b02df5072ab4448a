package funcs

import "slices"

// Doc documents one of sysprompt's own functions. Example is a complete template that
// needs no data; executing it yields Output (a test checks every one).
type Doc struct {
	Name    string
	Summary string
	Example string
	Output  string
}

// Docs documents sysprompt's own functions, sorted by name. sprig's functions are
// documented by sprig.
func Docs() []Doc { return slices.Clone(docs) }

var docs = []Doc{
	{
		Name:    "fail",
		Summary: "Stops the render with the given message, as a *FailError.",
		Example: `{{ $n := 3 }}{{ if gt $n 2 }}ok{{ else }}{{ fail "need more than two" }}{{ end }}`,
		Output:  "ok",
	},
	{
		Name: "include",
		Summary: "Executes a named template with the given data and returns its output, so it can be piped. " +
			"Nesting is limited (IncludeDepth by default); an unknown name or a deeper nesting is an error.",
		Example: `{{ define "greet" }}Hello, {{ . }}!{{ end }}{{ include "greet" "Ada" | upper }}`,
		Output:  "HELLO, ADA!",
	},
	{
		Name: "indent",
		Summary: "Prefixes every line that holds more than white space with n spaces (0 to 256); " +
			"blank lines come out empty, so no trailing white space is added. Replaces sprig's indent.",
		Example: `{{ indent 2 "a\n \nb" }}`,
		Output:  "  a\n\n  b",
	},
	{
		Name:    "keys",
		Summary: "Returns the keys of one or more dicts, sorted (sprig's are in random order).",
		Example: `{{ keys (dict "b" 2 "a" 1) | join "," }}`,
		Output:  "a,b",
	},
	{
		Name:    "nindent",
		Summary: "Like indent, with a newline in front. Replaces sprig's nindent.",
		Example: `items:{{ nindent 2 "- a\n- b" }}`,
		Output:  "items:\n  - a\n  - b",
	},
	{
		Name: "required",
		Summary: "Returns the value, or stops the render with the message as a *RequiredError when the value is " +
			"nil (or a nil pointer, map, slice, func or channel) or a string holding only white space.",
		Example: `{{ "Ada" | required "a name is required" }}`,
		Output:  "Ada",
	},
	{
		Name:    "sha256",
		Summary: "Returns the lowercase hex SHA-256 of the string's bytes.",
		Example: `{{ sha256 "abc" }}`,
		Output:  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	},
	{
		Name: "sortAlpha",
		Summary: "Returns the elements of a list as strings, sorted, skipping nil elements. " +
			"Unlike sprig's, it never sorts the caller's list in place.",
		Example: `{{ list "pear" "apple" "fig" | sortAlpha | join " " }}`,
		Output:  "apple fig pear",
	},
	{
		Name: "tokens",
		Summary: "Estimates tokens as ceil(n/4), where n is the number of code points of a string " +
			"or a character count given as a non-negative integer.",
		Example: `{{ tokens "hello world" }} {{ tokens 9 }}`,
		Output:  "3 3",
	},
	{
		Name:    "values",
		Summary: "Returns the values of a dict in the order of its sorted keys (sprig's are in random order).",
		Example: `{{ values (dict "b" 2 "a" 1) | join "," }}`,
		Output:  "1,2",
	},
	{
		Name: "xml",
		Summary: "Escapes & < > \" ' for XML text and attributes; invalid UTF-8 and characters XML 1.0 " +
			"forbids (such as most control characters) become U+FFFD.",
		Example: `{{ xml "Tom & \"Jerry\" <3" }}`,
		Output:  "Tom &amp; &quot;Jerry&quot; &lt;3",
	},
}
