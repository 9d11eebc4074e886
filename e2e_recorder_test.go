package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// reportJSON is what TestEveryCommandRecordsTheSameThings compares of
// three reports (docs/report.md has every field).
type reportJSON struct {
	Source struct {
		Kind, Scenario, Host string
	}
	DurationS float64 `json:"duration_s"`
	GPUs      []struct {
		Index int
		Name  string
		UUID  string
		Util  struct{ Mean float64 }
	}
	Markers []struct{ Text string }
}

func jsonReport(t *testing.T, bin, path string) reportJSON {
	t.Helper()
	out, err := exec.Command(bin, "report", "--format", "json", path).Output()
	if err != nil {
		t.Fatalf("report %s: %v", path, err)
	}
	var r reportJSON
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("report %s: %v", path, err)
	}
	return r
}

// The live view's --record, gputop record and gputop run, on one demo at
// once: one marker reaches all three, and their recordings hold the same
// things (run's also names its job).
func TestEveryCommandRecordsTheSameThings(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	env := append(os.Environ(), "XDG_RUNTIME_DIR="+dir, "TMPDIR="+dir)
	live, rec, run := filepath.Join(dir, "live.gtr"), filepath.Join(dir, "record.gtr"), filepath.Join(dir, "run.gtr")
	common := []string{"--demo=checkpoint", "--interval", "200ms"}

	term := newTerminal(t, 120, 40, fmt.Sprintf("env XDG_RUNTIME_DIR=%s TMPDIR=%s %s %s --record %s --log %s; sleep 60",
		dir, dir, bin, strings.Join(common, " "), live, filepath.Join(dir, "log")))
	recCmd := exec.Command(bin, append([]string{"record", "-o", rec}, common...)...)
	runCmd := exec.Command(bin, append(append([]string{"run", "-o", run}, common...), "--", "sleep", "60")...)
	for _, c := range []*exec.Cmd{recCmd, runCmd} {
		c.Env = env
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{live, rec, run} {
		waitForSamples(t, p, 10)
	}
	mark := exec.Command(bin, "mark", "eval")
	mark.Env = env
	if out, err := mark.CombinedOutput(); err != nil || string(out) != "marked \"eval\" in 3 sessions\n" {
		t.Fatalf("gputop mark: %v %q", err, out)
	}
	time.Sleep(time.Second) // the marker rides on each session's next sample

	term.keys("q")
	recCmd.Process.Signal(syscall.SIGINT)
	runCmd.Process.Signal(syscall.SIGTERM)
	if err := recCmd.Wait(); err != nil {
		t.Errorf("record after SIGINT: %v", err)
	}
	if err := runCmd.Wait(); err == nil || runCmd.ProcessState.ExitCode() != 128+15 {
		t.Errorf("run after SIGTERM: %v; want its job's 143", err)
	}
	term.waitFor("recorded ", "live.gtr")

	reports := map[string]reportJSON{}
	for _, p := range []string{live, rec, run} {
		closedCleanly(t, p)
		reports[filepath.Base(p)] = jsonReport(t, bin, p)
	}
	want := reports["record.gtr"]
	for name, got := range reports {
		if got.Source != want.Source || got.Source.Kind != "demo" || got.Source.Scenario != "checkpoint" {
			t.Errorf("%s: source %+v, want %+v", name, got.Source, want.Source)
		}
		if len(got.GPUs) != 8 || len(got.GPUs) != len(want.GPUs) {
			t.Fatalf("%s: %d GPUs, want 8", name, len(got.GPUs))
		}
		for i, g := range got.GPUs {
			w := want.GPUs[i]
			if g.Index != w.Index || g.Name != w.Name || g.UUID != w.UUID {
				t.Errorf("%s: GPU %d is %+v, want %+v", name, i, g, w)
			}
			// The three started within moments of each other on the same
			// scripted demo: their figures agree, give or take a sample.
			if math.Abs(g.Util.Mean-w.Util.Mean) > 10 {
				t.Errorf("%s: GPU %d util mean %.1f, record's %.1f", name, i, g.Util.Mean, w.Util.Mean)
			}
		}
		if len(got.Markers) != 1 || got.Markers[0].Text != "eval" {
			t.Errorf("%s: markers %+v, want the one eval", name, got.Markers)
		}
		if got.DurationS < 2 {
			t.Errorf("%s: %v s recorded", name, got.DurationS)
		}
		if _, _, snaps, _ := readRecording(t, filepath.Join(dir, name)); len(snaps) == 0 {
			t.Errorf("%s: no verdict", name)
		}
	}
}

// One byte flipped in the middle of a ten-minute recording costs at most
// the five-minute segment it is in: report and replay say so in one line,
// and read the rest.
func TestAFlippedByteCostsOneSegment(t *testing.T) {
	isolateMarks(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "flipped.gtr")
	if out, err := exec.Command(bin, "record", "-o", path, "--demo=training", "--fast", "--duration", "10m").CombinedOutput(); err != nil {
		t.Fatalf("record: %v\n%s", err, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x10
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "report", "--format", "json", path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("report of a damaged file: %v\n%s", err, stderr.String())
	}
	warning := strings.TrimSpace(stderr.String())
	if strings.Count(warning, "\n") != 0 || !strings.Contains(warning, "unreadable") || !strings.Contains(warning, "the rest was read") {
		t.Errorf("report's warning: %q; want one line saying what was lost", warning)
	}
	var rep reportJSON
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.DurationS < 599 {
		t.Errorf("the report covers %v s; the segments after the damage were not read", rep.DurationS)
	}
	samples, _, _, _ := readRecording(t, path)
	if samples < 601-300 || samples >= 601 {
		t.Errorf("%d of 601 samples read; want all but at most one segment's 300", samples)
	}
	term := newTerminal(t, 120, 40, fmt.Sprintf("%s replay %s --log %s; sleep 60", bin, path, filepath.Join(dir, "log")))
	term.waitFor("REPLAY flipped.gtr", "unreadable")
}
