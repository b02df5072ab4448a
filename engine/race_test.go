//go:build race

package engine_test

// raceEnabled reports a -race build, where the load test does less work.
const raceEnabled = true
