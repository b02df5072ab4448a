// Command render renders an agent's system prompt from a template pack.
//
// Usage:
//
//	render [flags]                    render a prompt to stdout (or -o FILE, written atomically)
//	render lint  [-pack DIR]          validate a pack; exit 1 on any error
//	render eject DIR [FILE…]          write the built-in pack, or only the FILEs named
//	                                  (sections/safety.md.tmpl), to DIR (refuses a non-empty DIR)
//	render report [list|detail|json]  the context report for the same flags as a render
//	render report html [-o FILE]      the context report as one self-contained web page
//	render explain                    every section of the pack: rendered, or why not
//	render diff [flags] A B           render requests A and B; per layer, is the stable prefix
//	                                  byte-identical, and are the tools defined alike? exit 0
//	                                  when all are, 1 when not, 2 when a request cannot be rendered
//	render diff -pack-b DIR [REQUEST…] render the requests (default: the examples) with
//	                                  -pack-a (default builtin) and DIR: per request, the
//	                                  sections that changed, the stable prefix, the size change
//	render snapshots gen|check        write or verify the golden snapshots of the project the
//	                                  current folder is in (-dir DIR, -pack DIR); check exits
//	                                  1 when one is out of date, 2 when it cannot check
//	render watch [flags]              render, then re-render after every change to the pack,
//	                                  workspace, request or config: a unified diff against the
//	                                  previous prompt and a status line; errors keep watching;
//	                                  Ctrl-C or SIGTERM exits 0 at once, even
//	                                  in the middle of a render
//	render serve [flags]              answer JSON requests on stdin, one a line, with one JSON
//	                                  line each on stdout, from one warm engine; pack, config
//	                                  and workspace edits show on the next request
//	render version                    print the version (also render -version)
//	render help [COMMAND]             print the overview, or a command's synopsis and flags
//	                                  (also render COMMAND -h)
//
// Flags may come before or after a command's arguments
// ("render diff A B -json"); after "--" everything is an argument.
//
// Flags of a render:
//
//	-pack DIR         user pack overlaying the built-in one, file by file
//	-workspace DIR    read the agent's workspace files from DIR (read-only)
//	-request FILE     request, TOML or JSON ("-" reads stdin)
//	-config FILE      agent config (TOML)
//	-agent ID         agent id in [[agents.list]] (needs -config)
//	-mode M           full, minimal or none (overrides the request)
//	-harness NAME     harness from the manifest (overrides the request)
//	-state FILE       where seen truncation warnings are kept ("once" mode)
//	-hook CMD         agent:bootstrap hook: event JSON on stdin, file list on stdout
//	-bundled-skills DIR  a bundled skills root (skills.allowBundled applies to it)
//	-format F         text (default), json, anthropic (a Messages request body)
//	                  or openai (a Responses request body); report, diff and
//	                  explain take -format text or json
//	-model NAME       anthropic, openai: the body's model (default: runtime.model)
//	-max-tokens N     anthropic: max_tokens (default 8192); openai: max_output_tokens (16 or more)
//	-message TEXT     anthropic, openai: add one user message to the body
//	-boundary=false   leave the cache boundary marker out of text output (text only)
//	-o FILE           write to FILE instead of stdout; nothing is written on failure,
//	                  and a FILE without write permission is refused; only a regular
//	                  file (a symlink's target) or a new name: a device, pipe, socket
//	                  or directory is refused
//	-tokenizer T      report, explain and diff -pack-b: estimate (ceil(chars/4), default),
//	                  o200k or cl100k
//	-set KEY=VALUE    override one request key, dotted (channel.id=x), checked as in a
//	                  request file; repeatable (also on report, explain, diff and watch)
//
// Exit status: 0 ok, 1 render or validation failure (or an internal error),
// 2 usage error, or a Go runtime fatal error (with "fatal error:" and a
// stack trace; no pack or request should reach one). Errors print one
// line first, "render: file:line:col: message"; a pack with several
// problems prints one line for each. Errors in a file of a -pack
// directory name it as DIR/sections/….
//
// With no -workspace the render still works: workspace files are simply
// not injected.
//
// -workspace DIR says only where the files are read from. The prompt (its
// working directory, file headings, skill locations and missing-file
// markers) and the report show the agent's own workspace path: the
// request's [workspace] path, else the config's workspace for the agent,
// else DIR made absolute. So a request that names its path renders the
// same bytes from any copy of the workspace. The -hook command gets that
// path as "workspace" and DIR as "dir".
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
