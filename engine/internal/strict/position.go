package strict

// Position is the 1-based line and column (in bytes) of a byte offset
// in src.
func Position(src []byte, offset int) Pos {
	line, col := position(src, int64(offset))
	return Pos{Line: line, Col: col}
}
