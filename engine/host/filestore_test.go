package host

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/bootstrap"
)

// openStore is a FileStore whose problems are passed to warn (nil: dropped).
func openStore(fsys afero.Fs, path string, warn func(error)) *FileStore {
	return NewFileStore(fsys, path, warn)
}

// collect is a warn function and what it was given. A FileStore calls
// its warn function from one call at a time.
type collect []error

func (c *collect) warn(err error) { *c = append(*c, err) }

// seenInFile is the "seen" list of the state file at path on disk.
func seenInFile(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var st struct {
		Seen []string `json:"seen"`
	}
	require.NoError(t, json.Unmarshal(data, &st), "%s", data)
	return st.Seen
}

// claimThenRecord is one render's part in the "once" protocol for each
// signature: bootstrap.ShouldWarn, then, after every other render in the test has
// decided too (renders that overlap), bootstrap.Record for each notice shown.
func claimThenRecord(ctx context.Context, store bootstrap.Store, decided *sync.WaitGroup, sigs ...string) ([]bool, error) {
	shown := make([]bool, len(sigs))
	var err error
	for i, sig := range sigs {
		var e error
		shown[i], e = bootstrap.ShouldWarn(ctx, bootstrap.WarningOnce, sig, store)
		if err == nil {
			err = e
		}
	}
	decided.Done()
	decided.Wait()
	for i, sig := range sigs {
		if shown[i] {
			if e := bootstrap.Record(ctx, bootstrap.WarningOnce, sig, store); err == nil {
				err = e
			}
		}
	}
	return shown, err
}

// Renders that overlap, each with its own FileStore on one file (as
// separate processes have), show a notice once between them and lose no
// signature any of them recorded.
func TestFileStoreConcurrentRenders(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 20 overlapping renders with file locks")
	}
	const renders = 20
	path := filepath.Join(t.TempDir(), "seen.json")
	var decided, done sync.WaitGroup
	decided.Add(renders)
	shown := make([][]bool, renders)
	errs := make([]error, renders)
	for i := range renders {
		done.Go(func() {
			store := openStore(afero.NewOsFs(), path, nil)
			store.lockWait = time.Minute // 20 renders in turn can outwait the default second on a busy machine, and drop a record by design
			shown[i], errs[i] = claimThenRecord(t.Context(), store, &decided, "shared", fmt.Sprintf("own-%02d", i))
		})
	}
	done.Wait()
	sharedShown := 0
	for i := range renders {
		require.NoError(t, errs[i], "render %d", i)
		if shown[i][0] {
			sharedShown++
		}
		assert.True(t, shown[i][1], "render %d's own signature is new", i)
	}
	assert.Equal(t, 1, sharedShown, "renders that showed the shared notice")
	seen := seenInFile(t, path)
	assert.Len(t, seen, renders+1, "%q", seen)
	assert.Contains(t, seen, "shared")
	for i := range renders {
		assert.Contains(t, seen, fmt.Sprintf("own-%02d", i), "lost update")
	}
}

// stateHelperEnv names the state file a TestStateHelperProcess run uses.
const stateHelperEnv = "SYSPROMPT_TEST_STATE_FILE"

// The same as TestFileStoreConcurrentRenders with real processes: the
// test binary, run several times as TestStateHelperProcess.
func TestFileStoreConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts several processes")
	}
	const procs = 6
	path := filepath.Join(t.TempDir(), "seen.json")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	type proc struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		out   *bufio.Reader
	}
	ps := make([]proc, procs)
	for i := range ps {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestStateHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), stateHelperEnv+"="+path, "SYSPROMPT_TEST_STATE_ID="+strconv.Itoa(i), "GORACE=atexit_sleep_ms=0")
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		require.NoError(t, err)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		ps[i] = proc{cmd, stdin, bufio.NewReader(stdout)}
	}
	// Every process decides before any records: renders that overlap.
	sharedShown := 0
	for i, p := range ps {
		line, err := p.out.ReadString('\n')
		require.NoError(t, err, "process %d", i)
		var shared, own bool
		_, err = fmt.Sscanf(line, "shown %t %t\n", &shared, &own)
		require.NoError(t, err, "process %d said %q", i, line)
		assert.True(t, own, "process %d's own signature is new", i)
		if shared {
			sharedShown++
		}
	}
	for _, p := range ps {
		require.NoError(t, p.stdin.Close())
	}
	for i, p := range ps {
		_, _ = io.Copy(io.Discard, p.out)
		require.NoError(t, p.cmd.Wait(), "process %d", i)
	}
	assert.Equal(t, 1, sharedShown, "processes that showed the shared notice")
	seen := seenInFile(t, path)
	assert.Contains(t, seen, "shared")
	for i := range procs {
		assert.Contains(t, seen, fmt.Sprintf("own-%02d", i), "lost update")
	}
}

