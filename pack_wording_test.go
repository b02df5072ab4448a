package sysprompt_test

// Tests of the built-in pack's wording and gating: every section
// shows when the request calls for it and not otherwise, the modes keep and
// drop the right sections, volatile facts never move the stable prefix, and
// the shipped example requests read cleanly. They live beside the pack and
// use only the engine's exported API, as any caller of the pack would.

import (
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt"
	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/internal/packtest"
)

// toolsNamed builds a tool list from bare names.
func toolsNamed(names ...string) []engine.Tool {
	out := make([]engine.Tool, len(names))
	for i, n := range names {
		out[i] = engine.Tool{Name: n}
	}
	return out
}

// holds reports whether text holds want: a single heading line ("#…")
// as a whole line, anything else as a substring.
func holds(text, want string) bool {
	if strings.HasPrefix(want, "#") && !strings.Contains(want, "\n") {
		return slices.Contains(strings.Split(text, "\n"), want)
	}
	return strings.Contains(text, want)
}

// gatingRequest is a full-mode direct chat turn that turns on nothing
// optional: each gating case adds what its section needs.
func gatingRequest() engine.Request {
	return engine.Request{
		Mode:      engine.ModeFull,
		Workspace: engine.Workspace{Path: "/ws"},
		ChatType:  "direct",
		Channel:   engine.Channel{ID: "telegram", Delivery: "automatic"},
	}
}

func withSkill(files map[string]string) map[string]string {
	files["skills/x/SKILL.md"] = "---\nname: x\ndescription: Do x.\n---\nSteps for x.\n"
	return files
}

// withSetup adds a BOOTSTRAP.md with content: first-run setup is pending.
func withSetup(files map[string]string) map[string]string {
	files["BOOTSTRAP.md"] = "# First run\nAsk who I am.\n"
	return files
}

// withConfig parses an agent config into an engine option.
func withConfig(t *testing.T, text string) engine.Option {
	t.Helper()
	cfg, err := config.Parse("agents.toml", []byte(text))
	require.NoError(t, err)
	return engine.WithConfig(cfg)
}

type gatingCase struct {
	name   string
	edit   func(r *engine.Request) // changes to gatingRequest; nil for none
	config string                  // agent config; "" for none
	files  map[string]string       // the workspace; nil means smallWorkspace
	shows  []string                // must appear (see holds)
	hides  []string                // must not appear
}

const (
	planToolOn       = "[tools.experimental]\nplanTool = true\n"
	delegationPrefer = "[agents.defaults.subagents]\ndelegationMode = \"prefer\"\n"
	heartbeatsOff    = "[agents.defaults.heartbeat]\nenabled = false\n"
)

func inMode(m engine.Mode) func(*engine.Request) { return func(r *engine.Request) { r.Mode = m } }

func withTools(names ...string) func(*engine.Request) {
	return func(r *engine.Request) { r.Tools = toolsNamed(names...) }
}

func withOverride(key, text string) engine.Contribution {
	return engine.Contribution{SectionOverrides: map[string]string{key: text}}
}

func inChat(chatType, delivery string) func(*engine.Request) {
	return func(r *engine.Request) { r.ChatType, r.Channel.Delivery = chatType, delivery }
}

// allOf applies edits in order.
func allOf(edits ...func(*engine.Request)) func(*engine.Request) {
	return func(r *engine.Request) {
		for _, e := range edits {
			e(r)
		}
	}
}

// The two ways the exec approval rule ends, and the line both keep.
const (
	approvalsNative      = "the request appears in this chat as an approval card; point the user to it first"
	approvalsCopy        = "its tool result contains the `/approve` command for it; give the user that command exactly as written"
	approvalsNeverInvent = "never make up an approval id"
)

