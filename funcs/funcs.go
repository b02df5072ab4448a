// Package funcs builds the template function map that every section template of a
// sysprompt pack is parsed with.
//
// The map is sprig's hermetic text function map minus a deny list (functions that read
// the clock, the environment, the network or the host OS, draw randomness, mutate their
// arguments or turn errors into output), plus sysprompt's own functions: required, fail,
// indent, nindent, xml, sha256, tokens, keys, values, sortAlpha and include. Denied
// functions are absent, so a template that calls one fails to parse with
// "function ... not defined"; [DeniedReason] says why.
//
// include needs the template set it runs in and a per-render depth counter, so [New]
// holds only a stand-in that fails when called; the engine binds the real one per render
// clone with [Meter.Include] (or, unmetered, [NewIncluder]).
//
// A [Meter] holds one render to its [Limits]: its copy of the map weighs every call and
// refuses oversized results before building them, it is the writer sections execute into,
// and it counts the steps a compiled pack reports through [StepFunc], [EnterFunc] and
// [LeaveFunc].
package funcs

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"text/template"

	"github.com/Masterminds/sprig/v3"
)

type denial struct{ name, reason string }

// denied lists every sprig function the map leaves out, sorted by name. Functions
// sprig's hermetic map already drops are listed too, so the policy lives in one place
// and survives a sprig upgrade that changes what "hermetic" means.
var denied = []denial{
	{"ago", "reads the clock"},
	{"b32dec", "returns the decoder's error text as output on bad input"},
	{"b64dec", "returns the decoder's error text as output on bad input"},
	{"bcrypt", "draws a random salt"},
	{"buildCustomCert", "X.509 helper with no place in a prompt"},
	{"date", "formats in the host's local zone and renders the current time for a missing value"},
	{"dateInZone", "renders the current time for a missing value and reads the host's zone database, falling back to UTC silently"},
	{"dateModify", "returns the date unchanged on a bad duration; use mustDateModify"},
	{"date_in_zone", "renders the current time for a missing value and reads the host's zone database, falling back to UTC silently"},
	{"date_modify", "returns the date unchanged on a bad duration; use mustDateModify"},
	{"decryptAES", "crypto helper with no place in a prompt"},
	{"deepCopy", "copies whole values, the section data included, though nothing in a template can change a value; a copy is never needed"},
	{"derivePassword", "secret-derivation helper with no place in a prompt"},
	{"durationRound", "reads the clock when given a time"},
	{"encryptAES", "draws a random IV"},
	{"env", "reads the process environment"},
	{"expandenv", "reads the process environment"},
	{"fromJson", "returns nil on bad JSON; use mustFromJson"},
	{"genCA", "draws randomness and reads the clock"},
	{"genCAWithKey", "draws randomness and reads the clock"},
	{"genPrivateKey", "draws randomness"},
	{"genSelfSignedCert", "draws randomness and reads the clock"},
	{"genSelfSignedCertWithKey", "draws randomness and reads the clock"},
	{"genSignedCert", "draws randomness and reads the clock"},
	{"genSignedCertWithKey", "draws randomness and reads the clock"},
	{"getHostByName", "queries DNS"},
	{"htmlDate", "formats in the host's local zone and renders the current time for a missing value"},
	{"htmlDateInZone", "renders the current time for a missing value and reads the host's zone database"},
	{"htpasswd", "draws a random bcrypt salt"},
	{"merge", "mutates its first map in place (a data race on shared request data) and returns \"\" on error"},
	{"mergeOverwrite", "mutates its first map in place (a data race on shared request data) and returns \"\" on error"},
	{"mustDeepCopy", "copies whole values, the section data included, though nothing in a template can change a value; a copy is never needed"},
	{"mustMerge", "mutates its first map in place (a data race on shared request data)"},
	{"mustMergeOverwrite", "mutates its first map in place (a data race on shared request data)"},
	{"mustToDate", "parses in the host's local zone"},
	{"now", "reads the clock"},
	{"osBase", "follows the host OS path rules; use base"},
	{"osClean", "follows the host OS path rules; use clean"},
	{"osDir", "follows the host OS path rules; use dir"},
	{"osExt", "follows the host OS path rules; use ext"},
	{"osIsAbs", "follows the host OS path rules; use isAbs"},
	{"randAlpha", "draws randomness"},
	{"randAlphaNum", "draws randomness"},
	{"randAscii", "draws randomness"},
	{"randBytes", "draws randomness"},
	{"randInt", "draws randomness"},
	{"randNumeric", "draws randomness"},
	{"set", "mutates its map in place (a data race on shared request data); build a new one with dict"},
	{"shuffle", "draws randomness"},
	{"toDate", "parses in the host's local zone"},
	{"toJson", "returns \"\" on error; use mustToJson"},
	{"toPrettyJson", "returns \"\" on error; use mustToPrettyJson"},
	{"toRawJson", "returns \"\" on error; use mustToRawJson"},
	{"unset", "mutates its map in place (a data race on shared request data); use omit"},
	{"uuidv4", "draws randomness"},
}

// DeniedReason reports whether name is a sprig function this package leaves out, and why.
func DeniedReason(name string) (reason string, ok bool) {
	i, found := slices.BinarySearchFunc(denied, name, func(d denial, name string) int {
		return strings.Compare(d.name, name)
	})
	if !found {
		return "", false
	}
	return denied[i].reason, true
}

// base is built once and never modified; New hands out copies.
var base = sync.OnceValue(func() template.FuncMap {
	m := sprig.HermeticTxtFuncMap()
	for _, d := range denied {
		delete(m, d.name)
	}
	maps.Copy(m, own())
	return m
})

// New returns a fresh copy of the function map; the caller may add to it or change it.
// Build it once per compiled pack, not per render: see BenchmarkNew.
func New() template.FuncMap {
	return maps.Clone(base())
}

// Names returns the names of every function in the map, sorted.
func Names() []string {
	return slices.Sorted(maps.Keys(base()))
}
