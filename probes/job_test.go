package probes

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes/marks"
)

// syncBuffer is a job's output as the test sees it, safe to read while the
// job writes, with a way to wait until some text has arrived.
type syncBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	waitFor string
	arrived chan struct{}
}

func newSyncBuffer(waitFor string) *syncBuffer {
	return &syncBuffer{waitFor: waitFor, arrived: make(chan struct{})}
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	seen := b.waitFor != "" && strings.Contains(b.buf.String(), b.waitFor)
	n, err := b.buf.Write(p)
	if !seen && b.waitFor != "" && strings.Contains(b.buf.String(), b.waitFor) {
		close(b.arrived)
	}
	return n, err
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// shellJob runs script under sh and waits for it.
func shellJob(t *testing.T, cfg JobConfig, script string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	out, errOut := newSyncBuffer(""), newSyncBuffer("")
	cfg.Command = append([]string{"sh", "-c", script, "job"}, args...)
	cfg.Stdout, cfg.Stderr = out, errOut
	j, err := StartJob(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	code, err = j.Wait()
	if err != nil {
		t.Errorf("Wait: %v", err)
	}
	return code, out.String(), errOut.String()
}

func TestJobExitCodes(t *testing.T) {
	tests := []struct {
		script string
		want   int
	}{
		{"exit 0", 0},
		{"exit 3", 3},
		{"kill -KILL $$", 128 + 9},
		{"kill -TERM $$", 128 + 15},
	}
	for _, tt := range tests {
		for _, re := range []*PhaseRules{nil, DefaultPhases()} { // straight to the files, and through pipes
			if code, _, _ := shellJob(t, JobConfig{Phases: re}, tt.script); code != tt.want {
				t.Errorf("%q (regex %v): exit code %d, want %d", tt.script, re != nil, code, tt.want)
			}
		}
	}
}

func TestJobOutputPassesThroughByteForByte(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	// Every byte value, "\r" and "\n" among them, then 3 MB of one line
	// with no newline, ending without one: the matcher must neither hold
	// it all nor change a byte.
	stdout := make([]byte, 0, 4<<20)
	for i := range 1 << 20 {
		stdout = append(stdout, byte(i), byte(rng.Uint32()))
	}
	stdout = append(stdout, bytes.Repeat([]byte("x"), 3<<20)...)
	stderr := []byte("Epoch 1/2\x00\xff\x1b[31mred\x1b[0m\r\npartial last line")
	if err := os.WriteFile(filepath.Join(dir, "out"), stdout, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "err"), stderr, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, re := range []*PhaseRules{nil, DefaultPhases()} {
		code, gotOut, gotErr := shellJob(t, JobConfig{Phases: re}, `cat "$1"; cat "$2" >&2`,
			filepath.Join(dir, "out"), filepath.Join(dir, "err"))
		if code != 0 {
			t.Errorf("exit code %d", code)
		}
		if gotOut != string(stdout) {
			t.Errorf("regex %v: stdout differs: %d bytes, want %d", re != nil, len(gotOut), len(stdout))
		}
		if gotErr != string(stderr) {
			t.Errorf("regex %v: stderr %q, want %q", re != nil, gotErr, stderr)
		}
	}
}

func TestJobMarkersComeFromMatchingLinesOnly(t *testing.T) {
	var markers []string
	cfg := JobConfig{Phases: DefaultPhases(), OnMarker: func(text string) { markers = append(markers, text) }}
	script := `printf 'loading data\nEpoch 1/2\nstep 1 loss 3.1\n\033[32mEpoch 1/2\033[0m\n'
printf 'Saving model checkpoint to out/checkpoint-1\nstep 2 loss 2.9\nEpoch 2/2\nlast line, no newline: epoch 9'`
	if code, _, _ := shellJob(t, cfg, script); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	want := []string{"Epoch 1", "Saving model checkpoint to out/checkpoint-1", "Epoch 2", "epoch 9"}
	if !slices.Equal(markers, want) {
		t.Errorf("markers %q, want %q", markers, want)
	}

	markers = nil
	cfg.Phases = PhasesFrom(regexp.MustCompile(`^PHASE (\w+)`))
	shellJob(t, cfg, `echo 'PHASE warmup'; echo 'not a PHASE x' >&2; echo 'PHASE train' >&2`)
	slices.Sort(markers) // one from each stream: either may come first
	if want := []string{"train", "warmup"}; !slices.Equal(markers, want) {
		t.Errorf("custom regex: markers %q, want %q", markers, want)
	}

	markers = nil
	cfg.Phases = nil
	shellJob(t, cfg, `echo 'Epoch 1/2'`)
	if len(markers) != 0 {
		t.Errorf("no regex: markers %q", markers)
	}
}

func TestJobEnvironment(t *testing.T) {
	t.Setenv("GPUTOP_TEST_INHERITED", "from gputop")
	t.Setenv("PYTHONUNBUFFERED", "")
	if err := os.Unsetenv("PYTHONUNBUFFERED"); err != nil {
		t.Fatal(err)
	}
	cfg := JobConfig{Phases: DefaultPhases(), Env: []string{marks.SocketEnv + "=/run/user/1/gputop/7.sock"}}
	_, out, _ := shellJob(t, cfg, `echo "$GPUTOP_MARK_SOCKET|$GPUTOP_TEST_INHERITED|$PYTHONUNBUFFERED"`)
	if want := "/run/user/1/gputop/7.sock|from gputop|1\n"; out != want {
		t.Errorf("job saw %q, want %q", out, want)
	}
	t.Setenv("PYTHONUNBUFFERED", "")
	if _, out, _ := shellJob(t, cfg, `echo "${PYTHONUNBUFFERED-unset}"`); out != "\n" {
		t.Errorf("PYTHONUNBUFFERED set by the user to empty: job saw %q", out)
	}
}

func TestJobStdin(t *testing.T) {
	if _, out, _ := shellJob(t, JobConfig{Stdin: strings.NewReader("typed\x00ahead")}, `cat`); out != "typed\x00ahead" {
		t.Errorf("job read %q", out)
	}
	// A file is handed over as it is: the job's fd 0 is that file, not a pipe.
	f, err := os.Open("job_test.go")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, out, _ := shellJob(t, JobConfig{Stdin: f, Phases: DefaultPhases()}, `readlink /proc/self/fd/0`)
	if want, _ := filepath.Abs(f.Name()); strings.TrimSpace(out) != want {
		t.Errorf("job's stdin is %q, want the file %s", out, want)
	}
}

func TestJobPID(t *testing.T) {
	out := newSyncBuffer("")
	j, err := StartJob(JobConfig{Command: []string{"sh", "-c", "echo $$"}, Stdout: out})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); got != strconv.Itoa(j.PID()) {
		t.Errorf("PID() = %d, the job says %s", j.PID(), got)
	}
}

// startWaiting starts script and waits until it has printed ready.
func startWaiting(t *testing.T, script string) (*Job, *syncBuffer) {
	t.Helper()
	out := newSyncBuffer("ready")
	j, err := StartJob(JobConfig{Command: []string{"sh", "-c", script}, Stdout: out, Phases: DefaultPhases()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	<-out.arrived
	return j, out
}

func TestJobSignalForwardsTerm(t *testing.T) {
	j, _ := startWaiting(t, `echo ready; exec sleep 100`)
	if _, err := j.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, err := j.Wait(); code != 128+15 || err != nil {
		t.Errorf("Wait = %d, %v; want 143", code, err)
	}
	if _, err := j.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("Signal after the job ended: %v", err)
	}

	// A job that handles SIGTERM hears it once, and exits as it chooses.
	j, out := startWaiting(t, `trap 'echo got TERM; exit 5' TERM; echo ready; while :; do sleep 0.05; done`)
	if _, err := j.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, err := j.Wait(); code != 5 || err != nil {
		t.Errorf("Wait = %d, %v; want 5", code, err)
	}
	if got := out.String(); got != "ready\ngot TERM\n" {
		t.Errorf("job printed %q", got)
	}
}

func TestJobSignalDoesNotRepeatTheTerminalsInterrupt(t *testing.T) {
	// The job counts SIGINTs until SIGTERM asks it how many it had. (The
	// shell runs traps between commands; a short sleep gives it many, where
	// `wait` on a long one could miss a signal that came just before it.)
	const script = `n=0; trap 'n=$((n+1))' INT; trap 'echo "interrupts: $n"; exit 0' TERM
echo ready; while :; do sleep 0.05; done`
	for _, fromTerminal := range []bool{true, false} {
		j, out := startWaiting(t, script)
		j.delivered = func(sig os.Signal, pid int) Delivery {
			if pid != j.PID() {
				t.Errorf("asked about pid %d, job is %d", pid, j.PID())
			}
			if fromTerminal && sig == syscall.SIGINT {
				return ByKeyboard
			}
			return Forwarded
		}
		for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGTERM} {
			if _, err := j.Signal(sig); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := j.Wait(); err != nil {
			t.Fatal(err)
		}
		want := "ready\ninterrupts: 1\n" // sent by gputop, or by the terminal: never both
		if fromTerminal {
			want = "ready\ninterrupts: 0\n" // the test is not a terminal: nobody sent it
		}
		if got := out.String(); got != want {
			t.Errorf("terminal sent it: %v; job printed %q, want %q", fromTerminal, got, want)
		}
	}
}

func TestOnlyKeyboardSignalsAndHangUpsCanReachTheJobByThemselves(t *testing.T) {
	for _, sig := range []os.Signal{syscall.SIGTERM, syscall.SIGUSR1} {
		if deliveredToJob(sig, os.Getpid(), true) != Forwarded {
			t.Errorf("%v counted as delivered to the job by the terminal", sig)
		}
	}
	// Without a terminal when the job started, a SIGHUP was sent to gputop
	// alone: nothing hung up.
	if deliveredToJob(syscall.SIGHUP, os.Getpid(), false) != Forwarded {
		t.Error("SIGHUP without a terminal counted as a hang-up")
	}
}

// leftoverPID reads the pid a job printed after "ready ".
func leftoverPID(t *testing.T, out *syncBuffer) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.Fields(strings.TrimPrefix(out.String(), "ready "))[0])
	if err != nil {
		t.Fatalf("job printed %q", out.String())
	}
	return pid
}