// gatingCases are the rules, each with a request where the
// section (or line) must show and one where it must not.
var gatingCases = []gatingCase{
	// Tooling: the policy-filtered list and its long-running-work lines.
	{name: "Tooling/list in table order, unknown tools after with their first line",
		edit: func(r *engine.Request) {
			r.Tools = []engine.Tool{{Name: "zeta", Description: "Zeta things.\nMore detail."}, {Name: "exec"}, {Name: "Alpha", Description: "Alpha things."}, {Name: "read"}}
		},
		shows: []string{"## Tooling", "- read: Read a file's contents\n- exec: Run a shell command; long commands can continue in the background\n- Alpha: Alpha things.\n- zeta: Zeta things.\n"},
		hides: []string{"More detail."}},
	{name: "Tooling/absent in minimal without tools", edit: inMode(engine.ModeMinimal), hides: []string{"## Tooling"}},
	{name: "Tooling/full without tools says so", shows: []string{"## Tooling", "No tool list was supplied"}, hides: []string{"Long-running work:"}},
	{name: "Tooling/no long-running lines for plain tools", edit: withTools("read", "write"),
		hides: []string{"Long-running work:", "only for commands that start now", "carry on until that report arrives", "sleep loops", "in a loop just to wait"}},
	{name: "Tooling/update_plan with planTool and the tool", edit: withTools("read", "update_plan"), config: planToolOn,
		shows: []string{"Long-running work:", "- `update_plan` pays off once a job has several real steps"}},
	{name: "Tooling/update_plan without planTool", edit: withTools("read", "update_plan"),
		hides: []string{"Use `update_plan` only", "Long-running work:"}},
	{name: "Tooling/planTool without the tool", edit: withTools("read"), config: planToolOn,
		hides: []string{"update_plan"}},
	{name: "Tooling/cron line with cron, name as given", edit: withTools("CRON"),
		shows: []string{"- Follow-ups, reminders and repeating jobs belong in `CRON`; do not keep a turn alive with `sleep`"}},
	{name: "Tooling/no cron line without cron", edit: withTools("exec"), hides: []string{"Anything due later"}},
	{name: "Tooling/exec lines", edit: withTools("exec"),
		shows: []string{"- `exec` is for work that should begin now", "carry on until that report arrives"},
		hides: []string{"read a running command's logs"}},
	{name: "Tooling/process lines", edit: withTools("process"),
		shows: []string{"- `process` is how you look in on a running command", "- `process` is how you look in on a running command"},
		hides: []string{"carry on until that report arrives"}},
	{name: "Tooling/exec and process", edit: withTools("exec", "process"),
		shows: []string{"- `exec` is for work that should begin now"}},
	{name: "Tooling/sessions_spawn line", edit: withTools("sessions_spawn"),
		shows: []string{"- Large or slow jobs can go to a sub-agent started with `sessions_spawn`"}},
	{name: "Tooling/no sessions_spawn line without it", edit: withTools("exec"), hides: []string{"Hand large or slow tasks"}},
	{name: "Tooling/no-poll line with subagents and sessions_list", edit: withTools("subagents", "sessions_list"),
		shows: []string{"checking `subagents list` or `sessions_list` over and over"}},
	{name: "Tooling/no-poll line with sessions_list alone", edit: withTools("sessions_list"),
		shows: []string{"checking `sessions_list` over and over"}},
	{name: "Tooling/no no-poll line without either", edit: withTools("sessions_spawn"), hides: []string{"in a loop just to wait"}},

	// Provider slots and overridable sections.
	{name: "Interaction style/with an override",
		edit: func(r *engine.Request) {
			r.Contributions = []engine.Contribution{withOverride("interaction_style", "## Interaction Style\nBe warm.")}
		},
		shows: []string{"## Interaction Style", "Be warm."}},
	{name: "Interaction style/empty without one", hides: []string{"## Interaction Style"}},
	{name: "Tool Call Style/built in", shows: []string{"## Tool Call Style", "never run it yourself"}},
	{name: "Tool Call Style/replaced by an override",
		edit: func(r *engine.Request) {
			r.Contributions = []engine.Contribution{withOverride("tool_call_style", "## Calls\nCall quietly.")}
		},
		shows: []string{"## Calls", "Call quietly."}, hides: []string{"## Tool Call Style"}},
	{name: "Execution Bias/full", shows: []string{"## Execution Bias"}},
	{name: "Execution Bias/not in minimal", edit: inMode(engine.ModeMinimal), hides: []string{"## Execution Bias"}},
	{name: "Execution Bias/minimal when overridden",
		edit: allOf(inMode(engine.ModeMinimal), func(r *engine.Request) {
			r.Contributions = []engine.Contribution{withOverride("execution_bias", "## Bias\nAct now.")}
		}),
		shows: []string{"## Bias", "Act now."}, hides: []string{"## Execution Bias"}},
	{name: "Provider prefix/present",
		edit: func(r *engine.Request) {
			r.Contributions = []engine.Contribution{{StablePrefix: "## Contract\nBe exact."}}
		},
		shows: []string{"## Contract\nBe exact.\n"}},
	{name: "Provider prefix/absent", hides: []string{"## Contract"}},

	// Safety, Skills, Control, Self-Update.
	{name: "Safety/full", shows: []string{"## Safety"}},
	{name: "Safety/minimal", edit: inMode(engine.ModeMinimal), shows: []string{"## Safety"}},
	{name: "Safety/not in none", edit: inMode(engine.ModeNone), hides: []string{"## Safety"}},
	{name: "Skills/with an eligible skill", files: withSkill(smallWorkspace()), edit: withTools("read"),
		shows: []string{"## Skills", "<name>x</name>", "<location>/ws/skills/x/SKILL.md</location>", "with `read` and follow it"}},
	{name: "Skills/minimal with an eligible skill", files: withSkill(smallWorkspace()), edit: allOf(inMode(engine.ModeMinimal), withTools("read")),
		shows: []string{"## Skills"}},
	{name: "Skills/no read tool to open one with", files: withSkill(smallWorkspace()), edit: withTools("exec", "web_search"),
		hides: []string{"## Skills", "<available_skills>", "with `read`"}},
	{name: "Skills/none in the workspace", hides: []string{"## Skills", "<available_skills>"}},
	{name: "Skills/allowlist empties the catalog", files: withSkill(smallWorkspace()), config: "[agents.defaults]\nskills = []\n",
		hides: []string{"## Skills", "<available_skills>"}},
	{name: "Control/full with gateway", edit: withTools("gateway"),
		shows: []string{"## OpenClaw Control", "Use the `gateway` tool", "Do not invent `openclaw` commands"}},
	{name: "Control/full without gateway",
		shows: []string{"## OpenClaw Control", "You cannot change OpenClaw's configuration"}, hides: []string{"Use the `gateway` tool"}},
	{name: "Control/the openclaw tool takes changes, gateway keeps the configuration", edit: withTools("openclaw", "gateway"),
		shows: []string{"channels, plugins, agents and models through the `openclaw` tool; configuration itself goes through `gateway`, as Self-Update below says.",
			"## OpenClaw Self-Update", "`config.patch`"},
		hides: []string{"Use the `gateway` tool", "configuration, channels"}},
	{name: "Control/the openclaw tool alone", edit: withTools("openclaw"),
		shows: []string{"Route restarts and changes to OpenClaw's configuration, channels, plugins, agents and models through the `openclaw` tool."},
		hides: []string{"## OpenClaw Self-Update"}},
	{name: "Control/never update through the shell, with gateway", edit: withTools("gateway", "exec"),
		shows: []string{"Never install, update or restart OpenClaw through a shell command.", "`update.run` only when the user explicitly asks",
			"on another machine, do it there over SSH"}},
	{name: "Control/never update through the shell, without gateway", edit: withTools("read"),
		shows: []string{"Never install, update or restart OpenClaw through a shell command.", "point them to `/update`, the Control UI or `openclaw update`"},
		hides: []string{"update.run", "over SSH"}},
	{name: "Safety/no secrets in chat without openclaw or gateway", edit: withTools("read", "exec"),
		shows: []string{"Never ask for passwords, API keys or tokens in chat.", "the terminal command that sets it"}},
	{name: "Safety/gateway handles credentials", edit: withTools("read", "gateway"), hides: []string{"Never ask for passwords"}},
	{name: "Safety/openclaw handles credentials", edit: withTools("read", "openclaw"), hides: []string{"Never ask for passwords"}},
	{name: "Control/minimal", edit: inMode(engine.ModeMinimal), shows: []string{"## OpenClaw Control"}},
	{name: "Control/not in none", edit: inMode(engine.ModeNone), hides: []string{"## OpenClaw Control"}},
	{name: "Self-Update/with gateway", edit: withTools("gateway"),
		shows: []string{"## OpenClaw Self-Update", "`config.schema.lookup`", "`config.patch`", "`config.apply`",
			"`update.run` only when the user explicitly asks", "`tools.exec.ask`, `tools.exec.security`"}},
	{name: "Self-Update/without gateway", edit: withTools("read"), hides: []string{"## OpenClaw Self-Update"}},
	{name: "Self-Update/not in minimal", edit: allOf(inMode(engine.ModeMinimal), withTools("gateway")), hides: []string{"## OpenClaw Self-Update"}},

	// Memory Recall and Model Aliases.
	{name: "Memory Recall/memory_search and memory_get", edit: withTools("memory_search", "memory_get"),
		shows: []string{"## Memory Recall", "search memory with `memory_search`, then read the lines you need with `memory_get`",
			"When it helps the user check a fact from memory, add `Source: <path#line>`."}},
	{name: "Memory Recall/memory_get alone", edit: withTools("memory_get"),
		shows: []string{"## Memory Recall", "read the relevant memory files with `memory_get`"}},
	{name: "Memory Recall/no memory tools", edit: withTools("read"), hides: []string{"## Memory Recall"}},
	{name: "Memory Recall/not in minimal", edit: allOf(inMode(engine.ModeMinimal), withTools("memory_search")), hides: []string{"## Memory Recall"}},
	{name: "Memory Recall/citations off", edit: withTools("memory_search"), config: "[memory]\ncitations = \"off\"\n",
		shows: []string{"## Memory Recall", "Do not mention memory file paths or line numbers"}, hides: []string{"Source: <path#line>"}},
	{name: "Memory Recall/citations on", edit: withTools("memory_search"), config: "[memory]\ncitations = \"on\"\n",
		shows: []string{"Cite each fact you take from memory as `Source: <path#line>`."}, hides: []string{"Do not mention memory file paths"}},
	{name: "Model Aliases/with aliases",
		edit: func(r *engine.Request) {
			r.ModelAliases = map[string]string{"sonnet": "anthropic/claude-sonnet-4-5", "haiku": "anthropic/claude-haiku-4-5"}
		},
		shows: []string{"## Model Aliases", "- haiku: anthropic/claude-haiku-4-5\n- sonnet: anthropic/claude-sonnet-4-5"}},
	{name: "Model Aliases/without aliases", hides: []string{"## Model Aliases"}},
	{name: "Model Aliases/not in minimal",
		edit:  allOf(inMode(engine.ModeMinimal), func(r *engine.Request) { r.ModelAliases = map[string]string{"sonnet": "a/b"} }),
		hides: []string{"## Model Aliases"}},

	// Workspace, Documentation, Sandbox.
	{name: "Workspace/with a path", shows: []string{"## Workspace", "Working directory: /ws"}},
	{name: "Workspace/without a path", edit: func(r *engine.Request) { r.Workspace.Path = "" }, hides: []string{"## Workspace"}},
	{name: "Documentation/public docs by default",
		shows: []string{"## Documentation", "Docs: https://docs.openclaw.ai", "Source: https://github.com/openclaw/openclaw", "`openclaw status` is the first diagnostic step"}},
	{name: "Documentation/local docs path", edit: func(r *engine.Request) { r.Docs = engine.Docs{Path: "/opt/docs", Source: "/opt/src"} },
		shows: []string{"Docs: /opt/docs (online: https://docs.openclaw.ai)", "Source: /opt/src"}},
	{name: "Documentation/not in minimal", edit: inMode(engine.ModeMinimal), hides: []string{"## Documentation"}},
	{name: "Sandbox/enabled with elevated exec",
		edit: func(r *engine.Request) {
			r.Tools = toolsNamed("exec")
			r.Sandbox = engine.Sandbox{Enabled: true, Workdir: "/sandbox", WorkspaceAccess: "ro", Elevated: true}
		},
		shows: []string{"## Sandbox", "Sandbox working directory: /sandbox", "Workspace access from the sandbox: ro",
			"Elevated exec (running a command on the host, outside the sandbox) is available"}},
	{name: "Sandbox/enabled without elevated exec",
		edit: func(r *engine.Request) {
			r.Tools = toolsNamed("exec")
			r.Sandbox = engine.Sandbox{Enabled: true}
		},
		shows: []string{"## Sandbox", "Elevated exec is not available"}},
	{name: "Sandbox/no elevated line without exec",
		edit:  func(r *engine.Request) { r.Sandbox = engine.Sandbox{Enabled: true, Elevated: true} },
		shows: []string{"## Sandbox"}, hides: []string{"Elevated exec"}},
	{name: "Sandbox/disabled", edit: withTools("exec"), hides: []string{"## Sandbox", "Elevated exec"}},
	{name: "Sandbox/host mount source",
		edit: func(r *engine.Request) {
			r.Sandbox = engine.Sandbox{Enabled: true, MountSource: "/Users/ana/work", WorkspaceAccess: "rw"}
		},
		shows: []string{"Host folder mounted into the sandbox: /Users/ana/work\nWorkspace access from the sandbox: rw"}},
	{name: "Sandbox/full level allowed",
		edit: func(r *engine.Request) {
			r.Tools = toolsNamed("exec")
			r.Sandbox = engine.Sandbox{Enabled: true, Elevated: true, ElevatedFull: true}
		},
		shows: []string{"`/elevated on|off|ask|full`"}, hides: []string{"is not allowed here"}},
	{name: "Sandbox/full level not allowed",
		edit: func(r *engine.Request) {
			r.Tools = toolsNamed("exec")
			r.Sandbox = engine.Sandbox{Enabled: true, Elevated: true}
		},
		shows: []string{"`/elevated on|off|ask`.", "The `full` level, which skips exec approvals, is not allowed here."}},
	{name: "Elevated Exec/level in force",
		edit: func(r *engine.Request) {
			r.Tools = toolsNamed("exec")
			r.Sandbox = engine.Sandbox{Enabled: true, Elevated: true}
			r.ElevatedLevel = "ask"
		},
		shows: []string{"## Elevated Exec", "Current elevated level: ask. `exec` commands that ask for the host run there, after the usual exec approvals."}},
	{name: "Elevated Exec/full",
		edit: func(r *engine.Request) {
			r.Tools = toolsNamed("exec")
			r.Sandbox = engine.Sandbox{Enabled: true, Elevated: true, ElevatedFull: true}
			r.ElevatedLevel = "full"
		},
		shows: []string{"Current elevated level: full.", "without exec approvals"}},
	{name: "Elevated Exec/off",
		edit: func(r *engine.Request) {
			r.Tools = toolsNamed("exec")
			r.Sandbox = engine.Sandbox{Enabled: true, Elevated: true}
			r.ElevatedLevel = "off"
		},
		shows: []string{"Current elevated level: off. Every `exec` command runs inside the sandbox."}},
	{name: "Elevated Exec/no level given",
		edit: func(r *engine.Request) {
			r.Tools = toolsNamed("exec")
			r.Sandbox = engine.Sandbox{Enabled: true, Elevated: true}
		},
		hides: []string{"## Elevated Exec", "Current elevated level"}},
	{name: "Elevated Exec/not without exec",
		edit: func(r *engine.Request) {
			r.Sandbox = engine.Sandbox{Enabled: true, Elevated: true}
			r.ElevatedLevel = "on"
		},
		hides: []string{"## Elevated Exec"}},
	{name: "Elevated Exec/not without a sandbox",
		edit:  allOf(withTools("exec"), func(r *engine.Request) { r.ElevatedLevel = "on" }),
		hides: []string{"## Elevated Exec"}},

	// Current Date & Time: the zone, never a clock.
	{name: "Current Date & Time/zone from the request",
		edit:  func(r *engine.Request) { r.Timezone = "Europe/Lisbon"; r.Date = "2026-11-30T09:15:00Z" },
		shows: []string{"## Current Date & Time", "Time zone: Europe/Lisbon"},
		hides: []string{"2026", "09:15", "-hour format"}},
	{name: "Current Date & Time/zone from config", config: "[agents.defaults]\nuserTimezone = \"America/New_York\"\n",
		shows: []string{"## Current Date & Time", "Time zone: America/New_York"}},
	{name: "Current Date & Time/no zone", edit: func(r *engine.Request) { r.Date = "2026-11-30T09:15:00Z" },
		hides: []string{"## Current Date & Time"}},
	{name: "Current Date & Time/the zone only, whatever the time format", edit: func(r *engine.Request) { r.Timezone = "Europe/Lisbon" },
		config: "[agents.defaults]\ntimeFormat = \"24\"\n", shows: []string{"## Current Date & Time\nTime zone: Europe/Lisbon\n"}, hides: []string{"-hour", "am/pm"}},
	{name: "Current Date & Time/12-hour changes nothing", edit: func(r *engine.Request) { r.Timezone = "Europe/Lisbon" },
		config: "[agents.defaults]\ntimeFormat = \"12\"\n", hides: []string{"-hour", "am/pm"}},
	{name: "Current Date & Time/session_status for the clock",
		edit:  func(r *engine.Request) { r.Timezone = "Europe/Lisbon"; r.Tools = toolsNamed("session_status") },
		shows: []string{"call `session_status`"}},

	// Documentation: the docs, the two configuration pages, the community and the skills registry.
	{name: "Documentation/pointers", shows: []string{"## Documentation", "`docs/gateway/configuration.md` and `docs/gateway/configuration-reference.md`",
		"help each other at https://discord.com/invite/clawd", "New skills can be found at https://clawhub.ai"}},

	// Injected workspace files.
	{name: "Project Context/workspace files",
		shows: []string{"## Workspace Files (injected)", "# Project Context", "## /ws/SOUL.md", "Warm and direct."}},
	{name: "Project Context/no workspace", edit: func(r *engine.Request) { r.Workspace.Path = "" },
		hides: []string{"## Workspace Files (injected)", "# Project Context"}},
	{name: "Truncation notice/a file was cut",
		files:  map[string]string{"SOUL.md": strings.Repeat("soul ", 400)},
		config: "[agents.defaults]\nbootstrapMaxChars = 500\n",
		shows:  []string{"## Bootstrap Context Notice", "Cut short to fit the prompt: SOUL.md."}, hides: []string{"Left out"}},
	{name: "Truncation notice/a file skipped by the total is named",
		files:  map[string]string{"AGENTS.md": strings.Repeat("a", 480), "SOUL.md": "Warm.", "TOOLS.md": "t", "IDENTITY.md": "i", "USER.md": "u"},
		config: "[agents.defaults]\nbootstrapMaxChars = 500\nbootstrapTotalMaxChars = 500\n",
		shows:  []string{"## Bootstrap Context Notice", "Left out because the prompt had no room left: SOUL.md, TOOLS.md, IDENTITY.md, USER.md."},
		hides:  []string{"Cut short", ": ."}},
	{name: "Memory Recall/in a shared chat, memory informs but is not quoted", edit: allOf(inChat("group", "automatic"), withTools("memory_search")),
		shows: []string{"## Memory Recall", "This chat is shared and memory belongs to the owner"}, hides: []string{"Source: <path#line>"}},

	// Private memory: only the owner's own sessions see MEMORY.md.
	{name: "MEMORY.md/direct session", shows: []string{"## /ws/MEMORY.md", "MEMORY.md holds lasting facts"}},
	{name: "MEMORY.md/group session", edit: inChat("group", "automatic"),
		hides: []string{"## /ws/MEMORY.md", "MEMORY.md holds", "Ana prefers bullet lists."}},
	{name: "MEMORY.md/channel session", edit: inChat("channel", "automatic"), hides: []string{"## /ws/MEMORY.md"}},
	{name: "MEMORY.md/no chat_type: the group session key decides", edit: func(r *engine.Request) {
		r.ChatType, r.Session.Key = "", "agent:wren:discord:group:datos-y-mapas:help"
	}, hides: []string{"## /ws/MEMORY.md", "Ana prefers bullet lists."}},
	{name: "MEMORY.md/no chat_type: a direct session key", edit: func(r *engine.Request) {
		r.ChatType, r.Session.Key = "", "agent:wren:telegram:direct:48213377"
	}, shows: []string{"## /ws/MEMORY.md"}},
	{name: "MEMORY.md/no chat_type: the key's kind in capitals", edit: func(r *engine.Request) {
		r.ChatType, r.Session.Key = "", "agent:wren:discord:GROUP:123"
	}, hides: []string{"## /ws/MEMORY.md"}},
	{name: "MEMORY.md/no chat_type: an agent named channel is not a channel", edit: func(r *engine.Request) {
		r.ChatType, r.Session.Key = "", "agent:channel:main"
	}, shows: []string{"## /ws/MEMORY.md"}},
	{name: "MEMORY.md/no session_kind: a sub-agent key", edit: func(r *engine.Request) {
		r.ChatType, r.SessionKind, r.Session.Key = "", "", "agent:wren:subagent:factcheck-7"
	}, shows: []string{"## /ws/AGENTS.md", "## /ws/TOOLS.md"}, hides: []string{"## /ws/MEMORY.md", "## /ws/SOUL.md"}},
	{name: "MEMORY.md/no session_kind: a cron key", edit: func(r *engine.Request) {
		r.ChatType, r.SessionKind, r.Session.Key = "", "", "agent:wren:cron:weekly-digest"
	}, shows: []string{"## /ws/SOUL.md"}, hides: []string{"## /ws/MEMORY.md", "## /ws/TOOLS.md"}},
	{name: "MEMORY.md/sub-agent", edit: func(r *engine.Request) { r.SessionKind = "subagent" }, hides: []string{"## /ws/MEMORY.md"}},
	{name: "Cron/keeps AGENTS, SOUL, IDENTITY and USER only", edit: func(r *engine.Request) { r.SessionKind = "cron" },
		shows: []string{"## /ws/AGENTS.md", "## /ws/SOUL.md", "## /ws/IDENTITY.md", "## /ws/USER.md"},
		hides: []string{"## /ws/MEMORY.md", "## /ws/HEARTBEAT.md", "## /ws/TOOLS.md"}},

	// Bootstrap Pending: setup is pending while BOOTSTRAP.md has content.
	{name: "Bootstrap Pending/detected from the workspace", edit: withTools("read"), files: withSetup(smallWorkspace()),
		shows: []string{"## Bootstrap Pending", "BOOTSTRAP.md, under Project Context below, is the checklist", "## /ws/BOOTSTRAP.md", "Ask who I am."}},
	{name: "Bootstrap Pending/no read tool: pending, not injected", edit: withTools("web_search"), files: withSetup(smallWorkspace()),
		shows: []string{"## Bootstrap Pending", "it cannot be worked through here"}, hides: []string{"## /ws/BOOTSTRAP.md", "Ask who I am."}},
	{name: "Bootstrap Pending/brand_new = false says setup is done", files: withSetup(smallWorkspace()),
		edit:  allOf(withTools("read"), func(r *engine.Request) { r.Workspace.BrandNew = new(false) }),
		hides: []string{"## Bootstrap Pending", "## /ws/BOOTSTRAP.md"}},
	{name: "Bootstrap Pending/brand_new = true without the file",
		edit:  allOf(withTools("read"), func(r *engine.Request) { r.Workspace.BrandNew = new(true) }),
		shows: []string{"## Bootstrap Pending", "Its checklist is BOOTSTRAP.md in the workspace: read it first, if it is there."}},
	{name: "Bootstrap Pending/brand_new = true with a blank file still names the checklist",
		edit:  allOf(withTools("read"), func(r *engine.Request) { r.Workspace.BrandNew = new(true) }),
		files: func() map[string]string { f := smallWorkspace(); f["BOOTSTRAP.md"] = "\n"; return f }(),
		shows: []string{"## Bootstrap Pending", "Its checklist is BOOTSTRAP.md in the workspace"}, hides: []string{"under Project Context below, is the checklist"}},
	{name: "Bootstrap Pending/blank file means done", edit: withTools("read"),
		files: func() map[string]string { f := smallWorkspace(); f["BOOTSTRAP.md"] = "\n  \n"; return f }(),
		hides: []string{"## Bootstrap Pending"}},
	{name: "Bootstrap Pending/a group session cannot finish it", files: withSetup(smallWorkspace()),
		edit:  allOf(withTools("read"), inChat("group", "automatic")),
		shows: []string{"## Bootstrap Pending", "it cannot be worked through here"}, hides: []string{"## /ws/BOOTSTRAP.md", "Ask who I am."}},
	{name: "Bootstrap Pending/not on a heartbeat", files: withSetup(smallWorkspace()),
		edit: allOf(withTools("read"), func(r *engine.Request) { r.SessionKind = "heartbeat" }), hides: []string{"## Bootstrap Pending", "Ask who I am."}},
	{name: "Bootstrap Pending/not for a sub-agent", files: withSetup(smallWorkspace()),
		edit:  allOf(withTools("read"), inMode(engine.ModeMinimal), func(r *engine.Request) { r.SessionKind = "subagent" }),
		hides: []string{"## Bootstrap Pending", "Ask who I am."}},
	{name: "Truncation notice/nothing cut", files: map[string]string{"SOUL.md": "short"},
		config: "[agents.defaults]\nbootstrapMaxChars = 500\n", hides: []string{"## Bootstrap Context Notice"}},
	{name: "Truncation notice/cut but warning off",
		files:  map[string]string{"SOUL.md": strings.Repeat("soul ", 400)},
		config: "[agents.defaults]\nbootstrapMaxChars = 500\nbootstrapPromptTruncationWarning = \"off\"\n",
		hides:  []string{"## Bootstrap Context Notice"}},
	{name: "Dynamic Project Context/HEARTBEAT.md",
		shows: []string{"## Dynamic Project Context", "## /ws/HEARTBEAT.md", "- check the inbox", "HEARTBEAT.md is your checklist"}},
	{name: "Dynamic Project Context/no HEARTBEAT.md", files: map[string]string{"SOUL.md": "x"},
		hides: []string{"## Dynamic Project Context"}},
	{name: "Dynamic Project Context/heartbeats disabled", config: heartbeatsOff,
		hides: []string{"## Dynamic Project Context", "check the inbox"}},
	{name: "Dynamic Project Context/heartbeat section excluded",
		config: "[agents.defaults.heartbeat]\nincludeSystemPromptSection = false\n",
		hides:  []string{"## Dynamic Project Context", "check the inbox"}},
	{name: "Dynamic Project Context/daily memory on reset",
		files: map[string]string{"memory/2026-11-30.md": "today's note", "memory/2026-11-29.md": "yesterday's note"},
		edit: func(r *engine.Request) {
			r.Session.Reset, r.Date, r.Timezone = true, "2026-11-30T09:15:00Z", "Europe/Lisbon"
		},
		shows: []string{"## Dynamic Project Context", "Recent daily notes are included", "today's note", "yesterday's note"}},
	{name: "Dynamic Project Context/no daily memory without reset",
		files: map[string]string{"memory/2026-11-30.md": "today's note", "memory/2026-11-29.md": "yesterday's note"},
		edit:  func(r *engine.Request) { r.Date, r.Timezone = "2026-11-30T09:15:00Z", "Europe/Lisbon" },
		hides: []string{"## Dynamic Project Context", "today's note", "yesterday's note"}},

	// Sub-Agent Delegation.
	{name: "Delegation/prefer with sessions_spawn", edit: withTools("sessions_spawn", "sessions_yield"), config: delegationPrefer,
		shows: []string{"## Sub-Agent Delegation", "through `sessions_spawn`", "end your turn with `sessions_yield`"}},
	{name: "Delegation/prefer without sessions_spawn", edit: withTools("exec"), config: delegationPrefer,
		hides: []string{"## Sub-Agent Delegation"}},
	{name: "Delegation/suggest with sessions_spawn", edit: withTools("sessions_spawn"), hides: []string{"## Sub-Agent Delegation"}},
	{name: "Delegation/not in minimal", edit: allOf(inMode(engine.ModeMinimal), withTools("sessions_spawn")), config: delegationPrefer,
		hides: []string{"## Sub-Agent Delegation"}},

	// Assistant Output Directives and Messaging per delivery mode.
	{name: "Output Directives/automatic delivery",
		shows: []string{"## Assistant Output Directives", "`MEDIA:<path-or-url>`", "`[[audio_as_voice]]`", "`[[reply_to_current]]`"}},
	{name: "Output Directives/message tool only", edit: allOf(inChat("direct", "message_tool_only"), withTools("message")),
		shows: []string{"## Assistant Output Directives", "`asVoice`", "`replyTo`"}, hides: []string{"MEDIA:<path-or-url>"}},
	{name: "Output Directives/message tool only without the tool", edit: inChat("direct", "message_tool_only"),
		hides: []string{"## Assistant Output Directives"}},
	{name: "Output Directives/not in minimal", edit: inMode(engine.ModeMinimal), hides: []string{"## Assistant Output Directives"}},
	{name: "Messaging/automatic", edit: withTools("message"),
		shows: []string{"## Messaging", "Your final reply goes back to the chat the message came from.", "### message tool"},
		hides: []string{"reaches the user; your final reply stays private"}},
	{name: "Messaging/message tool only", edit: allOf(inChat("direct", "message_tool_only"), withTools("message")),
		shows: []string{"## Messaging", "Only what you send with `message` (action `send`) reaches the user",
			"set `channel` only to send somewhere else"},
		hides: []string{"Your final reply goes back to the chat"}},
	{name: "Messaging/message tool only without the tool", edit: inChat("direct", "message_tool_only"),
		shows: []string{"## Messaging", "no tool can send a visible message"}},
	{name: "Messaging/not in minimal", edit: inMode(engine.ModeMinimal), hides: []string{"## Messaging"}},

	// Silent Replies: automatic delivery in groups and channels only.
	{name: "Silent Replies/group automatic", edit: inChat("group", "automatic"), shows: []string{"## Silent Replies", "`NO_REPLY`"}},
	{name: "Silent Replies/channel automatic", edit: inChat("channel", "automatic"), shows: []string{"## Silent Replies"}},
	{name: "Silent Replies/direct", edit: allOf(inChat("direct", "automatic"), withTools("message")),
		hides: []string{"## Silent Replies", "NO_REPLY"}},
	{name: "Silent Replies/group message tool only", edit: allOf(inChat("group", "message_tool_only"), withTools("message")),
		hides: []string{"## Silent Replies", "NO_REPLY"}},
	{name: "Silent Replies/not in minimal", edit: allOf(inMode(engine.ModeMinimal), inChat("group", "automatic")),
		hides: []string{"## Silent Replies"}},
	{name: "Silent Replies/the turn's own context owns the reply contract",
		edit: allOf(inChat("group", "automatic"), withTools("message"), func(r *engine.Request) {
			r.ExtraSystemPrompt, r.Channel.SilentReplies = "Reply only when someone names you; otherwise stay out.", "none"
		}),
		shows: []string{"## Group Chat Context"}, hides: []string{"## Silent Replies", "NO_REPLY"}},
	{name: "Silent Replies/group context alone keeps the generic rule",
		edit:  allOf(inChat("group", "automatic"), func(r *engine.Request) { r.ExtraSystemPrompt = "Server rules apply." }),
		shows: []string{"## Silent Replies", "## Group Chat Context"}},

	// Exec approvals (see also TestBuiltinApprovalsFollowTheChannelCatalog).
	{name: "Approvals/native by capability on an unlisted channel",
		edit: allOf(withTools("exec"), func(r *engine.Request) {
			r.Channel.ID, r.Channel.Capabilities = "irc", []string{"nativeApprovals"}
		}),
		shows: []string{"## Exec Approvals", approvalsNative, approvalsNeverInvent, "the card cannot be used"},
		hides: []string{approvalsCopy}},
	{name: "Approvals/inline buttons count as native",
		edit: allOf(withTools("exec"), func(r *engine.Request) {
			r.Channel.ID, r.Channel.Capabilities = "irc", []string{"inlineButtons"}
		}),
		shows: []string{approvalsNative}},
	{name: "Approvals/copy the /approve command on an unlisted channel",
		edit:  allOf(withTools("exec"), func(r *engine.Request) { r.Channel.ID = "irc" }),
		shows: []string{"## Exec Approvals", approvalsCopy, approvalsNeverInvent},
		hides: []string{approvalsNative}},
	{name: "Approvals/exec without a channel (sub-agent)",
		edit:  allOf(inMode(engine.ModeMinimal), withTools("Exec"), func(r *engine.Request) { r.Channel = engine.Channel{} }),
		shows: []string{"## Exec Approvals", "Leave it to `Exec` to decide", approvalsCopy, approvalsNeverInvent},
		hides: []string{approvalsNative}},
	{name: "Approvals/without exec", edit: withTools("read"), hides: []string{"## Exec Approvals"}},
	{name: "Approvals/tool_call_style override",
		edit: allOf(withTools("exec"), func(r *engine.Request) {
			r.Contributions = []engine.Contribution{withOverride("tool_call_style", "## Calls\nCall quietly.")}
		}),
		hides: []string{"## Exec Approvals"}},

	// Control UI Embed: the web Control UI only, in full mode, and not
	// when only a missing message tool could reach the user.
	{name: "Control UI Embed/webchat", edit: func(r *engine.Request) { r.Channel.ID = "webchat" },
		shows: []string{"## Control UI Embed", "`[embed ref=\"<id>\"", "`[embed url=\"/__openclaw__/canvas/documents/<id>/index.html\"",
			"must lie under `/__openclaw__/canvas/`", "active profile's embed root", "double quotes", "attach those with `MEDIA:` lines"}},
	{name: "Control UI Embed/webchat, message tool only with the tool",
		edit:  allOf(inChat("direct", "message_tool_only"), withTools("message"), func(r *engine.Request) { r.Channel.ID = "WebChat" }),
		shows: []string{"## Control UI Embed", "`message`'s attachment fields"}, hides: []string{"attach those with `MEDIA:` lines"}},
	{name: "Control UI Embed/webchat, message tool only without the tool",
		edit:  allOf(inChat("direct", "message_tool_only"), func(r *engine.Request) { r.Channel.ID = "webchat" }),
		hides: []string{"## Control UI Embed", "[embed"}},
	{name: "Control UI Embed/other channels", hides: []string{"## Control UI Embed", "[embed"}},
	{name: "Control UI Embed/not in minimal",
		edit:  allOf(inMode(engine.ModeMinimal), func(r *engine.Request) { r.Channel.ID = "webchat" }),
		hides: []string{"## Control UI Embed", "[embed"}},

	// Per-turn facts.
	{name: "User Identity/owners", edit: func(r *engine.Request) { r.Owners = []string{"telegram:1", "discord:2"} },
		shows: []string{"## User Identity", "Senders allowed to command you: telegram:1, discord:2."}},
	{name: "User Identity/no owners", hides: []string{"## User Identity"}},
	{name: "User Identity/not in minimal",
		edit: allOf(inMode(engine.ModeMinimal), func(r *engine.Request) { r.Owners = []string{"telegram:1"} }), hides: []string{"## User Identity"}},
	{name: "Voice/hint", edit: func(r *engine.Request) { r.TTSHint = "Keep it short when spoken." },
		shows: []string{"## Voice (TTS)", "Keep it short when spoken."}},
	{name: "Voice/blank hint", edit: func(r *engine.Request) { r.TTSHint = " \n " }, hides: []string{"## Voice (TTS)"}},
	{name: "Voice/not in minimal",
		edit: allOf(inMode(engine.ModeMinimal), func(r *engine.Request) { r.TTSHint = "Short." }), hides: []string{"## Voice (TTS)"}},
	{name: "Extra context/group chat label in full", edit: func(r *engine.Request) { r.ExtraSystemPrompt = "Server rules apply." },
		shows: []string{"## Group Chat Context", "Server rules apply."}, hides: []string{"## Subagent Context"}},
	{name: "Extra context/subagent label in minimal",
		edit:  allOf(inMode(engine.ModeMinimal), func(r *engine.Request) { r.ExtraSystemPrompt = "Check one claim." }),
		shows: []string{"## Subagent Context", "Check one claim."}, hides: []string{"## Group Chat Context"}},
	{name: "Extra context/none", hides: []string{"## Group Chat Context", "## Subagent Context"}},
	{name: "Reactions/minimal", edit: func(r *engine.Request) { r.Reactions.Level = "minimal" },
		shows: []string{"## Reactions", "Emoji reactions on `telegram` are available but should be rare"}},
	{name: "Reactions/extensive", edit: func(r *engine.Request) { r.Reactions.Level = "extensive" },
		shows: []string{"## Reactions", "Emoji reactions on `telegram` are welcome"}},
	{name: "Reactions/unset", hides: []string{"## Reactions"}},
	{name: "Heartbeats/enabled by default", shows: []string{"## Heartbeats", "answer exactly `HEARTBEAT_OK`"},
		hides: []string{"This turn is a heartbeat."}},
	{name: "Heartbeats/heartbeat turn",
		edit: func(r *engine.Request) {
			r.SessionKind, r.Heartbeat.Prompt = "heartbeat", "Work through the checklist."
		},
		shows: []string{"## Heartbeats", "whose message is this prompt:\n> Work through the checklist.", "This turn is a heartbeat."}},
	{name: "Heartbeats/disabled for the agent", config: heartbeatsOff, hides: []string{"## Heartbeats", "HEARTBEAT_OK"}},
	{name: "Heartbeats/not in minimal", edit: inMode(engine.ModeMinimal), hides: []string{"## Heartbeats"}},
	{name: "Provider suffix/present",
		edit: func(r *engine.Request) {
			r.Contributions = []engine.Contribution{{DynamicSuffix: "## Turn Note\nThis turn is short."}}
		},
		shows: []string{"## Turn Note\nThis turn is short.\n"}},
	{name: "Provider suffix/absent", hides: []string{"## Turn Note"}},

	// Runtime and Reasoning.
	{name: "Runtime/every field",
		edit: func(r *engine.Request) {
			r.Runtime = engine.Runtime{Host: "box", OS: "linux", Arch: "amd64", Version: "node 22.12.0", Model: "anthropic/claude",
				DefaultModel: "anthropic/claude-default", Shell: "zsh", RepoRoot: "/src/app", Thinking: "low"}
		},
		shows: []string{"## Runtime", "Runtime: host=box | os=linux (amd64) | runtime=node 22.12.0 | model=anthropic/claude | default_model=anthropic/claude-default | shell=zsh | repo=/src/app | thinking=low\n"}},
	{name: "Runtime/default model and shell alone",
		edit:  func(r *engine.Request) { r.Runtime = engine.Runtime{DefaultModel: "openai/gpt-5.1", Shell: "bash"} },
		shows: []string{"## Runtime", "Runtime: default_model=openai/gpt-5.1 | shell=bash\n"}},
	{name: "Runtime/no repo root detected",
		edit:  func(r *engine.Request) { r.Runtime = engine.Runtime{Host: "box", OS: "linux", Model: "m"} },
		shows: []string{"Runtime: host=box | os=linux | model=m\n"}, hides: []string{"repo="}},
	{name: "Runtime/minimal", edit: allOf(inMode(engine.ModeMinimal), func(r *engine.Request) { r.Runtime.Host = "box" }),
		shows: []string{"## Runtime", "Runtime: host=box\n"}},
	{name: "Runtime/no facts", hides: []string{"## Runtime"}},
	{name: "Reasoning/level given", edit: func(r *engine.Request) { r.Runtime.Reasoning = "stream" },
		shows: []string{"## Reasoning", "Reasoning visibility: stream. The user switches it with `/reasoning`."}},
	{name: "Reasoning/off by default", shows: []string{"Reasoning visibility: off."}},
	{name: "Reasoning/not in none", edit: inMode(engine.ModeNone), hides: []string{"## Reasoning"}},
}

