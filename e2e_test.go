package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
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
	dir, err := os.MkdirTemp("", "gputop-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary.path = filepath.Join(dir, "gputop")
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
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	term := &terminal{t: t, sock: fmt.Sprintf("gputop-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	term.tmux("-f", "/dev/null", "new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), command)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", term.sock, "kill-server").Run() })
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
	deadline := time.Now().Add(20 * time.Second)
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

func TestHostOnlyWithoutADriverSaysWhy(t *testing.T) {
	bin := buildBinary(t)
	term := newTerminal(t, 100, 30, fmt.Sprintf("%s --log %s; sleep 60", bin, filepath.Join(t.TempDir(), "log")))
	// This machine has no NVIDIA driver: the host alone, and one line why.
	term.waitFor("no GPUs:", "--demo", "host")
	term.keys("q")
}

func TestTerminalTooSmallIsOneLine(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	newTerminal(t, 40, 10, fmt.Sprintf("%s --demo 2>%s; echo EXIT=$? >> %s; sleep 60", bin, out, out))
	got := waitForFile(t, out, "EXIT")
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "terminal too small: 40x10") || lines[1] != "EXIT=1" {
		t.Fatalf("want one error line and exit 1, got:\n%s", got)
	}
}

func TestBadInputIsOneLineAndNonZero(t *testing.T) {
	bin := buildBinary(t)
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--nope"}, 2, "flag provided but not defined: -nope"},
		{[]string{"--demo=party"}, 2, `unknown scenario "party"`},
		{[]string{"--interval", "10ms"}, 2, "--interval 10ms is too short"},
		{[]string{"--interval", "soon"}, 2, `invalid value "soon"`},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"snapshot", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"--demo"}, 1, "the live view needs a terminal"},
	} {
		cmd := exec.Command(bin, tt.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if code != tt.code || len(lines) != 1 || !strings.Contains(lines[0], tt.want) {
			t.Errorf("gputop %v: exit %d, stderr %q; want exit %d and one line with %q", tt.args, code, stderr.String(), tt.code, tt.want)
		}
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
