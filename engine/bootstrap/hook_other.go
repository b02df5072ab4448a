//go:build !unix

package bootstrap

import "os/exec"

// killGroup leaves cancellation to exec's default (kill the shell only).
func killGroup(*exec.Cmd) {}