func TestBuiltinGating(t *testing.T) {
	p := packWith(t, nil) // read-only from here on, so the cases share it
	for _, c := range gatingCases {
		t.Run(c.name, func(t *testing.T) {
			// Each case compiles the pack into an engine of its own over a
			// workspace of its own, so the cases can run side by side
			// (the 121 compilations take about 4 s under -race).
			t.Parallel()
			req := gatingRequest()
			if c.edit != nil {
				c.edit(&req)
			}
			files := c.files
			if files == nil {
				files = smallWorkspace()
			}
			opts := []engine.Option{engine.WithFS(workspaceFS(t, files))}
			if c.config != "" {
				opts = append(opts, withConfig(t, c.config))
			}
			text := render(t, p, req, opts...).Layers[0].Text
			for _, want := range c.shows {
				assert.True(t, holds(text, want), "want %q in the prompt:\n%s", want, text)
			}
			for _, unwanted := range c.hides {
				assert.False(t, holds(text, unwanted), "want no %q in the prompt:\n%s", unwanted, text)
			}
		})
	}
}

// TestBuiltinGatingTruncationNoticeOnce: in mode once the notice shows
// the first time a cut is seen and not again for the same cut.
func TestBuiltinGatingTruncationNoticeOnce(t *testing.T) {
	files := map[string]string{"SOUL.md": strings.Repeat("soul ", 400)}
	e, err := engine.New(packWith(t, nil), engine.WithFS(workspaceFS(t, files)),
		withConfig(t, "[agents.defaults]\nbootstrapMaxChars = 500\nbootstrapPromptTruncationWarning = \"once\"\n"),
		engine.WithWarningStore(bootstrap.NewMemoryStore()))
	require.NoError(t, err)
	for turn, want := range []bool{true, false} {
		res, err := e.Render(t.Context(), gatingRequest())
		require.NoError(t, err)
		assert.Equal(t, want, holds(res.Layers[0].Dynamic, "## Bootstrap Context Notice"), "turn %d", turn+1)
	}
}

