package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// End-to-end tests: the built binary, in a real terminal (tmux), as a
// person would use it.

// binary is gputop built once for every test here.
var binary struct {
	once sync.Once
	path string
	err  error
}

func TestMain(m *testing.M) {
	probes.JobGuardMain() // gputop run, in-process, starts this binary as its job's guard
	// A guard built with -race sleeps a second before it exits (GORACE's
	// atexit_sleep_ms), and Close waits for it: nothing here needs that.
	if _, ok := os.LookupEnv("GORACE"); !ok {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	dir, err := os.MkdirTemp("", "gputop-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary.path = filepath.Join(dir, "gputop")
	// A runtime directory of this test binary's, for whatever session a
	// test starts without one of its own (isolateMarks): nothing of the
	// user's, and no other test run, reaches it.
	runtime := filepath.Join(dir, "run")
	if err := os.Mkdir(runtime, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_RUNTIME_DIR", runtime)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func buildBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		out, err := exec.Command("go", "build", "-o", binary.path, ".").CombinedOutput()
		if err != nil {
			binary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

// terminal is a tmux session of its own (its own server socket).
type terminal struct {
	t    *testing.T
	sock string
}

func newTerminal(t *testing.T, w, h int, command string) *terminal {
	t.Helper()
	if testing.Short() {
		t.Skip("drives the binary in tmux: skipped with -short")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		timelinetest.Unavailable(t, "tmux is not installed (.ci/run installs it)")
	}
	term := &terminal{t: t, sock: fmt.Sprintf("gputop-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	term.tmux("-f", "/dev/null", "new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), command)
	// tmux leaves its socket behind when its server is killed: remove it,
	// or every run leaves dozens in /tmp/tmux-UID.
	socket := strings.TrimSpace(term.tmux("display-message", "-p", "#{socket_path}"))
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-L", term.sock, "kill-server").Run() // it may have ended with its command
		if err := os.Remove(socket); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Logf("tmux's socket: %v", err)
		}
	})
	return term
}

func (term *terminal) tmux(args ...string) string {
	term.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", term.sock}, args...)...).CombinedOutput()
	if err != nil {
		term.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (term *terminal) screen() string { return term.tmux("capture-pane", "-p") }

func (term *terminal) keys(keys ...string) { term.tmux(append([]string{"send-keys"}, keys...)...) }

// waitFor polls the screen until every want is on it. The deadline only
// bounds a broken run; nothing here measures speed.
func (term *terminal) waitFor(want ...string) string {
	term.t.Helper()
	// A minute: on 2 cores under another build and -race, a report after
	// a job can take half of it.
	deadline := time.Now().Add(time.Minute)
	for {
		s := term.screen()
		missing := ""
		for _, w := range want {
			if !strings.Contains(s, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return s
		}
		if time.Now().After(deadline) {
			term.t.Fatalf("%q never appeared on the screen:\n%s", missing, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestLiveDemoInATerminal(t *testing.T) {
	isolateMarks(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	exitFile := filepath.Join(dir, "exit")
	cmd := fmt.Sprintf("%s --demo=imbalance --log %s; echo $? > %s; sleep 60", bin, filepath.Join(dir, "log"), exitFile)
	term := newTerminal(t, 100, 30, cmd)

	s := term.waitFor("DEMO imbalance", "GPU7", "host", "%")
	if strings.Contains(s, "panicked") {
		t.Fatalf("a probe panicked:\n%s", s)
	}
	term.keys("?")
	term.waitFor("gputop help", "any other key closes")
	term.keys("x")
	term.waitFor("GPU0 util")
	term.keys("Down", "Tab")
	term.waitFor("▸GPU1", "GPU1 SM active")
	term.keys("Space")
	term.waitFor("⏸")
	term.keys("+", "-", "Left", "g", "G")
	term.waitFor("●")
	term.keys("q")
	if code := strings.TrimSpace(string(waitForFile(t, exitFile, "\n"))); code != "0" {
		t.Fatalf("exit code %s after q, want 0", code)
	}
}

// waitForFile polls until path holds want, and returns what it holds.
func waitForFile(t *testing.T, path, want string) []byte {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(want)) {
			return b
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held %q (it holds %q)", path, want, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestFirstRunAt80x24 walks a new user's first minutes over SSH at 80x24:
// gputop on a machine without a driver (this one), then --demo as it says.
func TestFirstRunAt80x24(t *testing.T) {
	isolateMarks(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	exitFile := filepath.Join(dir, "exit")
	cmd := fmt.Sprintf("%s --log %s; echo $? > %s; %s --demo --log %s; echo $? >> %s; sleep 60",
		bin, filepath.Join(dir, "log"), exitFile, bin, filepath.Join(dir, "log"), exitFile)
	term := newTerminal(t, 80, 24, cmd)

	// No driver: where the GPUs would be, why not and what to try; the
	// host's CPU where the GPU graph would be; no GPU keys offered.
	s := term.waitFor("no GPUs: host only (--demo simulates 8 H100s)", "? lists every check", "host cpu", "host CPU", "q quit")
	footer := lastLine(s)
	for _, gpuKey := range []string{"GPU", "tab"} {
		if strings.Contains(footer, gpuKey) {
			t.Fatalf("the footer offers %q without GPUs: %q", gpuKey, footer)
		}
	}
	term.keys("?")
	term.waitFor("gputop help", "Source: what was looked for", "libnvidia-ml.so.1")
	term.keys("x", "q")
	waitForFile(t, exitFile, "0\n")

	// Then the demo: eight GPUs at 80x24, the hints panel saying when its
	// first reading comes, and the processes (the graph is a tab away).
	s = term.waitFor("DEMO training", "▸GPU0", "GPU7", "a first reading after 20s", "PROCESSES", "tab graph")
	checkRowsFit(t, s, 80)
	term.keys("q")
	if got := string(waitForFile(t, exitFile, "0\n0\n")); got != "0\n0\n" {
		t.Fatalf("exit codes %q, want 0 and 0", got)
	}
}

// A C locale draws ASCII by itself, as --ascii does.
func TestCLocaleDrawsASCII(t *testing.T) {
	isolateMarks(t)
	bin := buildBinary(t)
	term := newTerminal(t, 100, 30, fmt.Sprintf("LANG=C LC_ALL= %s --demo --log %s; sleep 60", bin, filepath.Join(t.TempDir(), "log")))
	s := term.waitFor("DEMO training", ">GPU0", "GPU7")
	for i, r := range s {
		if r > 0x7e {
			t.Fatalf("a non-ASCII %q at byte %d under LANG=C:\n%s", r, i, s)
		}
	}
	term.keys("q")
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// checkRowsFit fails if a captured row is wider than the terminal.
func checkRowsFit(t *testing.T, s string, w int) {
	t.Helper()
	for i, row := range strings.Split(s, "\n") {
		if n := utf8.RuneCountInString(row); n > w {
			t.Fatalf("row %d is %d wide: %q", i, n, row)
		}
	}
}

// A terminal too small is not refused: the screen says so and waits, as
// htop does, until it is enlarged (then it draws) or q.
func TestTerminalTooSmallWaitsToBeEnlarged(t *testing.T) {
	isolateMarks(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	term := newTerminal(t, 50, 10, fmt.Sprintf("%s --demo --log %s 2>%s; echo EXIT=$? >> %s; sleep 60", bin,
		filepath.Join(dir, "log"), out, out))
	term.waitFor("terminal 50x10 is too small", "gputop needs 60x12", "enlarge it or press q")
	term.tmux("resize-window", "-x", "100", "-y", "30")
	term.waitFor("GPU7", "? help")
	term.keys("q")
	got := waitForFile(t, out, "EXIT")
	if strings.TrimSpace(string(got)) != "EXIT=0" {
		t.Fatalf("want nothing on stderr and exit 0, got:\n%s", got)
	}
}

func TestBadInputIsOneLineAndNonZero(t *testing.T) {
	bin := buildBinary(t)
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--nope"}, 2, "gputop: unknown flag --nope"},
		{[]string{"--demo=party"}, 2, `gputop: unknown demo scenario "party" (one of: training,`},
		{[]string{"--interval", "10ms"}, 2, "--interval 10ms is too short"},
		{[]string{"--interval", "soon"}, 2, `gputop: --interval "soon" is not a duration`},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"snapshot", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"--demo"}, 1, "the live view needs a terminal"},
	} {
		wantOneLineError(t, bin, tt.args, tt.code, tt.want)
	}
}

func TestSnapshotDemo(t *testing.T) {
	bin := buildBinary(t)
	out, err := exec.Command(bin, "snapshot", "--demo=throttle").Output()
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	s := string(out)
	for _, want := range []string{"DEMO THROTTLE", "H100 80GB HBM3", "power cap", "host  CPU"} {
		if !strings.Contains(s, want) {
			t.Errorf("snapshot lacks %q:\n%s", want, s)
		}
	}
}

// TestRecordSurvivesKill9 records the demo, kills the recorder with
// SIGKILL, and replays what it wrote: everything up to about the last
// second must be there.
func TestRecordSurvivesKill9(t *testing.T) {
	isolateMarks(t)
	bin := buildBinary(t)
	path := filepath.Join(t.TempDir(), "killed.gtr")
	cmd := exec.Command(bin, "record", "-o", path, "--demo=checkpoint", "--interval", "200ms")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	// Wait until two seconds of samples are on disk, then kill.
	for {
		if r, err := recordings.Open(path); err == nil {
			first, last := r.Span()
			r.Close()
			if last.Sub(first) >= 2*time.Second {
				break
			}
		}
		if time.Since(started) > 30*time.Second {
			t.Fatal("the recording never reached 2 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	killedAt := time.Now()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	r, err := recordings.Open(path)
	if err != nil {
		t.Fatalf("a killed recording must open: %v", err)
	}
	defer r.Close()
	var n int
	var last time.Time
	for {
		s, err := r.Read()
		if err != nil {
			var damaged *recordings.DamagedError
			if err != io.EOF && !errors.As(err, &damaged) {
				t.Fatalf("after %d samples: %v", n, err)
			}
			break
		}
		n, last = n+1, s.At
	}
	if n < 4 {
		t.Fatalf("only %d samples survived", n)
	}
	if lost := killedAt.Sub(last); lost > 2*time.Second {
		t.Fatalf("the last sample is %v before the kill; at most about a second may be lost", lost)
	}

	// And the screen replays it, saying the tail was cut.
	term := newTerminal(t, 120, 40, fmt.Sprintf("%s replay %s --log %s; sleep 60", bin, path, filepath.Join(t.TempDir(), "log")))
	term.waitFor("REPLAY killed.gtr", "GPU7", "cut short")
}

func TestRecordFastThenReplayInATerminal(t *testing.T) {
	isolateMarks(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "fast.gtr")
	if out := recordFast(t, bin, path, "imbalance", "10m"); !strings.Contains(out, "(601 samples") {
		t.Fatalf("record --fast: %s", out)
	}
	term := newTerminal(t, 120, 40, fmt.Sprintf("%s replay %s --speed 64 --start +5m --log %s; echo EXIT=$?; sleep 60", bin, path, filepath.Join(dir, "log")))
	s := term.waitFor("REPLAY fast.gtr (demo imbalance)", "64x", "5m")
	if !strings.Contains(s, "of 10m") {
		t.Fatalf("the transport shows the whole file:\n%s", s)
	}
	term.keys("Space", "<", "<")
	term.waitFor("16x")
	term.keys("G")
	term.waitFor("10m of 10m")
	term.keys("t", "+", "1", "m", "Enter")
	term.waitFor("1m of 10m")
	term.keys("q")
	term.waitFor("EXIT=0")
}

// TestReplayReadsOldSamplesBack: a replay of hours holds the newest hour
// of samples and reads older ones back from the file: zoomed into the
// first hour it shows every sample, not the buckets, and says nothing is
// missing.
func TestReplayReadsOldSamplesBack(t *testing.T) {
	isolateMarks(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "hours.gtr")
	recordFast(t, bin, path, "checkpoint", "3h")
	term := newTerminal(t, 120, 40, fmt.Sprintf("%s replay %s --start +20m --log %s; echo EXIT=$?; sleep 60", bin, path, filepath.Join(dir, "log")))
	term.waitFor("REPLAY hours.gtr (demo checkpoint)", "20m of 3h")
	term.keys("Space") // paused, so that the window stays where it is
	term.waitFor("space plays")
	for range 10 {
		term.keys("+")
		time.Sleep(300 * time.Millisecond)
		s := term.waitFor("space plays")
		header, _, _ := strings.Cut(s, "\n")
		if strings.Contains(header, "every sample since") {
			t.Fatalf("zoomed in 20 minutes into 3 hours, the replay lacks samples:\n%s", s)
		}
		if _, row, _ := strings.Cut(s, "GPU0 util"); strings.Contains(row[:min(len(row), 200)], "N/A") {
			t.Fatalf("zoomed in, GPU0 has no utilisation:\n%s", s)
		}
		if strings.Contains(header, "[30s]") {
			break
		}
	}
	term.waitFor("[30s]")
	term.keys("q")
	term.waitFor("EXIT=0")
}

// recordFast records duration of the demo scenario to path with the built
// binary on simulated time, and returns what it said.
func recordFast(t *testing.T, bin, path, scenario, duration string) string {
	t.Helper()
	out, err := exec.Command(bin, "record", "-o", path, "--demo="+scenario, "--fast", "--duration", duration).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "recorded "+duration+" to") {
		t.Fatalf("record --fast: %v\n%s", err, out)
	}
	return string(out)
}

// TestRecordingKeepsHintsAsTheyChange: a recording carries what gputop
// said while the job ran, not only its verdict at the end, so a file cut
// short still has it.
func TestRecordingKeepsHintsAsTheyChange(t *testing.T) {
	isolateMarks(t)
	bin := buildBinary(t)
	path := filepath.Join(t.TempDir(), "imbalance.gtr")
	if out, err := exec.Command(bin, "record", "-o", path, "--demo=imbalance", "--fast", "--duration", "10m").CombinedOutput(); err != nil {
		t.Fatalf("record --fast: %v\n%s", err, out)
	}
	r, err := recordings.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var last time.Time
	for {
		s, err := r.Read()
		if err != nil {
			break
		}
		last = s.At
	}
	var during []string
	snaps := r.Hints()
	for _, snap := range snaps[:len(snaps)-1] {
		if snap.At.Before(last) {
			for _, h := range snap.Hints {
				during = append(during, fmt.Sprintf("%s@%s", h.ID, snap.At.Sub(snaps[0].At).Round(time.Second)))
			}
		}
	}
	if !strings.Contains(strings.Join(during, " "), "gpu-imbalance") {
		t.Fatalf("no gpu-imbalance among the hints recorded during the run: %v", during)
	}
	verdict := snaps[len(snaps)-1]
	if !verdict.At.Equal(last) || len(verdict.Hints) == 0 {
		t.Fatalf("the last snapshot is the verdict at the last sample: %v at %v (last sample %v)", len(verdict.Hints), verdict.At, last)
	}
}

func TestImportTelemetryAndReplay(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "llava.gtr")
	log := timelinetest.TelemetryFile(t, "vlm_llava_rtx4090_querygpu.csv")
	out, err := exec.Command(bin, "import", log, "-o", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "imported 2619 samples of 1 GPU over 48m") {
		t.Fatalf("import: %v\n%s", err, out)
	}
	term := newTerminal(t, 100, 30, fmt.Sprintf("%s replay %s --log %s; sleep 60", bin, path, filepath.Join(dir, "log")))
	term.waitFor("REPLAY llava.gtr", "RTX 4090", "GPU0")
}

func TestFileCommandsRefuseBadInput(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("epoch 1 loss 0.3\n"), 0o644)
	existing := filepath.Join(dir, "exists.gtr")
	os.WriteFile(existing, []byte("x"), 0o644)
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"replay", filepath.Join(dir, "missing.gtr")}, 1, "no such file"},
		{[]string{"replay", text}, 1, "not a gputop recording"},
		{[]string{"replay", existing, "--speed", "100"}, 2, "--speed 100 is out of range"},
		{[]string{"replay"}, 2, "give one recording"},
		{[]string{"record", "--demo"}, 2, "-o FILE is required"},
		{[]string{"record", "-o", filepath.Join(dir, "a.gtr"), "--fast", "--duration", "1m"}, 2, "it needs --demo"},
		{[]string{"record", "-o", existing, "--demo"}, 1, "exists; use --force"},
		{[]string{"record", "-o", filepath.Join(dir, "no", "dir.gtr"), "--demo"}, 1, "no directory"},
		{[]string{"import", text, "-o", filepath.Join(dir, "b.gtr")}, 1, "nvidia-smi"},
		{[]string{"import", filepath.Join(dir, "missing.csv"), "-o", filepath.Join(dir, "c.gtr")}, 1, "no such file"},
	} {
		wantOneLineError(t, bin, tt.args, tt.code, tt.want)
	}
	// A failed import leaves nothing behind.
	if entries, _ := filepath.Glob(filepath.Join(dir, "b.gtr*")); len(entries) > 0 {
		t.Errorf("a failed import left %v", entries)
	}
}

func TestRunPassesOutputThroughAndExitsWithTheJobsCode(t *testing.T) {
	bin := buildBinary(t)
	for _, tt := range []struct {
		script string
		code   int
	}{
		{"exit 0", 0},
		{"exit 3", 3},
		{"kill -TERM $$", 128 + 15},
		{"kill -KILL $$", 128 + 9},
	} {
		t.Run(tt.script, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "run.gtr")
			// Binary bytes on stdout, a partial last line on stderr, markers
			// from two of the four lines.
			job := `printf 'Epoch 1/2\n\000\001\377 loss 0.5\n'; printf 'Saving model checkpoint to out/ck-1\nno newline' >&2; ` + tt.script
			cmd := exec.Command(bin, "run", "-o", path, "--demo=training", "--interval", "200ms", "--", "sh", "-c", job)
			cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+dir, "TMPDIR="+dir)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != tt.code {
				t.Fatalf("exit %d, want the job's %d; stderr:\n%s", code, tt.code, stderr.String())
			}
			if want := "Epoch 1/2\n\x00\x01\xff loss 0.5\n"; stdout.String() != want {
				t.Fatalf("stdout %q, want the job's bytes %q", stdout.String(), want)
			}
			if want := "Saving model checkpoint to out/ck-1\nno newline"; !strings.HasPrefix(stderr.String(), want) {
				t.Fatalf("stderr does not start with the job's bytes:\n%q", stderr.String())
			}
			if !strings.Contains(stderr.String(), "gputop report: DEMO training") {
				t.Fatalf("no report after the job:\n%s", stderr.String())
			}
			r, err := recordings.Open(path)
			if err != nil {
				t.Fatalf("the run's recording: %v", err)
			}
			defer r.Close()
			var marks []string
			for {
				s, err := r.Read()
				if err != nil {
					break
				}
				for _, m := range s.Markers {
					marks = append(marks, m.Text+" ("+m.Origin+")")
				}
			}
			// stdout and stderr are read side by side: their order in one
			// tick is not the job's, so compare the set.
			slices.Sort(marks)
			want := []string{"Epoch 1 (job)", "Saving model checkpoint to out/ck-1 (job)"}
			if strings.Join(marks, "|") != strings.Join(want, "|") {
				t.Fatalf("markers %q, want %q", marks, want)
			}
			if cmd := r.Header().Info.Command; len(cmd) != 3 || cmd[0] != "sh" {
				t.Fatalf("the recording names the command: %q", cmd)
			}
		})
	}
}

func TestMarkWithNoSessionSaysSo(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command(bin, "mark", "eval")
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+t.TempDir(), "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "no gputop session is running") {
		t.Fatalf("gputop mark without a session: %v %q", err, out)
	}
}

func TestMarkReachesALiveSession(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	term := newTerminal(t, 100, 30, fmt.Sprintf("XDG_RUNTIME_DIR=%s TMPDIR=%s %s --demo --log %s; sleep 60", dir, dir, bin, filepath.Join(dir, "log")))
	term.waitFor("DEMO training", "GPU7")
	cmd := exec.Command(bin, "mark", "eval start")
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+dir, "TMPDIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "in 1 session") {
		t.Fatalf("gputop mark: %v %q", err, out)
	}
	term.waitFor("┃eval")
	term.keys("q")
}

// wantOneLineError runs gputop with bad input and checks it says so the way
// every command must: one line on stderr and the exit code.
func wantOneLineError(t *testing.T, bin string, args []string, code int, want string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	got := 0
	if ee, ok := err.(*exec.ExitError); ok {
		got = ee.ExitCode()
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if got != code || len(lines) != 1 || !strings.Contains(lines[0], want) {
		t.Errorf("gputop %v: exit %d, stderr %q; want exit %d and one line with %q", args, got, stderr.String(), code, want)
	}
}