// running says whether pid runs: it exists and is not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	st, err := parsePidStat(b)
	return err == nil && st.state != 'Z'
}

func TestJobSignalReachesEveryProcessOfTheJob(t *testing.T) {
	// A job whose child would outlive it if only the job heard the signal.
	j, out := startWaiting(t, `sleep 100 & echo "ready $!"; wait`)
	child := leftoverPID(t, out)
	if _, err := j.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, _ := j.Wait(); code != 128+15 {
		t.Errorf("Wait = %d, want 143", code)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if killed, err := j.EndTree(ctx); killed != 0 || err != nil {
		t.Errorf("EndTree = %d, %v; the child had the signal and should be gone", killed, err)
	}
	if running(child) {
		t.Errorf("the job's child %d still runs", child)
		syscall.Kill(child, syscall.SIGKILL)
	}
}

func TestEndTreeKillsWhatIgnoresTheSignal(t *testing.T) {
	// The job exits on SIGTERM; its child ignores it and would be orphaned.
	j, out := startWaiting(t, `trap '' TERM; sleep 100 & trap 'exit 0' TERM; echo "ready $!"; while :; do sleep 0.05; done`)
	child := leftoverPID(t, out)
	if _, err := j.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, _ := j.Wait(); code != 0 {
		t.Errorf("Wait = %d, want the job's 0", code)
	}
	if !running(child) {
		t.Fatalf("the child %d was meant to ignore SIGTERM", child)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if killed, err := j.EndTree(ctx); killed != 1 || err != nil {
		t.Errorf("EndTree = %d, %v; want the one child killed", killed, err)
	}
	for deadline := time.Now().Add(5 * time.Second); running(child); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the child %d survived EndTree", child)
		}
	}
}

