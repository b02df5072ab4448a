package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/bootstrap"
	"github.com/sysprompt/sysprompt/engine/config"
	"github.com/sysprompt/sysprompt/vfs"
)

// diskExampleWorkspace copies examples/workspace into a temporary
// directory and returns its path.
func diskExampleWorkspace(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ws")
	require.NoError(t, os.CopyFS(dir, os.DirFS("../examples/workspace")))
	return dir
}

// exampleRequests parses every shipped request, pointed at workspace.
func exampleRequests(t testing.TB, workspace string) []engine.Request {
	t.Helper()
	files, err := filepath.Glob("../examples/requests/*.toml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var reqs []engine.Request
	for _, f := range files {
		req, err := engine.ParseRequest(f, mustReadFile(t, f))
		require.NoError(t, err)
		req.Workspace.Path = workspace
		reqs = append(reqs, req)
	}
	return reqs
}

// One long-lived engine renders every example request across edits,
// additions and removals of workspace files and skills on the real disk;
// every result must equal a fresh engine's. Where skills change, the turn
// starts a new session (no notification is asked for), as the freshness
// rules require.
func TestLongLivedEngineMatchesFreshAcrossEdits(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: renders every example across many disk edits")
	}
	cfg, err := config.Parse("agents.toml", mustReadFile(t, "../examples/agents.toml"))
	require.NoError(t, err)
	pack := os.DirFS("..")
	// The "once" truncation warning depends on what an engine's store has
	// seen, which a fresh engine has not: neither records anything here.
	opts := []engine.Option{engine.WithFS(vfs.OS()), engine.WithConfig(cfg), engine.WithWarningStore(forgetfulStore{})}
	long, err := engine.New(pack, opts...)
	require.NoError(t, err)
	ws := diskExampleWorkspace(t)
	reqs := exampleRequests(t, ws)

	write := func(name, text string) {
		p := filepath.Join(ws, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	skill := func(name, desc string) string {
		return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\nDo the thing.\n", name, desc)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	edits := []struct {
		name   string
		skills bool // changes skills: the next turn starts a new session
		apply  func(i int)
	}{
		{"edit MEMORY.md", false, func(i int) { write("MEMORY.md", fmt.Sprintf("# Memory\n\nfact %d\n", i)) }},
		{"same-size edit of SOUL.md", false, func(i int) { write("SOUL.md", fmt.Sprintf("Be kind. %04d\n", i%10000)) }},
		{"remove HEARTBEAT.md", false, func(int) { os.Remove(filepath.Join(ws, "HEARTBEAT.md")) }},
		{"add HEARTBEAT.md", false, func(i int) { write("HEARTBEAT.md", fmt.Sprintf("- check mail %d\n", i)) }},
		{"remove USER.md", false, func(int) { os.Remove(filepath.Join(ws, "USER.md")) }},
		{"add USER.md", false, func(i int) { write("USER.md", fmt.Sprintf("Ana, turn %d\n", i)) }},
		{"oversize TOOLS.md", false, func(i int) { write("TOOLS.md", strings.Repeat(fmt.Sprintf("tool note %d\n", i), 3000)) }},
		{"add a skill", true, func(i int) {
			write(fmt.Sprintf("skills/new-%d/SKILL.md", i), skill(fmt.Sprintf("new-%d", i), "a new skill"))
		}},
		{"edit a skill", true, func(i int) {
			write("skills/fact-check/SKILL.md", skill("fact-check", fmt.Sprintf("check facts, take %d", i)))
		}},
		{"remove a skill", true, func(int) { os.RemoveAll(filepath.Join(ws, "skills", "pitch-tracker")) }},
		{"nothing", false, func(int) {}},
	}
	// picks are the edits, in order: 40 seeded random ones. Under -race,
	// where the 40 steps (seven renders on each engine per step) took 8 to
	// 17 s on 2 cores, one pass over every edit in a seeded random order,
	// so that no kind of edit goes untried.
	picks := make([]int, 40)
	for i := range picks {
		picks[i] = rng.IntN(len(edits))
	}
	if raceEnabled {
		picks = rng.Perm(len(edits))
	}
	session := 0
	for i, pick := range picks {
		ed := edits[pick]
		ed.apply(i)
		if ed.skills {
			session++
		}
		for _, req := range reqs {
			req.Session.Key, req.Session.ID = "main", fmt.Sprint("s", session)
			got, err := long.Render(context.Background(), req)
			require.NoError(t, err, "step %d (%s)", i, ed.name)
			fresh, err := engine.New(pack, opts...)
			require.NoError(t, err)
			want, err := fresh.Render(context.Background(), req)
			require.NoError(t, err)
			require.Equal(t, want.Layers, got.Layers, "step %d (%s)", i, ed.name)
			require.Equal(t, want.Omitted, got.Omitted, "step %d (%s)", i, ed.name)
			require.Equal(t, want.Files, got.Files, "step %d (%s)", i, ed.name)
			require.Equal(t, want.Skills, got.Skills, "step %d (%s)", i, ed.name)
		}
	}
}

// forgetfulStore has seen no truncation and remembers none.
type forgetfulStore struct{}

func (forgetfulStore) Claim(context.Context, string) (bool, error) { return true, nil }
func (forgetfulStore) Remember(context.Context, string) error      { return nil }

// exampleDirectRequest is examples/requests/direct.toml, pointed at workspace.
func exampleDirectRequest(t testing.TB, workspace string) engine.Request {
	t.Helper()
	req, err := engine.ParseRequest("direct.toml", mustReadFile(t, "../examples/requests/direct.toml"))
	require.NoError(t, err)
	req.Workspace.Path = workspace
	return req
}

// A session keeps its skills catalog until Engine.SkillsChanged: then a
// skill added on disk shows in its next turn. Result.SkillDirs names the
// folders a watch would follow, the ones read from, also when the prompt
// shows the agent's own path and the files sit in another folder
// (vfs.OSAt).
func TestSkillsChangedRefreshesTheSession(t *testing.T) {
	for name, shownElsewhere := range map[string]bool{"OS": false, "OSAt": true} {
		t.Run(name, func(t *testing.T) {
			ws := diskExampleWorkspace(t)
			fsys, shown := vfs.OS(), ws
			if shownElsewhere {
				fsys, shown = vfs.OSAt(ws), "/Users/ana/.openclaw/workspace"
			}
			e, err := engine.New(os.DirFS(".."), engine.WithFS(fsys))
			require.NoError(t, err)
			req := exampleDirectRequest(t, shown)
			req.Session.Key, req.Session.ID = "main", "one"
			first, err := e.Render(context.Background(), req)
			require.NoError(t, err)
			require.Positive(t, first.Skills.Found, "the workspace's skills were read")
			assert.Contains(t, first.SkillDirs, filepath.Join(ws, "skills"))

			dir := filepath.Join(ws, "skills", "late")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"),
				[]byte("---\nname: late\ndescription: appears mid-session\n---\nbody\n"), 0o644))
			same, err := e.Render(context.Background(), req)
			require.NoError(t, err)
			assert.Equal(t, first.Skills.Found, same.Skills.Found, "the session keeps its catalog")

			e.SkillsChanged()
			res, err := e.Render(context.Background(), req)
			require.NoError(t, err)
			assert.Equal(t, first.Skills.Found+1, res.Skills.Found)
			assert.Contains(t, res.Layers[0].Stable, "<location>"+shown+"/skills/late/SKILL.md</location>")
		})
	}
}

