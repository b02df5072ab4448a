// Command render renders an agent's system prompt from a template pack.
//
// Usage:
//
//	render [flags]                    render a prompt to stdout (or -o FILE, written atomically)
//	render lint  [-pack DIR]          validate a pack; exit 1 on any error
//	render eject DIR                  write the built-in pack to DIR (refuses a non-empty DIR)
//	render report [list|detail|json]  the context report for the same flags as a render
//	render explain                    every section of the pack: rendered, or why not
//	render diff [flags] A B           render requests A and B; per layer, is the stable prefix
//	                                  byte-identical? exit 0 when all are, 1 when one differs
//	render snapshots gen|check        write or verify golden/snapshots (-dir DIR, -pack DIR)
//	render help                       print the usage
//	render watch [flags]              render, then re-render after every change to the pack,
//	                                  workspace, request or config: a unified diff against the
//	                                  previous prompt and a status line; errors keep watching;
//	                                  Ctrl-C or SIGTERM exits 0 at once, even
//	                                  in the middle of a render
//	render serve [flags]              answer JSON requests on stdin, one a line, with one JSON
//	                                  line each on stdout, from one warm engine; pack, config
//	                                  and workspace edits show on the next request
//
// Flags of a render:
//
//	-pack DIR         user pack overlaying the built-in one, file by file
//	-workspace DIR    agent workspace to read bootstrap files from (read-only)
//	-request FILE     request, TOML or JSON ("-" reads stdin)
//	-config FILE      agent config (TOML)
//	-agent ID         agent id in [[agents.list]]
//	-mode M           full, minimal or none (overrides the request)
//	-harness NAME     harness from the manifest (overrides the request)
//	-state FILE       where seen truncation warnings are kept ("once" mode)
//	-hook CMD         agent:bootstrap hook: event JSON on stdin, file list on stdout
//	-bundled-skills DIR  a bundled skills root (skills.allowBundled applies to it)
//	-format F         text (default), json, or anthropic
//	-boundary=false   leave the cache boundary marker out of text output
//	-o FILE           write to FILE instead of stdout; nothing is written on failure,
//	                  and a FILE without write permission is refused
//	-tokenizer T      report and explain: estimate (ceil(chars/4), default), o200k or cl100k
//
// Exit status: 0 ok, 1 render or validation failure (or an internal error),
// 2 usage error. Errors print one line first, "render: file:line:col:
// message"; a pack with several problems prints one line for each. Errors
// in a file of a -pack directory name it as DIR/sections/….
//
// With no -workspace the render still works: workspace files are simply
// not injected.
//
// Skills are searched, highest precedence first, in the workspace's
// skills/ and .agents/skills, ~/.agents/skills ($HOME is read here, by
// the CLI, and handed to the engine), the config's skills.managedDir, the
// -bundled-skills DIR, then the config's skills.load.extraDirs. On a name
// clash the earlier folder wins; report detail names the winner. A -state file that is empty, corrupt or cannot be written
// costs a "render: warning: …" line on stderr, never the prompt.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