func TestBuiltinGatingProductName(t *testing.T) {
	m := string(mustRead(t, "sections/manifest.toml"))
	renamed := strings.Replace(m, `product = "OpenClaw"`, `product = "Acme"`, 1)
	require.NotEqual(t, m, renamed, "the manifest sets product")
	req := gatingRequest()
	req.Tools = toolsNamed("gateway")
	text := render(t, packWith(t, map[string]string{"sections/manifest.toml": renamed}), req).Layers[0].Text
	assert.True(t, holds(text, "## Acme Control"), text)
	assert.True(t, holds(text, "## Acme Self-Update"), text)
	assert.NotContains(t, text, "OpenClaw")
}

// TestBuiltinGatingClockNeverInStablePrefix: the request's date and time
// reach no part of the cached prefix, whatever else is on.
func TestBuiltinGatingClockNeverInStablePrefix(t *testing.T) {
	req, files, config := everythingRequest()
	req.Date = "2026-11-30T09:15:00Z"
	res := render(t, packWith(t, nil), req, engine.WithFS(workspaceFS(t, files)), withConfig(t, config))
	stable := res.Layers[0].Stable
	require.True(t, holds(stable, "## Current Date & Time"), stable)
	for _, clock := range []string{"2026", "11-30", "30 Nov", "Nov 30", "November", "Monday", "09:15", "9:15", "10:15"} {
		assert.NotContains(t, stable, clock)
	}
}