// Without a watch, the same session keeps its snapshot of skills.
func TestSkillsSnapshotHoldsForTheSession(t *testing.T) {
	ws := diskExampleWorkspace(t)
	e, err := engine.New(os.DirFS(".."), engine.WithFS(vfs.OS()))
	require.NoError(t, err)
	req := exampleDirectRequest(t, ws)
	req.Session.Key, req.Session.ID = "main", "one"
	first, err := e.Render(context.Background(), req)
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(filepath.Join(ws, "skills")))
	same, err := e.Render(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, first.Layers, same.Layers)

	req.Session.ID = "two"
	next, err := e.Render(context.Background(), req)
	require.NoError(t, err)
	assert.Zero(t, next.Skills.Found)
	assert.NotContains(t, next.Layers[0].Text, "<available_skills>")
}

// An agent swapping SOUL.md between a file and a symlink to a secret
// outside the workspace, during 10,000 renders on one engine, never gets
// the secret into a prompt: not on a fresh read, not from the snapshot.
func TestSwapRaceNeverReachesThePrompt(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 10,000 renders against a swapping file")
	}
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	require.NoError(t, os.Mkdir(ws, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(base, "secret.txt"), []byte("TOP-SECRET-TOKEN"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "SOUL.md"), []byte("a calm persona"), 0o644))
	e, err := engine.New(os.DirFS(".."), engine.WithFS(vfs.OS()))
	require.NoError(t, err)
	req := engine.Request{Workspace: engine.Workspace{Path: ws}}

	stop := make(chan struct{})
	done := make(chan int)
	go func() {
		swaps := 0
		defer func() { done <- swaps }()
		soul, tmpFile, tmpLink := filepath.Join(ws, "SOUL.md"), filepath.Join(ws, ".f"), filepath.Join(ws, ".l")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			// Each file version differs, so the snapshot is re-read often.
			os.WriteFile(tmpFile, []byte(fmt.Sprintf("a calm persona %d", i)), 0o644)
			os.Rename(tmpFile, soul)
			os.Symlink(filepath.Join(base, "secret.txt"), tmpLink)
			os.Rename(tmpLink, soul)
			swaps++
		}
	}()
	renders := 10000
	if raceEnabled {
		renders = 2000 // the detector slows each render tenfold
	}
	injected := 0
	for range renders {
		res, err := e.Render(context.Background(), req)
		require.NoError(t, err)
		require.NotContains(t, res.Layers[0].Text, "TOP-SECRET-TOKEN")
		if strings.Contains(res.Layers[0].Text, "a calm persona") {
			injected++
		}
	}
	close(stop)
	swaps := <-done
	assert.Positive(t, injected, "SOUL.md was never injected: the test exercised nothing")
	assert.Positive(t, swaps)
}

