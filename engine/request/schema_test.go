package request_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/request"
)

// TOML's local date, time and date-time have no zone; the decoder gives
// them the machine's, so a schema holding one came out as
// "2026-01-01T00:00:00+09:00" in Tokyo and "...Z" in London, and the
// provider bodies and the prompt_cache_key changed with TZ. Each is kept
// as its TOML text; a date-time with an offset is RFC 3339, as it was.
func TestSchemaTOMLTimesKeepTheirText(t *testing.T) {
	r, err := request.Parse("r.toml", []byte(`[[tools]]
name = "t"
schema = { type = "object", properties = { d = { default = 2026-01-01, enum = [07:30:00, 1979-05-27T07:32:00.25, 1979-05-27T07:32:00-07:00] } }, x = [{ at = 00:00:01 }] }
`))
	require.NoError(t, err)
	require.Len(t, r.Tools, 1)
	assert.JSONEq(t, `{"type": "object", "properties": {"d": {"default": "2026-01-01",
		"enum": ["07:30:00", "1979-05-27T07:32:00.25", "1979-05-27T07:32:00-07:00"]}}, "x": [{"at": "00:00:01"}]}`, string(r.Tools[0].Schema))
}
