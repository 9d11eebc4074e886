package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
)

// Over SSH a session usually ends with a hang-up: the connection drops,
// the terminal goes away, and every process of the session gets SIGHUP.
// These tests hang up real terminals (tmux's kill-server closes the pane's
// terminal) and send SIGHUP by hand, and check that nothing is lost.

// closedCleanly waits until the recording at path is closed (it has its
// index) and returns its last sample's time and its hint snapshots.
func closedCleanly(t *testing.T, path string) (time.Time, []recordings.HintSnapshot) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r, err := recordings.Open(path)
		if err == nil {
			var last time.Time
			var end error
			for {
				s, err := r.Read()
				if err != nil {
					if !errors.Is(err, io.EOF) {
						end = err
					}
					break
				}
				last = s.At
			}
			snaps := r.Hints()
			r.Close()
			if end == nil {
				return last, snaps
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s was never closed cleanly: %v", path, end)
			}
		} else if time.Now().After(deadline) {
			t.Fatalf("%s: %v", path, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// gone waits until no process runs whose command line contains marker.
func gone(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var left []string
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			if _, err := strconv.Atoi(e.Name()); err != nil {
				continue
			}
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if strings.Contains(string(cmdline), marker) && stillRunning(mustAtoi(e.Name())) {
				left = append(left, e.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still running after the hang-up:\n%s", strings.Join(left, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func mustAtoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// hangUpJob writes the job of these tests to a script in dir: it saves on
// SIGHUP (writes got), and starts a child that would be orphaned if only
// the job heard the signal. Its sleeps' arguments end in marker, so what
// is left of it can be found ("sleep 1000123" is still a sleep).
func hangUpJob(t *testing.T, dir, got, marker string) string {
	script := filepath.Join(dir, "job.sh")
	body := fmt.Sprintf("sleep 1000%s &\ntrap 'echo HUP > %s; exit 3' HUP\necho 'Epoch 1'\nwhile :; do sleep 0.05%s; done\n",
		marker, got, marker)
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return script
}

// gputop run, hung up: by a real terminal's hang-up (with gputop under a
// shell, or leading the session itself as under `ssh -t host gputop run`),
// or by a SIGHUP sent to gputop alone.
func TestRunHungUp(t *testing.T) {
	bin := buildBinary(t)
	for _, how := range []string{"terminal under a shell", "terminal led by gputop", "kill -HUP"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			path, got, pidFile := filepath.Join(dir, "run.gtr"), filepath.Join(dir, "got"), filepath.Join(dir, "pid")
			marker := fmt.Sprintf("0%d", time.Now().UnixNano()%1e9)
			job := hangUpJob(t, dir, got, marker)
			run := fmt.Sprintf("env XDG_RUNTIME_DIR=%s TMPDIR=%s %s run -o %s --demo --interval 200ms -- sh %s",
				dir, dir, bin, path, job)
			// tmux gives the command to a shell that leads the session:
			// with exec, gputop takes its place.
			command := fmt.Sprintf("echo $$ > %s; exec %s", pidFile, run)
			if how != "terminal led by gputop" {
				command = fmt.Sprintf("sh -c 'echo $$ > %s; exec %s'; sleep 60", pidFile, run)
			}
			term := newTerminal(t, 100, 30, command)
			term.waitFor("Epoch 1")
			waitForSamples(t, path, 3)
			hungUp := time.Now()
			if how == "kill -HUP" {
				if err := syscall.Kill(readPID(t, pidFile), syscall.SIGHUP); err != nil {
					t.Fatal(err)
				}
				term.waitFor("HINTS", "recording: ") // the report: the terminal is still there to read it
			} else {
				term.tmux("kill-server")
			}
			last, snaps := closedCleanly(t, path)
			if b, err := os.ReadFile(got); err != nil || string(b) != "HUP\n" {
				t.Errorf("the job did not get SIGHUP: %q, %v", b, err)
			}
			gone(t, marker)
			if hungUp.Sub(last) > time.Second {
				t.Errorf("the recording ends %v before the hang-up", hungUp.Sub(last))
			}
			if len(snaps) == 0 {
				t.Error("no verdict in the recording")
			}
		})
	}
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(string(waitForFile(t, path, "\n"))))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// The live view, hung up while recording: the file is closed with its
// index; sent SIGHUP alone, it also gives the terminal back.
func TestLiveViewHungUp(t *testing.T) {
	isolateMarks(t)
	bin := buildBinary(t)
	for _, how := range []string{"terminal", "kill -HUP"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			path, pidFile := filepath.Join(dir, "live.gtr"), filepath.Join(dir, "pid")
			command := fmt.Sprintf("sh -c 'echo $$ > %s; exec %s --demo --interval 200ms --record %s --log %s'; echo EXIT=$?; sleep 60",
				pidFile, bin, path, filepath.Join(dir, "log"))
			term := newTerminal(t, 100, 30, command)
			term.waitFor("DEMO training", "REC")
			waitForSamples(t, path, 3)
			if how == "kill -HUP" {
				if err := syscall.Kill(readPID(t, pidFile), syscall.SIGHUP); err != nil {
					t.Fatal(err)
				}
				s := term.waitFor("EXIT=")
				if strings.Contains(s, "GPU0 util") {
					t.Errorf("the screen was not given back:\n%s", s)
				}
				if !strings.Contains(s, "recorded ") || !strings.Contains(s, "live.gtr") {
					t.Errorf("gputop did not say where the recording is:\n%s", s)
				}
			} else {
				term.tmux("kill-server")
			}
			closedCleanly(t, path)
			pid := readPID(t, pidFile)
			for deadline := time.Now().Add(20 * time.Second); stillRunning(pid); time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("gputop (%d) still runs after the hang-up", pid)
				}
			}
		})
	}
}