// TestStateHelperProcess is one render of TestFileStoreConcurrentProcesses:
// it decides, prints "shown SHARED OWN", waits for stdin to close, then
// records.
func TestStateHelperProcess(t *testing.T) {
	path := os.Getenv(stateHelperEnv)
	if path == "" {
		t.Skip("run by TestFileStoreConcurrentProcesses")
	}
	ctx := context.Background()
	store := openStore(afero.NewOsFs(), path, nil)
	sigs := []string{"shared", "own-0" + os.Getenv("SYSPROMPT_TEST_STATE_ID")}
	shown := make([]bool, len(sigs))
	for i, sig := range sigs {
		var err error
		shown[i], err = bootstrap.ShouldWarn(ctx, bootstrap.WarningOnce, sig, store)
		require.NoError(t, err)
	}
	fmt.Printf("shown %t %t\n", shown[0], shown[1])
	_, err := io.Copy(io.Discard, os.Stdin)
	require.NoError(t, err)
	for i, sig := range sigs {
		if shown[i] {
			require.NoError(t, bootstrap.Record(ctx, bootstrap.WarningOnce, sig, store))
		}
	}
}

// A state file that is empty or does not hold a state reads as empty,
// with a warning, and the next record replaces it with a good one.
func TestFileStoreBadFileIsEmpty(t *testing.T) {
	ctx := context.Background()
	for name, body := range map[string]string{
		"empty":         "",
		"blank":         " \n\t",
		"not json":      "{not json",
		"cut short":     `{"seen": ["a"`,
		"unknown field": `{"seen": [], "other": 1}`,
		"trailing data": `{"seen": []} []`,
		"wrong type":    `{"seen": "sig"}`,
		"huge number":   `{"seen": [1e999]}`,
		"too large":     `{"seen": ["sig"]}` + strings.Repeat(" ", 2<<20),
	} {
		t.Run(name, func(t *testing.T) {
			fsys := afero.NewMemMapFs()
			require.NoError(t, afero.WriteFile(fsys, "state.json", []byte(body), 0o600))
			var warnings collect
			store := openStore(fsys, "state.json", warnings.warn)
			show, err := bootstrap.ShouldWarn(ctx, bootstrap.WarningOnce, "sig", store)
			require.NoError(t, err, "a bad state file must not fail the render")
			assert.True(t, show, "a bad state file is an empty one")
			require.NoError(t, bootstrap.Record(ctx, bootstrap.WarningOnce, "sig", store))
			require.Len(t, warnings, 1, "%q", warnings)
			assert.ErrorContains(t, warnings[0], "state file state.json")

			again := openStore(fsys, "state.json", warnings.warn)
			show, err = bootstrap.ShouldWarn(ctx, bootstrap.WarningOnce, "sig", again)
			require.NoError(t, err)
			assert.False(t, show, "the record replaced the bad file")
			assert.Len(t, warnings, 1, "a good file gives no warning")
		})
	}
}

