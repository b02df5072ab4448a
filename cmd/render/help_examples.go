package main

import (
	"fmt"
	"io"
)

// commandExamples are the command lines `render help CMD` ends with, run
// from the repository's root (examples/ is its examples folder).
var commandExamples = map[string][]string{
	"render": {
		"render -workspace examples/workspace -request examples/requests/direct.toml",
		"render -request examples/requests/group.toml -set date=2026-12-01T08:00:00Z -set channel.id=discord",
		"render -request examples/requests/direct.toml -format anthropic -message Hello -o body.json",
	},
	"lint": {
		"render lint",
		"render lint -pack mypack",
	},
	"eject": {
		"render eject mypack",
		"render eject mypack sections/safety.md.tmpl",
	},
	"report": {
		"render report -workspace examples/workspace -request examples/requests/direct.toml",
		"render report detail -tokenizer o200k -request examples/requests/codex.toml",
		"render report -format json -request examples/requests/direct.toml",
		"render report html -o report.html -workspace examples/workspace -request examples/requests/direct.toml",
	},
	"explain": {
		"render explain -request examples/requests/subagent.toml",
		"render explain -format json -request examples/requests/direct.toml -set chat_type=group",
	},
	"diff": {
		"render diff examples/requests/group.toml examples/requests/group-next.toml",
		"render diff -format json examples/requests/direct.toml examples/requests/group.toml",
		"render diff -pack-b mypack",
		"render diff -pack-a builtin -pack-b mypack -workspace examples/workspace examples/requests/direct.toml",
	},
	"snapshots": {
		"render snapshots check",
		"render snapshots gen",
	},
	"watch": {
		"render watch -pack mypack -workspace examples/workspace -request examples/requests/direct.toml",
	},
	"serve": {
		"render serve -workspace examples/workspace -config examples/agents.toml",
	},
	"version": {
		"render version",
	},
	"help": {
		"render help",
		"render help diff",
	},
}

// printExamples ends a command's help.
func printExamples(w io.Writer, name string) {
	fmt.Fprintln(w, "Examples:")
	for _, ex := range commandExamples[name] {
		fmt.Fprintf(w, "  %s\n", ex)
	}
}