// FIFOs under bootstrap names are refused at once, with the reason in the
// result, whether the file is required (AGENTS.md) or optional (MEMORY.md);
// a skills root symlinked out of the workspace is refused too.
func TestHostileWorkspaceEntriesAreRefused(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside", "spy")
	require.NoError(t, os.MkdirAll(outside, 0o755))
	require.NoError(t, os.MkdirAll(ws, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "SKILL.md"),
		[]byte("---\nname: spy\ndescription: OUTSIDE-SKILL\n---\n"), 0o644))
	if err := mkfifo(filepath.Join(ws, "AGENTS.md")); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	require.NoError(t, mkfifo(filepath.Join(ws, "MEMORY.md")))
	require.NoError(t, os.Symlink(filepath.Dir(outside), filepath.Join(ws, "skills")))

	e, err := engine.New(os.DirFS(".."), engine.WithFS(vfs.OS()))
	require.NoError(t, err)
	finished := make(chan struct{})
	var res *engine.Result
	go func() {
		defer close(finished)
		res, err = e.Render(context.Background(), engine.Request{Workspace: engine.Workspace{Path: ws}})
	}()
	select {
	case <-finished:
	case <-time.After(10 * time.Second):
		t.Fatal("the render blocked on a FIFO")
	}
	require.NoError(t, err)
	byName := map[string]string{}
	for _, f := range res.Files {
		byName[f.Name] = string(f.Status) + ": " + f.Reason
	}
	assert.Equal(t, "MISSING: not a regular file (named pipe)", byName["AGENTS.md"])
	assert.Equal(t, "SKIPPED: not a regular file (named pipe)", byName["MEMORY.md"])
	assert.NotContains(t, res.Layers[0].Text, "OUTSIDE-SKILL")
	assert.Zero(t, res.Skills.Found)
	require.NotEmpty(t, res.Skills.Problems)
	assert.Contains(t, res.Skills.Problems[0].Message, "symlink points outside the workspace")
}