// A state file that cannot be written, or read, costs at most a repeated
// notice: the render goes on and the store says why.
func TestFileStoreUnwritable(t *testing.T) {
	ctx := context.Background()
	onDisk := func(t *testing.T) (afero.Fs, string) { return afero.NewOsFs(), t.TempDir() }
	tests := []struct {
		name  string
		perms bool // relies on permission bits
		setup func(t *testing.T) (afero.Fs, string)
	}{
		{name: "path is a directory", setup: onDisk},
		{name: "parent is a file", setup: func(t *testing.T) (afero.Fs, string) {
			file := filepath.Join(t.TempDir(), "file")
			require.NoError(t, os.WriteFile(file, nil, 0o600))
			return afero.NewOsFs(), filepath.Join(file, "seen.json")
		}},
		{name: "read-only filesystem", setup: func(*testing.T) (afero.Fs, string) {
			return afero.NewReadOnlyFs(afero.NewMemMapFs()), "seen.json"
		}},
		{name: "read-only directory", perms: true, setup: func(t *testing.T) (afero.Fs, string) {
			dir := t.TempDir()
			require.NoError(t, os.Chmod(dir, 0o500))
			t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
			return afero.NewOsFs(), filepath.Join(dir, "seen.json")
		}},
		{name: "unreadable file", perms: true, setup: func(t *testing.T) (afero.Fs, string) {
			path := filepath.Join(t.TempDir(), "seen.json")
			require.NoError(t, os.WriteFile(path, []byte(`{"seen": []}`), 0o200))
			return afero.NewOsFs(), path
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.perms {
				skipIfPermissionsUnenforced(t)
			}
			fsys, path := tt.setup(t)
			var warnings collect
			store := openStore(fsys, path, warnings.warn)
			show, err := bootstrap.ShouldWarn(ctx, bootstrap.WarningOnce, "sig", store)
			require.NoError(t, err, "an unusable state file must not fail the render")
			assert.True(t, show, "a notice not known to be seen shows")
			require.NoError(t, bootstrap.Record(ctx, bootstrap.WarningOnce, "sig", store), "nor may recording it")
			require.NotEmpty(t, warnings)
			for _, w := range warnings {
				assert.ErrorContains(t, w, "state file "+path)
			}
		})
	}
}

// skipIfPermissionsUnenforced skips a test of permission bits where they
// do not apply: for root, and on Windows.
func skipIfPermissionsUnenforced(t *testing.T) {
	t.Helper()
	if os.Geteuid() == 0 {
		t.Skip("root ignores permission bits")
	}
	if os.Geteuid() == -1 {
		t.Skip("no Unix permission bits")
	}
}

// clock is a settable time for a FileStore's claims.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// A claim holds its signature against other stores until it is remembered
// or lapses, never against its own store: a render that failed after
// claiming leaves the notice to the next render.
func TestFileStoreClaims(t *testing.T) {
	ctx := context.Background()
	fsys := afero.NewMemMapFs()
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	a, b := openStore(fsys, "seen.json", nil), openStore(fsys, "seen.json", nil)
	a.now, b.now = c.now, c.now
	claim := func(s *FileStore, sig string) bool {
		t.Helper()
		won, err := s.Claim(ctx, sig)
		require.NoError(t, err)
		return won
	}

	require.True(t, claim(a, "sig"))
	assert.False(t, claim(b, "sig"), "held by a")
	assert.True(t, claim(a, "sig"), "a store is not held back by its own claim")
	seen, err := b.Seen(ctx, "sig")
	require.NoError(t, err)
	assert.False(t, seen, "a claim is not a record")

	c.t = c.t.Add(claimLease - time.Second)
	assert.False(t, claim(b, "sig"), "still held just before the lease ends")
	c.t = c.t.Add(time.Second)
	assert.True(t, claim(b, "sig"), "free once the lease ends")
	assert.False(t, claim(a, "sig"), "now held by b")

	assert.True(t, claim(a, "other"), "a claim holds one signature")
	require.NoError(t, b.Remember(ctx, "sig"))
	assert.False(t, claim(a, "sig"), "remembered")
	assert.False(t, claim(b, "sig"), "remembered, for its claimant too")
	data, err := afero.ReadFile(fsys, "seen.json")
	require.NoError(t, err)
	var st state
	require.NoError(t, json.Unmarshal(data, &st))
	assert.Equal(t, []string{"sig"}, st.Seen)
	require.Len(t, st.Claims, 1, "the record dropped its claim: %s", data)
	assert.Equal(t, "other", st.Claims[0].Signature)
}

