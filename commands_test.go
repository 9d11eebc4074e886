package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes/marks"
	"github.com/gputop-dev/gputop/recordings"
)

// In-process tests of the commands: run() with buffers for streams and a
// channel for signals, as main wires the real ones.

// lockedBuffer is a stream a command writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// testEnv is a command's environment in a test: its output in buffers,
// signals sent with sig, and an exit that records the code.
type testEnv struct {
	env
	out, err lockedBuffer
	sigs     chan os.Signal
	exited   chan int
}

func newTestEnv() *testEnv {
	te := &testEnv{sigs: make(chan os.Signal, 4), exited: make(chan int, 1)}
	te.env = env{
		stdout:  &te.out,
		stderr:  &te.err,
		signals: func() (<-chan os.Signal, func()) { return te.sigs, func() {} },
		exit:    func(code int) { te.exited <- code },
	}
	return te
}

// start runs gputop with args in a goroutine; the exit code arrives on the
// returned channel.
func (te *testEnv) start(args ...string) <-chan int {
	done := make(chan int, 1)
	go func() { done <- run(args, &te.env) }()
	return done
}

// commandNames are the commands the usage lists, or the hidden ones.
func commandNames(hidden bool) []string {
	var out []string
	for _, c := range newRoot(&newTestEnv().env).Commands() {
		if c.Hidden == hidden && c.Name() != "help" {
			out = append(out, c.Name())
		}
	}
	return out
}

// waitExit waits for a command started with start, failing after a while.
func waitExit(t *testing.T, done <-chan int, te *testEnv) int {
	t.Helper()
	select {
	case code := <-done:
		return code
	case <-time.After(30 * time.Second):
		t.Fatalf("the command never ended; stderr:\n%s", te.err.String())
		return -1
	}
}

