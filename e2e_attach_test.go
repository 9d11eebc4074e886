package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
)

// TestAttachToARunningRun starts gputop run in one tmux pane and gputop
// attach in another: the attached view shows the session's screen, m
// marks the recording, quitting the viewer leaves the run recording, and
// when the run ends its file holds the marker and the samples after the
// viewer left. Then the viewer of a recording that ends says so and keeps
// what it had.
func TestAttachToARunningRun(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	envs := fmt.Sprintf("XDG_RUNTIME_DIR=%s TMPDIR=%s", dir, dir)
	out := filepath.Join(dir, "job.gtr")
	newTerminal(t, 100, 30, fmt.Sprintf("%s %s run --demo=imbalance -o %s -- sleep 12 > %s 2>&1; sleep 60",
		envs, bin, out, filepath.Join(dir, "run.out")))
	var list string
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(list, "run --demo=imbalance") {
		if time.Now().After(deadline) {
			t.Fatalf("gputop attach --list never showed the run: %q", list)
		}
		time.Sleep(200 * time.Millisecond)
		cmd := exec.Command(bin, "attach", "--list")
		cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+dir, "TMPDIR="+dir)
		b, _ := cmd.CombinedOutput()
		list = string(b)
	}
	viewer := newTerminal(t, 100, 30, fmt.Sprintf("%s %s attach --log %s; echo viewer exited $?; sleep 60", envs, bin, filepath.Join(dir, "log")))
	viewer.waitFor("DEMO imbalance", "GPU7", "attached to session")
	viewer.keys("m")
	viewer.waitFor("marker:")
	viewer.keys("from the viewer", "Enter")
	viewer.waitFor("┃from")
	viewer.keys("q")
	viewer.waitFor("viewer exited 0")
	leftAt := time.Now()

	// A second viewer stays to the end of the run.
	last := newTerminal(t, 100, 30, fmt.Sprintf("%s %s attach --log %s; sleep 60", envs, bin, filepath.Join(dir, "log2")))
	last.waitFor("DEMO imbalance", "GPU7")
	last.waitFor("the recording ended")
	if s := last.screen(); !strings.Contains(s, "GPU7") {
		t.Errorf("after the end the viewer lost its screen:\n%s", s)
	}

	waitForFile(t, filepath.Join(dir, "run.out"), "recording: ")
	rep := jsonReport(t, bin, out)
	found := false
	for _, m := range rep.Markers {
		if m.Text == "from the viewer" {
			found = true
		}
	}
	if !found {
		t.Errorf("the recording has no marker from the viewer: %+v", rep.Markers)
	}
	r, err := recordings.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, end := r.Span(); !end.After(leftAt) {
		t.Errorf("the recording ended at %v, before the viewer left at %v: quitting it stopped the run", end, leftAt)
	}
}

// TestAttachWithNoSession says so in one line, exit 1.
func TestAttachWithNoSession(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	for _, args := range [][]string{{"attach"}, {"attach", "--list"}} {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+dir, "TMPDIR="+dir)
		b, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		want := "gputop attach: no running gputop session of yours to attach to; start one with gputop record\n"
		if !ok || ee.ExitCode() != 1 || string(b) != want {
			t.Errorf("%v: %v %q, want exit 1 and %q", args, err, b, want)
		}
	}
}