// everythingRequest turns on every section the issue names, in full
// mode: a group chat with automatic delivery, every gating tool, a skill,
// HEARTBEAT.md, a file over budget, provider contributions and all the
// per-turn facts. It returns the workspace files and agent config too.
func everythingRequest() (engine.Request, map[string]string, string) {
	req := engine.Request{
		Mode:      engine.ModeFull,
		Workspace: engine.Workspace{Path: "/ws"},
		Tools: toolsNamed("read", "exec", "process", "cron", "message", "gateway", "sessions_spawn",
			"subagents", "memory_search", "memory_get", "update_plan", "session_status"),
		ChatType:      "group",
		Channel:       engine.Channel{ID: "discord", Delivery: "automatic", Capabilities: []string{"nativeApprovals"}},
		Runtime:       engine.Runtime{Host: "box", OS: "linux", Arch: "amd64", Version: "node 22", Model: "anthropic/claude", RepoRoot: "/src", Thinking: "low", Reasoning: "on"},
		Sandbox:       engine.Sandbox{Enabled: true, Workdir: "/sandbox", Elevated: true},
		ElevatedLevel: "on",
		Timezone:      "Europe/Lisbon",
		ModelAliases:  map[string]string{"sonnet": "anthropic/claude-sonnet-4-5"},
		Owners:        []string{"discord:1"},
		TTSHint:       "Keep spoken replies short.",
		Reactions:     engine.Reactions{Level: "minimal"},
		Heartbeat:     engine.Heartbeat{Prompt: "Check the inbox."},
		Date:          "2026-11-30T09:15:00Z",

		ExtraSystemPrompt: "Server rules apply.",
		Contributions: []engine.Contribution{{
			StablePrefix:     "## Contract\nBe exact.",
			DynamicSuffix:    "## Turn Note\nShort turn.",
			SectionOverrides: map[string]string{"interaction_style": "## Interaction Style\nBe warm."},
		}},
	}
	files := withSkill(smallWorkspace())
	files["SOUL.md"] = strings.Repeat("Warm and direct. ", 100)
	config := planToolOn + "[agents.defaults]\nbootstrapMaxChars = 1000\n" + delegationPrefer
	return req, files, config
}

