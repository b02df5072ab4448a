package funcs

import "slices"

// Doc documents one function of the map. Example is a complete template
// that needs no data; executing it yields Output (a test runs each one).
type Doc struct {
	Name, Summary, Example, Output string
}

// Docs documents every function of the map, sorted by name.
func Docs() []Doc { return slices.Clone(docs) }

var docs = []Doc{
	{"append", "Returns a new list: the list's elements, then the value.", `{{ append (list 1 2) 3 }}`, "[1 2 3]"},
	{"contains", "Reports whether the string (last) contains the substring.", `{{ contains "ell" "hello" }}`, "true"},
	{"default", "Returns the value piped in, or the default when that is empty (see empty).", `{{ "" | default "none" }}`, "none"},
	{"dict", "Makes a dict of key, value pairs; a key without a value gets \"\".", `{{ get (dict "a" 1) "a" }}`, "1"},
	{"empty", "Reports whether a value is nil, false, zero, or an empty string, list or dict.", `{{ empty "" }} {{ empty 0 }} {{ empty (list 0) }}`, "true true false"},
	{"fail", "Stops the render with the message, as a *FailError.", `{{ if false }}{{ fail "unreachable" }}{{ end }}ok`, "ok"},
	{"get", "Returns a dict's value for the key, or \"\" when it has none.", `{{ get (dict "a" 1) "b" }}|`, "|"},
	{"has", "Reports whether the list (last) holds the value.", `{{ has 2 (list 1 2) }}`, "true"},
	{"hasKey", "Reports whether the dict has the key.", `{{ hasKey (dict "a" 1) "a" }}`, "true"},
	{"hasPrefix", "Reports whether the string (last) starts with the prefix.", `{{ hasPrefix "he" "hello" }}`, "true"},
	{"hasSuffix", "Reports whether the string (last) ends with the suffix.", `{{ hasSuffix "lo" "hello" }}`, "true"},
	{"html", "text/template's html, bounded.", `{{ html "<a>" }}`, "&lt;a&gt;"},
	{"include", "Executes a named template with the data and returns its output, so it can be piped; " +
		"an unknown name is an error.", `{{ define "greet" }}Hello, {{ . }}!{{ end }}{{ include "greet" "Ada" | upper }}`, "HELLO, ADA!"},
	{"indent", "Prefixes every line holding more than white space with n spaces (0 to 256); " +
		"blank lines come out empty.", `{{ indent 2 "a\n \nb" }}`, "  a\n\n  b"},
	{"join", "Joins a list's elements, as strings and leaving out nil ones, with the separator.", `{{ join ", " (list "a" 1) }}`, "a, 1"},
	{"js", "text/template's js, bounded.", `{{ js "it's" }}`, `it\'s`},
	{"keys", "Returns the keys of one or more dicts, sorted.", `{{ keys (dict "b" 2 "a" 1) | join "," }}`, "a,b"},
	{"list", "Makes a list of its arguments.", `{{ list 1 "a" }}`, "[1 a]"},
	{"lower", "Lowercases a string.", `{{ lower "HeLLo" }}`, "hello"},
	{"nindent", "Like indent, with a newline in front.", `items:{{ nindent 2 "- a\n- b" }}`, "items:\n  - a\n  - b"},
	{"print", "text/template's print, bounded.", `{{ print "a" 1 }}`, "a1"},
	{"printf", "text/template's printf, refusing widths and precisions that alone pass the value bound.", `{{ printf "%03d" 7 }}`, "007"},
	{"println", "text/template's println, bounded.", `{{ println "a" }}`, "a\n"},
	{"quote", "Quotes each argument that is not nil as a Go string, separated by spaces.", `{{ quote "a\"b" 1 }}`, `"a\"b" "1"`},
	{"repeat", "Repeats a string n times.", `{{ repeat 3 "ab" }}`, "ababab"},
	{"replace", "Replaces every occurrence of old with new in the string (last).", `{{ replace "a" "o" "banana" }}`, "bonono"},
	{"required", "Returns the value, or stops the render with the message as a *RequiredError when it is nil " +
		"(or a nil pointer, map, slice, func or channel) or a string of white space only.", `{{ "Ada" | required "a name is required" }}`, "Ada"},
	{"sha256", "Returns the lowercase hex SHA-256 of the string's bytes.", `{{ sha256 "abc" }}`, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	{"sortAlpha", "Returns a list's elements as strings, sorted, leaving out nil ones.", `{{ list "pear" "apple" | sortAlpha | join " " }}`, "apple pear"},
	{"splitList", "Splits the string (last) at every separator.", `{{ splitList "," "a,b" | join "+" }}`, "a+b"},
	{"ternary", "Returns the first value when the condition (last) is true, else the second.", `{{ ternary "yes" "no" true }}`, "yes"},
	{"toJson", "Encodes a value as JSON; a value JSON cannot hold is an error.", `{{ toJson (dict "a" (list 1 "x")) }}`, `{"a":[1,"x"]}`},
	{"tokens", "Estimates tokens as ceil(n/4), n the code points of a string or a character count.", `{{ tokens "hello world" }} {{ tokens 9 }}`, "3 3"},
	{"trim", "Removes leading and trailing white space.", `{{ trim "  a b " }}|`, "a b|"},
	{"trimPrefix", "Removes the prefix from the string (last), if there.", `{{ trimPrefix "v" "v1.2" }}`, "1.2"},
	{"trimSuffix", "Removes the suffix from the string (last), if there.", `{{ trimSuffix ".md" "SOUL.md" }}`, "SOUL"},
	{"trunc", "Keeps the first n bytes of a string, or with n negative the last -n.", `{{ trunc 3 "hello" }} {{ trunc -2 "hello" }}`, "hel lo"},
	{"until", "Returns the list 0, 1, … n-1.", `{{ range until 3 }}{{ . }}{{ end }}`, "012"},
	{"upper", "Uppercases a string.", `{{ upper "hello" }}`, "HELLO"},
	{"urlquery", "text/template's urlquery, bounded.", `{{ urlquery "a b&c" }}`, "a+b%26c"},
	{"values", "Returns a dict's values in the order of its sorted keys.", `{{ values (dict "b" 2 "a" 1) | join "," }}`, "1,2"},
	{"xml", "Escapes & < > \" ' for XML text and attributes; invalid UTF-8 and characters XML 1.0 forbids become U+FFFD.",
		`{{ xml "Tom & \"Jerry\" <3" }}`, "Tom &amp; &quot;Jerry&quot; &lt;3"},
}