// A claim from a clock far ahead, or a hand edit, must not hold a
// signature for longer than a lease.
func TestFileStoreClaimTooFarAhead(t *testing.T) {
	fsys := afero.NewMemMapFs()
	require.NoError(t, afero.WriteFile(fsys, "seen.json",
		[]byte(`{"seen": [], "claims": [{"signature": "sig", "owner": "x", "until": "2999-01-01T00:00:00Z"}]}`), 0o600))
	won, err := openStore(fsys, "seen.json", nil).Claim(context.Background(), "sig")
	require.NoError(t, err)
	assert.True(t, won)
}

// Problems reach warn as *StateErrors saying what the store did instead,
// once each until a call goes through cleanly.
func TestFileStoreWarnings(t *testing.T) {
	ctx := context.Background()
	fsys := afero.NewMemMapFs()
	require.NoError(t, afero.WriteFile(fsys, "seen.json", []byte("{"), 0o600))
	var warnings collect
	store := openStore(fsys, "seen.json", warnings.warn)

	for range 2 {
		seen, err := store.Seen(ctx, "sig")
		require.NoError(t, err)
		assert.False(t, seen)
	}
	require.Len(t, warnings, 1, "a problem is reported once")
	var se *StateError
	require.ErrorAs(t, warnings[0], &se)
	assert.Equal(t, "seen.json", se.Path)
	assert.Equal(t, "parse", se.Op)
	assert.EqualError(t, se, "bootstrap: state file seen.json: parse: unexpected EOF; treated as empty")
	data, _ := afero.ReadFile(fsys, "seen.json")
	assert.Equal(t, "{", string(data), "Seen writes nothing")

	require.NoError(t, store.Remember(ctx, "sig"))
	assert.Len(t, warnings, 1, "already reported")
	seen, err := store.Seen(ctx, "sig")
	require.NoError(t, err)
	assert.True(t, seen, "the record replaced the corrupt file")

	require.NoError(t, afero.WriteFile(fsys, "seen.json", nil, 0o600))
	_, err = store.Seen(ctx, "sig")
	require.NoError(t, err)
	_, err = store.Seen(ctx, "sig")
	require.NoError(t, err)
	require.Len(t, warnings, 2)
	assert.EqualError(t, warnings[1], "bootstrap: state file seen.json: parse: no content; treated as empty")
	require.NoError(t, afero.WriteFile(fsys, "seen.json", []byte(`{"seen": []}`), 0o600))
	_, err = store.Seen(ctx, "sig")
	require.NoError(t, err)
	require.NoError(t, afero.WriteFile(fsys, "seen.json", nil, 0o600))
	_, err = store.Seen(ctx, "sig")
	require.NoError(t, err)
	assert.Len(t, warnings, 3, "a problem that comes back after a clean call is reported again")

	ro := openStore(afero.NewReadOnlyFs(afero.NewMemMapFs()), "seen.json", warnings.warn)
	won, err := ro.Claim(ctx, "sig")
	require.NoError(t, err)
	assert.True(t, won)
	require.Len(t, warnings, 4)
	require.ErrorAs(t, warnings[3], &se)
	assert.Equal(t, "lock", se.Op)
	assert.ErrorIs(t, se, fs.ErrPermission)
	assert.ErrorContains(t, se, "seen.json.lock")
	assert.ErrorContains(t, se, "; nothing recorded, so a notice may show again")

	quiet := openStore(afero.NewReadOnlyFs(afero.NewMemMapFs()), "seen.json", nil)
	_, err = quiet.Claim(ctx, "sig")
	assert.NoError(t, err, "no warn function: problems are dropped")
}

// A byte order mark, which some editors add, is not corruption.
func TestFileStoreByteOrderMark(t *testing.T) {
	fsys := afero.NewMemMapFs()
	require.NoError(t, afero.WriteFile(fsys, "seen.json", []byte("\uFEFF{\"seen\": [\"sig\"]}\n"), 0o600))
	var warnings collect
	seen, err := openStore(fsys, "seen.json", warnings.warn).Seen(context.Background(), "sig")
	require.NoError(t, err)
	assert.True(t, seen)
	assert.Empty(t, warnings)
}

