//go:build !unix

package host

import "os/exec"

// inGroup leaves cancellation to exec's default: kill the shell only.
func inGroup(*exec.Cmd) {}

// killGroup has no group to kill.
func killGroup(*exec.Cmd) error { return nil }