// A same-size rewrite that keeps the modification time (as a coarse
// clock or a careful tool would) is seen on the next turn: a file changed
// that recently is not served from the snapshot.
func TestSnapshotRereadsRacilyCleanFiles(t *testing.T) {
	ws := workspaceFS(t, map[string]string{"AGENTS.md": "version one"})
	e, err := engine.New(os.DirFS(".."), engine.WithFS(ws))
	require.NoError(t, err)
	req := engine.Request{Workspace: engine.Workspace{Path: "/ws"}}
	first, err := e.Render(context.Background(), req)
	require.NoError(t, err)
	require.Contains(t, first.Layers[0].Text, "version one")

	fi, err := ws.Stat("/ws/AGENTS.md")
	require.NoError(t, err)
	mtime := fi.ModTime() // a copy now: the in-memory FileInfo follows the file
	require.NoError(t, afero.WriteFile(ws, "/ws/AGENTS.md", []byte("version two"), 0o644))
	require.NoError(t, ws.Chtimes("/ws/AGENTS.md", mtime, mtime))
	second, err := e.Render(context.Background(), req)
	require.NoError(t, err)
	assert.Contains(t, second.Layers[0].Text, "version two")
}

// Files kept in the snapshot (older than the racy window) are cut to
// different budgets by different turns: a main session leaves less of the
// total for USER.md than a cron run, and the codex harness charges no
// AGENTS.md. A long-lived engine rendering them in turn, also from several
// goroutines at once, must give what fresh engines give.
func TestLongLivedEngineCutsKeptFilesLikeFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: many renders on the real disk, some concurrent")
	}
	ws := diskExampleWorkspace(t)
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644))
	}
	write("AGENTS.md", strings.Repeat("Agents line, kept whole.\n", 760)) // about 19,000 characters
	write("TOOLS.md", strings.Repeat("Tools line, kept whole.\n", 790))
	write("SOUL.md", strings.Repeat("Soul line.\n", 900))
	write("USER.md", strings.Repeat("A long user profile line that gets cut.\n", 1500))
	write("IDENTITY.md", "name: Wren\x00binary")
	// Files changed within the racy window are read again on every turn;
	// these must be kept.
	time.Sleep(2100 * time.Millisecond)

	pack := os.DirFS("..")
	opts := []engine.Option{engine.WithFS(vfs.OS()), engine.WithWarningStore(forgetfulStore{})}
	long, err := engine.New(pack, opts...)
	require.NoError(t, err)
	reqs := exampleRequests(t, ws)
	cron := exampleDirectRequest(t, ws)
	cron.SessionKind = "cron"
	reqs = append(reqs, cron)

	want := make([]*engine.Result, len(reqs))
	for i, req := range reqs {
		fresh, err := engine.New(pack, opts...)
		require.NoError(t, err)
		want[i], err = fresh.Render(context.Background(), req)
		require.NoError(t, err)
	}
	budgets := map[int]bool{}
	for _, w := range want {
		for _, f := range w.Files {
			if f.Name == "USER.md" {
				require.Equal(t, bootstrap.StatusTruncated, f.Status)
				budgets[f.InjectedChars] = true
			}
		}
	}
	require.Greater(t, len(budgets), 1, "the turns cut USER.md to more than one size")

	check := func(round, i int) error {
		got, err := long.Render(context.Background(), reqs[i])
		if err != nil {
			return err
		}
		if !assert.Equal(t, want[i].Files, got.Files, "round %d, request %d", round, i) ||
			!assert.Equal(t, want[i].Layers, got.Layers, "round %d, request %d", round, i) {
			return fmt.Errorf("round %d, request %d differs", round, i)
		}
		return nil
	}
	for round := range 3 {
		for i := range reqs {
			require.NoError(t, check(round, i))
		}
	}
	errs := make(chan error, 4*len(reqs))
	for g := range 4 {
		go func() {
			for i := range reqs {
				errs <- check(10+g, (i+g)%len(reqs))
			}
		}()
	}
	for range 4 * len(reqs) {
		require.NoError(t, <-errs)
	}
}