// Writes stay under the size a read accepts, dropping the oldest entries.
func TestFileStoreSizeBound(t *testing.T) {
	ctx := context.Background()
	fsys := afero.NewMemMapFs()
	var warnings collect
	store := openStore(fsys, "seen.json", warnings.warn)
	big := func(i int) string { return strconv.Itoa(i) + strings.Repeat("x", maxStateBytes/3) }
	for i := range 5 {
		require.NoError(t, store.Remember(ctx, big(i)))
	}
	info, err := fsys.Stat("seen.json")
	require.NoError(t, err)
	assert.LessOrEqual(t, info.Size(), int64(maxStateBytes))
	for i, want := range map[int]bool{0: false, 2: false, 3: true, 4: true} {
		seen, err := store.Seen(ctx, big(i))
		require.NoError(t, err)
		assert.Equal(t, want, seen, "signature %d", i)
	}
	assert.Empty(t, warnings, "the file always read back")
}

// A lock that stays held costs the wait and a warning, not the render;
// nothing is written without it. A context that ends first is an error.
func TestFileStoreLockHeld(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seen.json")
	holder := openStore(afero.NewOsFs(), path, nil)
	unlock, err := holder.lock(context.Background())
	require.NoError(t, err)
	defer unlock()

	var warnings collect
	store := openStore(afero.NewOsFs(), path, warnings.warn)
	store.lockWait = 50 * time.Millisecond
	won, err := store.Claim(context.Background(), "sig")
	require.NoError(t, err)
	assert.True(t, won)
	require.Len(t, warnings, 1)
	var se *StateError
	require.ErrorAs(t, warnings[0], &se)
	assert.Equal(t, "lock", se.Op)
	assert.ErrorContains(t, se, "still held by another store after 50ms")
	_, err = os.Stat(path)
	assert.ErrorIs(t, err, fs.ErrNotExist, "nothing written without the lock")

	// Once a wait has run out, the store does not wait again while the
	// lock stays held: an hour's wait would end the context first.
	store.lockWait = time.Hour
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	won, err = store.Claim(ctx, "sig")
	require.NoError(t, err, "no second wait")
	assert.True(t, won)
	assert.Len(t, warnings, 1, "the same problem, reported once")

	store = openStore(afero.NewOsFs(), path, warnings.warn)
	store.lockWait = time.Minute
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = store.Claim(ctx, "sig")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Len(t, warnings, 1, "an ended context is the caller's, not a problem with the file")

	unlock()
	won, err = store.Claim(context.Background(), "sig")
	require.NoError(t, err)
	assert.True(t, won)
	assert.Equal(t, []string{}, seenInFile(t, path), "claimed, not yet remembered")
}

// A render's part in "once" (claim, then record) costs a held lock about
// a second, not a wait per call; the render carries each problem, and
// what the file already says is still honoured.
func TestFileStoreLockHeldCostsARenderASecond(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out a held lock")
	}
	path := filepath.Join(t.TempDir(), "seen.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"seen": ["old"]}`), 0o600))
	holder := openStore(afero.NewOsFs(), path, nil)
	unlock, err := holder.lock(context.Background())
	require.NoError(t, err)
	defer unlock()

	var warnings collect
	var problems []error
	store := openStore(afero.NewOsFs(), path, warnings.warn)
	ctx := bootstrap.CollectProblems(context.Background(), &problems)
	start := time.Now()
	shown, err := bootstrap.ShouldWarn(ctx, bootstrap.WarningOnce, "sig", store)
	require.NoError(t, err)
	assert.True(t, shown)
	// The record does not wait again: an hour's wait would end its
	// context first.
	store.lockWait = time.Hour
	recordCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	require.NoError(t, bootstrap.Record(recordCtx, bootstrap.WarningOnce, "sig", store))
	assert.Less(t, time.Since(start), 5*time.Second)
	require.Len(t, problems, 2, "the claim's and the record's")
	for _, p := range problems {
		var se *StateError
		require.ErrorAs(t, p, &se)
		assert.Equal(t, "lock", se.Op)
	}
	assert.Len(t, warnings, 1)
	assert.Equal(t, []string{"old"}, seenInFile(t, path), "nothing written without the lock")

	shown, err = bootstrap.ShouldWarn(ctx, bootstrap.WarningOnce, "old", store)
	require.NoError(t, err)
	assert.False(t, shown, "a notice the file records is not shown again")
}