// builtinHeadings are the headings of everythingRequest in manifest order,
// with the side of the cache boundary the issue puts each on.
var builtinHeadings = []struct {
	heading string
	stable  bool
}{
	{"## Tooling", true},
	{"## Interaction Style", true},
	{"## Tool Call Style", true},
	{"## Execution Bias", true},
	{"## Contract", true},
	{"## Safety", true},
	{"## Skills", true},
	{"## OpenClaw Control", true},
	{"## OpenClaw Self-Update", true},
	{"## Memory Recall", true},
	{"## Model Aliases", true},
	{"## Workspace", true},
	{"## Documentation", true},
	{"## Sandbox", true},
	{"## Current Date & Time", true},
	{"## Workspace Files (injected)", true},
	{"# Project Context", true},
	{"## Bootstrap Context Notice", false},
	{"## Dynamic Project Context", false},
	{"## Sub-Agent Delegation", false},
	{"## Elevated Exec", false},
	{"## Assistant Output Directives", false},
	{"## Messaging", false},
	{"## Silent Replies", false},
	{"## Exec Approvals", false},
	{"## User Identity", false},
	{"## Voice (TTS)", false},
	{"## Group Chat Context", false},
	{"## Reactions", false},
	{"## Heartbeats", false},
	{"## Turn Note", false},
	{"## Runtime", false},
	{"## Reasoning", false},
}

// TestBuiltinGatingOrderAndTiers: with everything on, every section shows
// once, in manifest order, on its side of the boundary.
func TestBuiltinGatingOrderAndTiers(t *testing.T) {
	req, files, config := everythingRequest()
	res := render(t, packWith(t, nil), req, engine.WithFS(workspaceFS(t, files)), withConfig(t, config))
	l := res.Layers[0]
	lines := strings.Split(l.Text, "\n")
	last := -1
	for _, h := range builtinHeadings {
		at := slices.Index(lines, h.heading)
		if !assert.GreaterOrEqual(t, at, 0, "%s missing:\n%s", h.heading, l.Text) {
			continue
		}
		assert.Equal(t, 1, strings.Count("\n"+l.Text, "\n"+h.heading+"\n"), "%s shows once", h.heading)
		assert.Greater(t, at, last, "%s out of manifest order", h.heading)
		last = at
		side := l.Dynamic
		if h.stable {
			side = l.Stable
		}
		assert.True(t, holds(side, h.heading), "%s on the wrong side of the boundary", h.heading)
	}
}

// fullOnly are the sections the issue marks F (full mode only), as
// section ids, with Execution Bias not overridden.
var fullOnly = []string{
	"delegation", "documentation", "execution_bias", "heartbeats", "memory_recall", "messaging",
	"model_aliases", "output_directives", "self_update", "silent_replies", "user_identity", "voice",
}