func TestJobOutputGoesOnWhenItCannotBePassedOn(t *testing.T) {
	// The terminal hung up: writes fail. The job must not block on a full
	// pipe, and its markers still count.
	var markers []string
	var mu sync.Mutex
	j, err := StartJob(JobConfig{
		Command: []string{"sh", "-c", `i=0; while [ $i -lt 2000 ]; do echo "line $i of padding padding padding"; i=$((i+1)); done; echo "Epoch 7"`},
		Stdout:  failingWriter{},
		Phases:  DefaultPhases(),
		OnMarker: func(text string) {
			mu.Lock()
			markers = append(markers, text)
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if code, err := j.Wait(); code != 0 || err != nil {
		t.Fatalf("Wait = %d, %v", code, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(markers, []string{"Epoch 7"}) {
		t.Errorf("markers %q, want the last line's", markers)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.EIO }

func TestJobWaitGivesUpOnOutputHeldByALeftover(t *testing.T) {
	// The job starts a daemon that keeps its stdout, and exits.
	j, out := startWaiting(t, `sleep 100 & echo "ready $!"`)
	code, err := j.Wait()
	if code != 0 || err == nil || !strings.Contains(err.Error(), "still holds its output open") {
		t.Errorf("Wait = %d, %v; want 0 and the reason output was cut", code, err)
	}
	pid, convErr := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(out.String(), "ready ")))
	if convErr != nil {
		t.Fatalf("job printed %q", out.String())
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Errorf("killing the leftover sleep: %v", err)
	}
}

func TestStartJobErrors(t *testing.T) {
	if _, err := StartJob(JobConfig{}); err == nil {
		t.Error("no command: no error")
	}
	_, err := StartJob(JobConfig{Command: []string{"gputop-test-no-such-program"}})
	if err == nil || !strings.Contains(err.Error(), "gputop-test-no-such-program") {
		t.Errorf("missing program: error %v", err)
	}
}
