package request

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/sysprompt/sysprompt/engine/internal/pack"
)

// Complete fills what a valid request leaves to defaults: the full mode,
// the default harness, and the session's kind and chat type from its key
// (see keyParts). It refuses a light run that is not a cron run.
func (r *Request) Complete() error {
	r.Mode = cmp.Or(r.Mode, ModeFull)
	r.Harness = cmp.Or(r.Harness, pack.DefaultHarness)
	if r.SessionKind == "" {
		r.SessionKind = cmp.Or(sessionKindOfKey(r.Session.Key), "main")
	}
	if r.ChatType == "" {
		r.ChatType = chatTypeOfKey(r.Session.Key)
	}
	if r.LightContext && r.SessionKind != "cron" {
		return fmt.Errorf("light_context is for cron runs; this is a %s session", r.SessionKind)
	}
	return nil
}

// Session keys name a session for its life, as the original product
// writes them: "agent:<agent>:<channel>:<kind>:<peer>" for a chat
// ("agent:wren:discord:group:…"), "agent:<agent>:subagent:…" and
// "agent:<agent>:cron:…" for the other runs. When a request leaves the
// session's kind or chat type unset, its key decides, so the private
// files stay private. keyParts is the key's parts after "agent:<agent>",
// lower-cased, and whether the key has that form; a key in another form
// is all parts.
func keyParts(key string) ([]string, bool) {
	parts := strings.Split(strings.ToLower(key), ":")
	if len(parts) >= 2 && parts[0] == "agent" {
		return parts[2:], true
	}
	return parts, false
}

// sessionKindOfKey is "subagent" or "cron" when the key's first part
// after the agent says so, "" otherwise.
func sessionKindOfKey(key string) string {
	if parts, _ := keyParts(key); len(parts) > 0 && (parts[0] == "subagent" || parts[0] == "cron") {
		return parts[0]
	}
	return ""
}

// chatTypeOfKey is "group" or "channel" when a part after the key's
// channel says so, "" otherwise.
func chatTypeOfKey(key string) string {
	parts, agentForm := keyParts(key)
	if agentForm && len(parts) > 0 {
		parts = parts[1:] // the channel's own name
	}
	for _, part := range parts {
		if part == "group" || part == "channel" {
			return part
		}
	}
	return ""
}