// gputop record and gputop mark, as two commands of a shell: the marker is
// in the report.
func TestRecordAndMarkFromTheShell(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "marked.gtr")
	env := append(os.Environ(), "XDG_RUNTIME_DIR="+dir, "TMPDIR="+dir)
	rec := exec.Command(bin, "record", "-o", path, "--demo=checkpoint", "--interval", "200ms")
	rec.Env = env
	if err := rec.Start(); err != nil {
		t.Fatal(err)
	}
	waitForSamples(t, path, 2)
	mark := exec.Command(bin, "mark", "eval starts")
	mark.Env = env
	if out, err := mark.CombinedOutput(); err != nil || string(out) != "marked \"eval starts\" in 1 session\n" {
		t.Errorf("gputop mark: %v %q", err, out)
	}
	time.Sleep(500 * time.Millisecond) // the marker rides on the next sample
	rec.Process.Signal(syscall.SIGINT)
	if err := rec.Wait(); err != nil {
		t.Fatalf("record after SIGINT: %v", err)
	}
	out, err := exec.Command(bin, "report", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "eval starts") {
		t.Fatalf("the report lacks the marker: %v\n%s", err, out)
	}
}

// Ctrl-Z suspends the live view as htop's does: the shell's screen comes
// back, and fg draws gputop whole again.
func TestCtrlZSuspendsAndFgRestores(t *testing.T) {
	isolateMarks(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	term := newTerminal(t, 100, 30, "env PS1='$ ' bash --norc --noprofile -i")
	term.waitFor("$")
	term.keys(fmt.Sprintf("%s --demo=imbalance --log %s", bin, filepath.Join(dir, "log")), "Enter")
	term.waitFor("DEMO imbalance", "GPU7")
	term.keys("C-z")
	s := term.waitFor("Stopped")
	if strings.Contains(s, "GPU7") {
		t.Errorf("gputop's screen stayed up while suspended:\n%s", s)
	}
	term.keys("fg", "Enter")
	term.waitFor("DEMO imbalance", "GPU7", "q quit")
	term.keys("q")
	term.waitFor("$")
}