func TestBuiltinModeMinimal(t *testing.T) {
	req, files, config := everythingRequest()
	p := packWith(t, nil)
	full := render(t, p, req, engine.WithFS(workspaceFS(t, files)), withConfig(t, config))
	req.Mode = engine.ModeMinimal
	minimal := render(t, p, req, engine.WithFS(workspaceFS(t, files)), withConfig(t, config))
	text := minimal.Layers[0].Text

	omitted := []string{"## Memory Recall", "## OpenClaw Self-Update", "## Model Aliases", "## User Identity",
		"## Assistant Output Directives", "## Messaging", "## Silent Replies", "## Heartbeats"}
	kept := []string{"## Tooling", "## Safety", "## Skills", "## Workspace", "## Sandbox", "## Current Date & Time",
		"## Runtime", "## Workspace Files (injected)", "# Project Context", "## Dynamic Project Context"}
	for _, h := range omitted {
		assert.True(t, holds(full.Layers[0].Text, h), "full mode shows %s", h)
		assert.False(t, holds(text, h), "minimal mode omits %s", h)
	}
	for _, h := range kept {
		assert.True(t, holds(full.Layers[0].Text, h), "full mode shows %s", h)
		assert.True(t, holds(text, h), "minimal mode keeps %s", h)
	}
	assert.True(t, holds(text, "## Subagent Context"), "extra context is labelled for a sub-agent")

	// Exactly: the sections minimal drops are the full-only ones.
	assert.Equal(t, fullOnly, sectionIDs(full, "system", func(id string) bool { return !rendered(minimal, id) }))
	assert.Empty(t, sectionIDs(minimal, "system", func(id string) bool { return !rendered(full, id) }), "minimal adds nothing")
}

// sectionIDs lists, sorted, the ids of a layer's rendered sections that
// keep accepts.
func sectionIDs(res *engine.Result, layer string, keep func(id string) bool) []string {
	var out []string
	for _, l := range res.Layers {
		if l.Name != layer {
			continue
		}
		for _, s := range l.Sections {
			if keep(s.ID) {
				out = append(out, s.ID)
			}
		}
	}
	sort.Strings(out)
	return out
}

func rendered(res *engine.Result, id string) bool {
	for _, l := range res.Layers {
		for _, s := range l.Sections {
			if s.ID == id {
				return true
			}
		}
	}
	return false
}

func TestBuiltinModeNone(t *testing.T) {
	req, files, config := everythingRequest()
	req.Mode = engine.ModeNone
	res := render(t, packWith(t, nil), req, engine.WithFS(workspaceFS(t, files)), withConfig(t, config))
	require.Len(t, res.Layers, 1)
	assert.Equal(t, "You are a personal AI assistant, and OpenClaw is the runtime you work in.\n", res.Layers[0].Text, "no boundary marker in mode none")
	assert.Equal(t, res.Layers[0].Text, res.Layers[0].TextWithoutBoundary())
}

// TestBuiltinCacheStability: each pair differs in a volatile fact only;
// the prompts differ, the stable prefixes are byte-identical.
func TestBuiltinCacheStability(t *testing.T) {
	files := smallWorkspace()
	files["memory/2026-11-30.md"] = "today's note"
	e, err := engine.New(packWith(t, nil), engine.WithFS(workspaceFS(t, files)))
	require.NoError(t, err)

	base := func() engine.Request {
		r := directRequest()
		r.Tools = append(r.Tools, toolsNamed("message", "cron", "memory_search", "sessions_spawn", "gateway")...)
		return r
	}
	reset := func(date string) func(*engine.Request) {
		return func(r *engine.Request) { r.Session.Reset, r.Date = true, date }
	}
	pairs := []struct {
		name string
		a, b func(r *engine.Request)
		// sameText: the prompt may not change at all (the date shows
		// nowhere on an ordinary turn).
		sameText bool
	}{
		{"automatic vs message_tool_only", nil, inChat("direct", "message_tool_only"), false},
		{"two dates", nil, func(r *engine.Request) { r.Date = "2027-03-01T23:59:59+01:00" }, true},
		{"two dates on a reset turn", reset("2026-11-30T09:15:00Z"), reset("2026-12-02T09:15:00Z"), false},
		{"two owners lists", nil, func(r *engine.Request) { r.Owners = []string{"discord:2", "telegram:3"} }, false},
		{"heartbeat turn vs not", nil, func(r *engine.Request) {
			r.SessionKind, r.Heartbeat.Prompt = "heartbeat", "Work through HEARTBEAT.md."
		}, false},
		{"TTS hint added", nil, func(r *engine.Request) { r.TTSHint = "Voice replies are on." }, false},
		{"different extra system prompt",
			func(r *engine.Request) { r.ExtraSystemPrompt = "Server A rules." },
			func(r *engine.Request) { r.ExtraSystemPrompt = "Server B rules, longer." }, false},
		{"reactions level", nil, func(r *engine.Request) { r.Reactions.Level = "extensive" }, false},
		{"reset turn with daily memory", nil, func(r *engine.Request) { r.Session.Reset = true }, false},
		{"runtime facts", nil, func(r *engine.Request) { r.Runtime.Model, r.Runtime.Thinking = "openai/o3", "high" }, false},
		{"channel capabilities", nil, func(r *engine.Request) { r.Channel.Capabilities = []string{"nativeApprovals", "inlineButtons"} }, false},
		{"provider dynamic suffix", nil, func(r *engine.Request) {
			r.Contributions = []engine.Contribution{{DynamicSuffix: "## Turn Note\nShort."}}
		}, false},
	}
	for _, pair := range pairs {
		t.Run(pair.name, func(t *testing.T) {
			var res [2]*engine.Result
			for i, edit := range []func(*engine.Request){pair.a, pair.b} {
				req := base()
				if edit != nil {
					edit(&req)
				}
				r, err := e.Render(t.Context(), req)
				require.NoError(t, err)
				res[i] = r
			}
			a, b := res[0].Layers[0], res[1].Layers[0]
			if !pair.sameText {
				require.NotEqual(t, a.Text, b.Text, "the pair must change the prompt, or it proves nothing")
			}
			assert.Equal(t, a.Stable, b.Stable)
			assert.Equal(t, a.StableSHA256(), b.StableSHA256())
		})
	}
}

// TestBuiltinExampleRequests renders the seven shipped requests with the
// example workspace and config, and reads each layer as a careful person
// would: no empty heading, no doubled blank line, no template leftovers.
func TestBuiltinExampleRequests(t *testing.T) {
	cfg, err := config.Parse("agents.toml", mustReadFile(t, "examples/agents.toml"))
	require.NoError(t, err)
	e, err := engine.New(packWith(t, nil), engine.WithFS(exampleWorkspace(t)), engine.WithConfig(cfg),
		engine.WithWarningStore(bootstrap.NewMemoryStore()))
	require.NoError(t, err)

	examples := []struct {
		file   string
		layers []string
		shows  []string // in the first layer outside injected files (see holds)
		hides  []string
		// in maps further layers to what they must show.
		in map[string][]string
	}{
		{file: "direct.toml", layers: []string{"system"},
			shows: []string{"## Model Aliases", "## Memory Recall", "## Sub-Agent Delegation", "## /ws/MEMORY.md"},
			hides: []string{"## Silent Replies", "-hour format"}},
		{file: "group.toml", layers: []string{"system"},
			shows: []string{"## Group Chat Context", "## Reactions", approvalsNative, "## Silent Replies"},
			hides: []string{"## /ws/MEMORY.md", "MEMORY.md holds"}},
		{file: "group-next.toml", layers: []string{"system"},
			shows: []string{"## Group Chat Context", "Rui asked"},
			hides: []string{"## /ws/MEMORY.md", "MEMORY.md holds"}},
		{file: "message-tool.toml", layers: []string{"system"},
			shows: []string{"## Voice (TTS)", "Only what you send with `message`"},
			hides: []string{"## Silent Replies", "NO_REPLY"}},
		{file: "heartbeat.toml", layers: []string{"system"},
			shows: []string{"## Heartbeats", "This turn is a heartbeat.", "## Dynamic Project Context"}},
		{file: "subagent.toml", layers: []string{"system"},
			shows: []string{"## Subagent Context", "## /ws/AGENTS.md", "## /ws/TOOLS.md"},
			hides: []string{"## Messaging", "## Heartbeats", "## /ws/SOUL.md", "## /ws/MEMORY.md"}},
		{file: "gpt5.toml", layers: []string{"system"},
			shows: []string{"## Behavior Contract", "## Interaction Style"}},
		{file: "codex.toml", layers: []string{"developer", "collaboration"},
			shows: []string{"## OpenClaw Runtime", "## /ws/TOOLS.md"},
			hides: []string{"## Behavior Contract", "## Tooling", "## /ws/AGENTS.md", "## /ws/SOUL.md", "## /ws/MEMORY.md", "## Skills"},
			in: map[string][]string{
				"collaboration": {"## Skills", "## Workspace Memory", "## /ws/SOUL.md", "## /ws/IDENTITY.md", "## /ws/USER.md"},
			}},
	}
	for _, ex := range examples {
		t.Run(ex.file, func(t *testing.T) {
			name := "examples/requests/" + ex.file
			req, err := engine.ParseRequest(name, mustReadFile(t, name))
			require.NoError(t, err)
			req.Workspace.Path = "/ws"
			res, err := e.Render(t.Context(), req)
			require.NoError(t, err)

			var names []string
			for _, l := range res.Layers {
				names = append(names, l.Name)
			}
			require.Equal(t, ex.layers, names)
			// The example AGENTS.md has headings of its own; look only
			// at what the templates wrote.
			injected := injectedContents(res)
			own := withoutFiles(res.Layers[0].Text, injected)
			for _, want := range ex.shows {
				assert.True(t, holds(own, want), "want %q:\n%s", want, own)
			}
			for _, unwanted := range ex.hides {
				assert.False(t, holds(own, unwanted), "want no %q:\n%s", unwanted, own)
			}
			for _, l := range res.Layers {
				for _, want := range ex.in[l.Name] {
					assert.True(t, holds(l.Text, want), "want %q in layer %s:\n%s", want, l.Name, l.Text)
				}
			}
			for _, l := range res.Layers {
				assertReadsClean(t, l, injected)
			}
		})
	}
}

