package engine_test

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/sysprompt/sysprompt/engine"
)

// Requests as large and as deep as the parser accepts, shaped to cost it
// the most, parse (or are refused) in bounded memory. The times are
// logged, not asserted; run with -v to see them.
func TestHostileRequestsStayBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: parses requests as large as the parser accepts")
	}
	// fill repeats unit, with %d replaced by a counter so that no key is
	// given twice, up to the size limit.
	fill := func(limit int, prefix, unit, suffix string) string {
		var b strings.Builder
		b.WriteString(prefix)
		for i := 0; ; i++ {
			u := strings.ReplaceAll(unit, "%d", strconv.Itoa(i))
			if b.Len()+len(u)+len(suffix) > limit {
				break
			}
			b.WriteString(u)
		}
		b.WriteString(suffix)
		return b.String()
	}
	// Keys as deep as the limit allows: the request's own nesting (tools,
	// the tool, schema) plus the rest in the key.
	deepKey := "k%d." + strings.Repeat("k.", engine.MaxDepth-5) + "k"
	deepJSON, deepTOML := engine.MaxDepth-6, engine.MaxDepth-4
	cases := []struct{ name, src string }{
		{"json: 1 MiB of numbers in a schema", fill(engine.MaxRequestBytes, `{"tools":[{"name":"x","schema":{"enum":[`, `1,`, `1]}}]}`)},
		{"json: 1 MiB of arrays as deep as allowed", fill(engine.MaxRequestBytes, `{"tools":[{"name":"x","schema":{"a":[`, strings.Repeat("[", deepJSON)+strings.Repeat("]", deepJSON)+",", `1]}}]}`)},
		{"json: 1 MiB of short keys", fill(engine.MaxRequestBytes, `{"tools":[{"name":"x","schema":{`, `"k%d":1,`, `"z":1}}]}`)},
		{"toml: 256 KiB of dotted keys as deep as allowed", fill(engine.MaxTOMLRequestBytes, "[[tools]]\nname = \"x\"\n[tools.schema]\n", deepKey+" = 1\n", "")},
		{"toml: 256 KiB of table headers as deep as allowed", fill(engine.MaxTOMLRequestBytes, "[[tools]]\nname = \"x\"\n", "[tools.schema.k%d."+strings.Repeat("k.", engine.MaxDepth-5)+"k]\nk = 1\n", "")},
		{"toml: 256 KiB of inline tables as deep as allowed", fill(engine.MaxTOMLRequestBytes, "[[tools]]\nname = \"x\"\n[tools.schema]\n", "a%d = "+strings.Repeat("{b = ", deepTOML)+"1"+strings.Repeat("}", deepTOML)+"\n", "")},
	}
	var worst time.Duration
	var most uint64
	for _, tc := range cases {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := engine.ParseRequest("r", []byte(tc.src))
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %v, %.1f MiB allocated; %v", tc.name, took.Round(time.Millisecond), mib(alloc), err)
		assert.NoError(t, err, "the case should be as large and deep as a request may be")
		worst, most = max(worst, took), max(most, alloc)
		assert.Less(t, alloc, uint64(256<<20), tc.name)
	}
	t.Logf("worst: %v; most allocated: %.1f MiB", worst.Round(time.Millisecond), mib(most))
}