// waitForSamples waits until a recording at path holds at least n samples.
func waitForSamples(t *testing.T, path string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if r, err := recordings.Open(path); err == nil {
			got := 0
			for {
				if _, err := r.Read(); err != nil {
					break
				}
				got++
			}
			r.Close()
			if got >= n {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held %d samples", path, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// readRecording reads a whole recording: its samples' markers, its hint
// snapshots, and how it ended (nil for a clean close).
func readRecording(t *testing.T, path string) (samples int, markers []string, snaps []recordings.HintSnapshot, end error) {
	t.Helper()
	r, err := recordings.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer r.Close()
	for {
		s, err := r.Read()
		if errors.Is(err, io.EOF) {
			return samples, markers, r.Hints(), nil
		}
		if err != nil {
			return samples, markers, r.Hints(), err
		}
		samples++
		for _, m := range s.Markers {
			markers = append(markers, m.Text+" ("+m.Origin+")")
		}
	}
}

// gputop record listens for markers like the live view and run: two
// clients marking at once both reach the file, and gputop mark says how
// many sessions took each.
func TestRecordTakesMarkersFromTwoClients(t *testing.T) {
	isolateMarks(t)
	path := filepath.Join(t.TempDir(), "marks.gtr")
	te := newTestEnv()
	done := te.start("record", "-o", path, "--demo=checkpoint", "--interval", "100ms")
	waitForSamples(t, path, 2)

	var wg sync.WaitGroup
	outs := make([]*testEnv, 2)
	for i := range outs {
		outs[i] = newTestEnv()
		wg.Go(func() {
			if code := run([]string{"mark", fmt.Sprintf("client %d", i)}, &outs[i].env); code != 0 {
				t.Errorf("gputop mark: exit %d: %s", code, outs[i].err.String())
			}
		})
	}
	wg.Wait()
	for i, o := range outs {
		if want := fmt.Sprintf("marked \"client %d\" in 1 session\n", i); o.out.String() != want {
			t.Errorf("gputop mark said %q, want %q", o.out.String(), want)
		}
	}
	time.Sleep(300 * time.Millisecond) // markers ride on the next sample
	te.sigs <- syscall.SIGINT
	if code := waitExit(t, done, te); code != 0 {
		t.Fatalf("record ended with %d after SIGINT: %s", code, te.err.String())
	}
	_, markers, snaps, end := readRecording(t, path)
	if end != nil {
		t.Errorf("a recording ended by SIGINT is closed cleanly: %v", end)
	}
	slices.Sort(markers)
	if want := []string{"client 0 (mark)", "client 1 (mark)"}; !slices.Equal(markers, want) {
		t.Errorf("markers %q, want %q", markers, want)
	}
	if len(snaps) == 0 {
		t.Error("no verdict in the recording")
	}
	if !strings.Contains(te.err.String(), "recorded ") || !strings.Contains(te.err.String(), path) {
		t.Errorf("record does not say what it recorded where: %q", te.err.String())
	}
}

// --duration ends on the sample at or before the limit, even when the
// interval is longer than the limit.
func TestRecordDurationNeverOvershoots(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--fast", "--interval", "1h", "--duration", "2s"}, "d.gtr (1 sample, "},
		{[]string{"--fast", "--duration", "10m"}, "d.gtr (601 samples, "},
		{[]string{"--fast", "--interval", "4s", "--duration", "10s"}, "recorded 8s to "},
		{[]string{"--interval", "1h", "--duration", "2s"}, "d.gtr (1 sample, "},
	} {
		path := filepath.Join(t.TempDir(), "d.gtr")
		te := newTestEnv()
		start := time.Now()
		code := run(append([]string{"record", "-o", path, "--demo=training"}, tt.args...), &te.env)
		if code != 0 || !strings.Contains(te.err.String(), tt.want) {
			t.Errorf("record %v: exit %d, %q; want %q", tt.args, code, te.err.String(), tt.want)
		}
		// A hang guard, not a timing: one that waits for the next sample
		// past the limit waits an hour (--interval 1h); a loaded machine
		// takes 15 s for ten fast minutes under -race.
		if took := time.Since(start); took > time.Minute {
			t.Errorf("record %v took %v: it waited for a sample past the limit", tt.args, took)
		}
	}
}

// Every command that writes a file fails at once on a path it cannot
// create, before anything starts: run's job never runs.
func TestBadOutputPathFailsBeforeAnythingStarts(t *testing.T) {
	isolateMarks(t)
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	csv := filepath.Join(dir, "smi.csv")
	if err := os.WriteFile(csv, []byte("timestamp, index, utilization.gpu [%]\n2026/11/24 10:00:00.000, 0, 97 %\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "ok.gtr")
	if code := run([]string{"record", "-o", rec, "--demo", "--fast", "--duration", "2s"}, &newTestEnv().env); code != 0 {
		t.Fatal("record failed")
	}
	for _, args := range [][]string{
		{"run", "-o", "/proc/gputop-test.gtr", "--demo", "--", "touch", ran},
		{"record", "-o", "/proc/gputop-test.gtr", "--demo"},
		{"import", csv, "-o", "/proc/gputop-test.gtr"},
		{"export", rec, "--format", "csv", "-o", "/proc/gputop-test.csv"},
	} {
		te := newTestEnv()
		if code := run(args, &te.env); code != 1 {
			t.Errorf("%v: exit %d, want 1", args, code)
		}
		if lines := strings.Split(strings.TrimSpace(te.err.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "/proc/gputop-test.") {
			t.Errorf("%v: stderr %q, want one line naming the file", args, te.err.String())
		}
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("run started its job although it could not record")
	}
}

// A hang-up (or SIGTERM) reaches gputop run: it passes the signal on to
// every process of the job, waits for the job, closes the recording with
// its verdict, writes the report, and exits with the job's code. Nothing
// the job started is left running.
func TestRunOnHangUpPassesItOnAndEndsCleanly(t *testing.T) {
	isolateMarks(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "hup.gtr")
	got := filepath.Join(dir, "got")
	child := filepath.Join(dir, "child")
	// The job traps SIGHUP, saves, and exits 3; its child would outlive it
	// if only the job heard the signal.
	job := fmt.Sprintf(`sleep 1000 & echo $! > %s; trap 'echo HUP > %s; exit 3' HUP; echo "Epoch 1"; while :; do sleep 0.05; done`, child, got)
	te := newTestEnv()
	done := te.start("run", "-o", path, "--demo=training", "--interval", "100ms", "--", "sh", "-c", job)
	waitForSamples(t, path, 3)
	te.sigs <- syscall.SIGHUP
	if code := waitExit(t, done, te); code != 3 {
		t.Fatalf("run exited %d, want the job's 3; stderr:\n%s", code, te.err.String())
	}
	if b, err := os.ReadFile(got); err != nil || string(b) != "HUP\n" {
		t.Errorf("the job did not get SIGHUP: %q, %v", b, err)
	}
	b, err := os.ReadFile(child)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscan(string(b), &pid)
	if stillRunning(pid) {
		t.Errorf("the job's child %d is still running", pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	samples, markers, snaps, end := readRecording(t, path)
	if end != nil || samples < 3 {
		t.Errorf("the recording holds %d samples and ends with %v; want a clean close", samples, end)
	}
	if !slices.Contains(markers, "Epoch 1 (job)") {
		t.Errorf("markers %q lack the job's", markers)
	}
	if len(snaps) == 0 {
		t.Error("no verdict in the recording")
	}
	if !strings.Contains(te.err.String(), "gputop report: DEMO training") {
		t.Errorf("no report on stderr:\n%s", te.err.String())
	}
}

// isolateMarks gives the test a runtime directory (XDG_RUNTIME_DIR) of its
// own, for every session it starts: in-process, as a binary, or in a tmux
// server, which all take the test's environment. The user's other gputop
// sessions on the machine must not take or send its markers, nor be found
// by its attach or stream, nor find its own. (TMPDIR is left alone: with a
// usable runtime directory the rule never looks there, and a test's paths
// stay short enough for its screens.)
func isolateMarks(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
}

// ownRuntimeDirs are the environments of tests that run in parallel
// (isolateOwnMarks), by test.
var ownRuntimeDirs sync.Map

// isolateOwnMarks is isolateMarks for a test that runs in parallel: the
// gputop processes it starts (startStoppable) get a runtime directory of
// their own, and the test process's environment is left as it is.
func isolateOwnMarks(t *testing.T) {
	ownRuntimeDirs.Store(t, append(os.Environ(), "XDG_RUNTIME_DIR="+t.TempDir()))
	t.Cleanup(func() { ownRuntimeDirs.Delete(t) })
}

// envOf is the environment t's processes run with: nil (the test's own)
// unless isolateOwnMarks gave it one.
func envOf(t *testing.T) []string {
	if env, ok := ownRuntimeDirs.Load(t); ok {
		return env.([]string)
	}
	return nil
}

// stillRunning says whether pid is a process that has not exited.
func stillRunning(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// A job that ignores the hang-up is killed --kill-after later; a second
// signal kills it at once.
func TestRunKillsAJobThatIgnoresTheSignal(t *testing.T) {
	isolateMarks(t)
	for _, second := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "ignore.gtr")
		te := newTestEnv()
		done := te.start("run", "-o", path, "--demo", "--interval", "100ms", "--kill-after", "500ms",
			"--", "sh", "-c", `trap '' HUP TERM; while :; do sleep 0.05; done`)
		waitForSamples(t, path, 2)
		start := time.Now()
		te.sigs <- syscall.SIGTERM
		if second {
			te.sigs <- syscall.SIGHUP
		}
		if code := waitExit(t, done, te); code != 128+9 {
			t.Errorf("second signal %v: exit %d, want 137 (SIGKILL); stderr:\n%s", second, code, te.err.String())
		}
		if took := time.Since(start); !second && took < 500*time.Millisecond {
			t.Errorf("killed after %v, before --kill-after", took)
		}
		if _, _, _, end := readRecording(t, path); end != nil {
			t.Errorf("the recording ends with %v; want a clean close", end)
		}
	}
}

// The markers of gputop mark reach every recording session: the live
// view's, record's and run's alike, so a count is what it says.
func TestMarkCountsTheSessionsThatTookIt(t *testing.T) {
	isolateMarks(t)
	te := newTestEnv()
	if code := run([]string{"mark", "eval"}, &te.env); code != 1 || !strings.Contains(te.err.String(), marks.ErrNoSession.Error()) {
		t.Errorf("no session: exit %d, %q", code, te.err.String())
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.gtr"), filepath.Join(dir, "b.gtr")
	rec := newTestEnv()
	doneRec := rec.start("record", "-o", a, "--demo", "--interval", "100ms")
	job := newTestEnv()
	doneRun := job.start("run", "-o", b, "--demo", "--interval", "100ms", "--", "sleep", "30")
	waitForSamples(t, a, 1)
	waitForSamples(t, b, 1)
	te = newTestEnv()
	if code := run([]string{"mark", "eval"}, &te.env); code != 0 || te.out.String() != "marked \"eval\" in 2 sessions\n" {
		t.Errorf("two sessions: exit %d, %q %q", code, te.out.String(), te.err.String())
	}
	// From another runtime directory (another login's), it reaches neither.
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	te = newTestEnv()
	if code := run([]string{"mark", "elsewhere"}, &te.env); code != 1 || !strings.Contains(te.err.String(), marks.ErrNoSession.Error()) {
		t.Errorf("another runtime directory: exit %d, %q %q", code, te.out.String(), te.err.String())
	}
	time.Sleep(300 * time.Millisecond)
	rec.sigs <- syscall.SIGTERM
	job.sigs <- syscall.SIGTERM
	waitExit(t, doneRec, rec)
	waitExit(t, doneRun, job)
	for _, p := range []string{a, b} {
		if _, markers, _, _ := readRecording(t, p); !slices.Equal(markers, []string{"eval (mark)"}) {
			t.Errorf("%s: markers %q", filepath.Base(p), markers)
		}
	}
}

// gputop report --to T is what the screen said at T: a stretch's report
// ends there, its hints carry their standing and episodes, and the hints
// at T differ from the whole run's where the run went on to say more.
func TestReportOfAStretch(t *testing.T) {
	isolateMarks(t)
	path := filepath.Join(t.TempDir(), "ck.gtr")
	if code := run([]string{"record", "-o", path, "--demo=checkpoint", "--fast", "--duration", "8m"}, &newTestEnv().env); code != 0 {
		t.Fatal("record failed")
	}
	report := func(args ...string) (map[string]any, int, string) {
		te := newTestEnv()
		code := run(append([]string{"report", path, "--format", "json"}, args...), &te.env)
		var doc map[string]any
		if code == 0 {
			if err := json.Unmarshal([]byte(te.out.String()), &doc); err != nil {
				t.Fatalf("report %v: %v\n%s", args, err, te.out.String())
			}
		}
		return doc, code, te.err.String()
	}
	ids := func(doc map[string]any) []string {
		var out []string
		for _, h := range doc["hints"].([]any) {
			hint := h.(map[string]any)
			for _, field := range []string{"provisional", "ongoing", "episodes"} {
				if _, ok := hint[field]; !ok {
					t.Errorf("hint %v has no %q", hint["id"], field)
				}
			}
			out = append(out, hint["id"].(string))
		}
		return out
	}
	whole, code, _ := report()
	early, code2, _ := report("--to", "+3m")
	if code != 0 || code2 != 0 {
		t.Fatalf("exit %d and %d", code, code2)
	}
	if d := early["duration_s"].(float64); d < 179 || d > 181 {
		t.Errorf("report --to +3m lasts %v s", d)
	}
	if got := ids(whole); !slices.Contains(got, "periodic-stall") || slices.Contains(got, "busy-wait") {
		t.Errorf("the whole run's hints %v: want periodic-stall, which the spin yields to", got)
	}
	if got := ids(early); !slices.Contains(got, "busy-wait") || slices.Contains(got, "periodic-stall") {
		t.Errorf("at 3m, after two stalls, the hints %v: want busy-wait, not yet periodic-stall", got)
	}
	late, code, _ := report("--from", "+4m")
	if code != 0 || late["duration_s"].(float64) > 241 {
		t.Errorf("report --from +4m: exit %d, %v s", code, late["duration_s"])
	}
	for _, args := range [][]string{{"--from", "+5m", "--to", "+2m"}, {"--to", "+9h"}, {"--to", "soon"}} {
		if _, code, stderr := report(args...); code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("report %v: exit %d, stderr %q; want 2 and one line", args, code, stderr)
		}
	}
}

// The commands that sample beside a job for as long as they run take one
// processor (oneProcessor); those that read a file and end keep every core.
func TestWatchingCommandsTakeOneProcessor(t *testing.T) {
	watchers := map[string]bool{"live": true, "record": true, "run": true, "serve": true, "attach": true, "stream": true}
	for _, c := range commandNames(false) {
		te := newTestEnv()
		called := false
		te.watching = func() { called = true }
		if code := run([]string{c, "--help"}, &te.env); code != exitOK {
			t.Fatalf("gputop %s --help: exit %d: %s", c, code, te.err.String())
		}
		if called != watchers[c] {
			t.Errorf("gputop %s: one processor %v, want %v", c, called, watchers[c])
		}
	}
}

// export -o - writes to standard output, as every Unix tool takes "-",
// and leaves no file named "-" behind.
func TestExportToDashIsStandardOutput(t *testing.T) {
	rec := recordDemo(t, "training", "5s")
	t.Chdir(t.TempDir())
	code, out, errOut := gputop("export", rec, "--format", "csv", "-o", "-")
	if code != 0 || !strings.HasPrefix(out, "time,elapsed_s,device,gpu,") {
		t.Fatalf("export -o -: exit %d, stdout %.80q, stderr %s", code, out, errOut)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Errorf("export -o - left a file named -")
	}
}