// injectedContents are the texts of the injected workspace files, longest
// first so that no file's text is cut out of a longer one.
func injectedContents(res *engine.Result) []string {
	var out []string
	for _, f := range res.Files {
		if strings.TrimSpace(f.Content) != "" {
			out = append(out, f.Content)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// withoutFiles replaces injected file text, which is data and may hold
// anything, with a placeholder line.
func withoutFiles(s string, injected []string) string {
	for _, c := range injected {
		s = strings.ReplaceAll(s, c, "[injected file]")
	}
	return s
}

// assertReadsClean checks what the pack's templates wrote in one layer.
func assertReadsClean(t *testing.T, l engine.Layer, injected []string) {
	t.Helper()
	text := l.Text
	assert.True(t, strings.HasSuffix(text, "\n") && !strings.HasSuffix(text, "\n\n"), "layer %s ends with exactly one newline", l.Name)
	assert.NotContains(t, text, "\n\n\n", "layer %s has a doubled blank line", l.Name)
	assert.NotContains(t, text, "<no value>", "layer %s", l.Name)
	own := withoutFiles(text, injected)
	assert.NotContains(t, own, "{{", "layer %s has template syntax outside injected files", l.Name)
	assert.NotContains(t, own, "}}", "layer %s has template syntax outside injected files", l.Name)
	assert.NotContains(t, own, " \n", "layer %s has a line with trailing space", l.Name)
	for _, s := range l.Sections {
		if h := emptyHeading(withoutFiles(text[s.Start:s.End], injected)); h != "" {
			assert.Fail(t, "empty heading", "layer %s, section %s: %q has nothing under it:\n%s", l.Name, s.ID, h, text[s.Start:s.End])
		}
	}
}

// emptyHeading returns the first heading in a section's text that has
// nothing under it: the section ends after it, or the next non-blank line
// is a heading of the same or a higher level. A heading directly over a
// sub-heading ("# Project Context" over "## /ws/AGENTS.md") is not empty.
func emptyHeading(section string) string {
	level := func(line string) int {
		n := len(line) - len(strings.TrimLeft(line, "#"))
		if n == 0 || n == len(line) || line[n] != ' ' {
			return 0
		}
		return n
	}
	var lines []string
	for _, line := range strings.Split(section, "\n") {
		if strings.TrimSpace(line) != "" {
			lines = append(lines, line)
		}
	}
	for i, line := range lines {
		lv := level(line)
		if lv == 0 {
			continue
		}
		if i+1 == len(lines) {
			return line
		}
		if next := level(lines[i+1]); next > 0 && next <= lv {
			return line
		}
	}
	return ""
}

func TestBuiltinEmptyHeadingCheck(t *testing.T) {
	cases := map[string]string{
		"## A\nbody":                            "",
		"## A":                                  "## A",
		"## A\n\n## B\nbody":                    "## A",
		"# Project Context\n\n## /ws/A.md\n\nx": "",
		"## /ws/A.md\n\n[injected file]":        "", // file text is cut out first
		"## A\nbody\n### B":                     "### B",
		"#hashtag\nbody":                        "",
	}
	for text, want := range cases {
		assert.Equal(t, want, emptyHeading(text), "%q", text)
	}
}

func TestBuiltinPackLints(t *testing.T) {
	res := engine.Lint(sysprompt.Pack)
	require.Empty(t, res.Errors)
	assert.Empty(t, res.Warnings)
	assert.Greater(t, res.Sections, 5)
}

// exampleWorkspace copies examples/workspace into memory at /ws.
func exampleWorkspace(t testing.TB) afero.Fs {
	t.Helper()
	ws := afero.NewMemMapFs()
	packtest.CopyDir(t, os.DirFS("examples/workspace"), ws, "/ws")
	return ws
}

// TestBuiltinApprovalsFollowTheChannelCatalog: every channel the built-in
// catalog flags shows the approval card wording with no capability in the
// request, as the original product does; any other channel, or none, is
// told to copy the /approve command.
func TestBuiltinApprovalsFollowTheChannelCatalog(t *testing.T) {
	e, err := engine.New(packWith(t, nil))
	require.NoError(t, err)
	cases := []struct {
		channel string
		native  bool
	}{
		{"telegram", true}, {"discord", true}, {"whatsapp", true}, {"slack", true}, {"signal", true},
		{"imessage", true}, {"matrix", true}, {"googlechat", true}, {"webchat", true},
		{"Telegram", true}, // ids match in any case
		{"irc", false}, {"msteams", false}, {"", false},
	}
	for _, c := range cases {
		t.Run("channel="+c.channel, func(t *testing.T) {
			req := gatingRequest()
			req.Tools = toolsNamed("exec")
			req.Channel = engine.Channel{ID: c.channel, Delivery: "automatic"}
			res, err := e.Render(t.Context(), req)
			require.NoError(t, err)
			text := res.Layers[0].Dynamic
			assert.Contains(t, text, approvalsNeverInvent)
			assert.Equal(t, c.native, strings.Contains(text, approvalsNative), text)
			assert.Equal(t, !c.native, strings.Contains(text, approvalsCopy), text)
		})
	}
}

// TestOwnManifestWithoutNewVars: a pack whose own manifest predates the
// documentation and canvas vars still renders; those lines fall back or
// drop instead of failing the render.
func TestOwnManifestWithoutNewVars(t *testing.T) {
	manifest := string(mustReadFile(t, "sections/manifest.toml"))
	for _, v := range []string{"canvas_path", "config_guide", "config_reference", "community_url", "skills_registry_url"} {
		manifest = regexp.MustCompile(`(?m)^`+v+` = .*\n`).ReplaceAllString(manifest, "")
		require.NotContains(t, manifest, v+" =")
	}
	req := gatingRequest()
	req.Channel.ID = "webchat"
	res := render(t, packWith(t, map[string]string{"sections/manifest.toml": manifest}), req)
	text := res.Layers[0].Text
	assert.Contains(t, text, "For configuration, read the configuration guide and reference in the docs.")
	assert.NotContains(t, text, "help each other at")
	assert.Contains(t, text, "## Control UI Embed")
	assert.Contains(t, text, "under `/__openclaw__/canvas/`")
}

// TestExampleGroupSessionKeepsItsPrefix: the shipped group.toml and
// group-next.toml are two turns of one session; their prompts differ and
// their stable prefixes do not, and the direct session's prefix is not
// theirs (it holds MEMORY.md).
func TestExampleGroupSessionKeepsItsPrefix(t *testing.T) {
	cfg, err := config.Parse("agents.toml", mustReadFile(t, "examples/agents.toml"))
	require.NoError(t, err)
	e, err := engine.New(packWith(t, nil), engine.WithFS(exampleWorkspace(t)), engine.WithConfig(cfg))
	require.NoError(t, err)
	layer := func(file string) engine.Layer {
		name := "examples/requests/" + file
		req, err := engine.ParseRequest(name, mustReadFile(t, name))
		require.NoError(t, err)
		req.Workspace.Path = "/ws"
		res, err := e.Render(t.Context(), req)
		require.NoError(t, err)
		return res.Layers[0]
	}
	group, next, direct := layer("group.toml"), layer("group-next.toml"), layer("direct.toml")
	assert.NotEqual(t, group.Text, next.Text)
	assert.Equal(t, group.StableSHA256(), next.StableSHA256())
	assert.NotEqual(t, group.StableSHA256(), direct.StableSHA256())
	assert.Contains(t, direct.Stable, "## /ws/MEMORY.md")
	assert.NotContains(t, group.Text+next.Text, "MEMORY.md holds")
}