// FuzzStateFile takes any bytes as the state file: a store reads them as
// the state they hold or, with one warning, as empty; it claims and
// records as that state says, never fails, and leaves a good file that
// keeps the newest of what it held.
func FuzzStateFile(f *testing.F) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // the seeds' claims are timed by it
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		fsys := afero.NewMemMapFs()
		require.NoError(t, afero.WriteFile(fsys, "seen.json", data, 0o600))
		var warnings collect
		store := openStore(fsys, "seen.json", warnings.warn)
		store.now = func() time.Time { return now }
		before, err := parseState(data)
		good := err == nil && len(data) <= maxStateBytes
		before.tidy(now)

		seen, err := store.Seen(ctx, "sig")
		require.NoError(t, err)
		if good {
			require.Empty(t, warnings)
			require.Equal(t, slices.Contains(before.Seen, "sig"), seen)
		} else {
			require.Len(t, warnings, 1)
			var se *StateError
			require.ErrorAs(t, warnings[0], &se)
			require.Equal(t, "parse", se.Op)
			require.False(t, seen)
		}

		won, err := store.Claim(ctx, "sig")
		require.NoError(t, err)
		require.Equal(t, !seen && before.holder("sig") == "", won)
		require.NoError(t, store.Remember(ctx, "sig"))
		require.Len(t, warnings, map[bool]int{true: 0, false: 1}[good], "%q", warnings)

		written, err := afero.ReadFile(fsys, "seen.json")
		require.NoError(t, err)
		after, err := parseState(written)
		require.NoError(t, err, "%s", written)
		require.LessOrEqual(t, len(written), maxStateBytes)
		require.Equal(t, "sig", after.Seen[len(after.Seen)-1])
		if good && len(written) < maxStateBytes/4 {
			for _, sig := range before.Seen[max(0, len(before.Seen)-(bootstrap.MaxSeen-1)):] {
				require.Contains(t, after.Seen, sig, "lost a seen signature")
			}
		}
	})
}

func TestFileStore(t *testing.T) {
	ctx := context.Background()
	t.Run("keeps the newest 32, atomically", func(t *testing.T) {
		fsys := afero.NewMemMapFs()
		store := NewFileStore(fsys, "seen.json", nil)
		for i := range 40 {
			require.NoError(t, store.Remember(ctx, fmt.Sprintf("sig-%02d", i)))
		}
		require.NoError(t, store.Remember(ctx, "sig-10")) // seen again: now the newest
		for sig, want := range map[string]bool{"sig-00": false, "sig-07": false, "sig-08": true, "sig-10": true, "sig-39": true} {
			got, err := store.Seen(ctx, sig)
			require.NoError(t, err)
			assert.Equal(t, want, got, sig)
		}
		data, err := afero.ReadFile(fsys, "seen.json")
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(data), "{\n  \"seen\": [\n    \"sig-08\",\n    \"sig-09\",\n    \"sig-11\","), string(data))
		assert.True(t, strings.HasSuffix(string(data), "\"sig-39\",\n    \"sig-10\"\n  ]\n}\n"), string(data))
		entries, err := afero.ReadDir(fsys, ".")
		require.NoError(t, err)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		assert.Equal(t, []string{"seen.json", "seen.json.lock"}, names, "no temporary files left behind")
	})
	t.Run("missing file is empty", func(t *testing.T) {
		seen, err := NewFileStore(afero.NewMemMapFs(), "none.json", nil).Seen(ctx, "x")
		require.NoError(t, err)
		assert.False(t, seen)
	})
}
