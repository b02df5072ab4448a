package strict

import (
	"encoding/json"
	"strings"
)

// Position is the 1-based line and column (in bytes) of a byte offset
// in src.
func Position(src []byte, offset int) Pos {
	line, col := position(src, int64(offset))
	return Pos{Line: line, Col: col}
}

// NextJSONToken is the offset in src of the token dec reads next, past
// white space and separators: where a key about to be read is written.
func NextJSONToken(dec *json.Decoder, src []byte) int {
	i := int(dec.InputOffset())
	for i < len(src) && strings.IndexByte(" \t\r\n,:", src[i]) >= 0 {
		i++
	}
	return i
}
