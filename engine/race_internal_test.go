//go:build race

package engine

// raceBuild reports a -race build, where the memo tests do less work.
const raceBuild = true
