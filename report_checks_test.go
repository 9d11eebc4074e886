package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recordDemo records minutes of a demo scenario on the fast clock, in
// process, and returns the file's path.
func recordDemo(t *testing.T, scenario, duration string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), scenario+".gtr")
	te := newTestEnv()
	if code := run([]string{"record", "--demo=" + scenario, "--fast", "--duration", duration, "-o", path}, &te.env); code != 0 {
		t.Fatalf("record --demo=%s: exit %d\n%s", scenario, code, te.err.String())
	}
	return path
}

// gputop runs a command in process and returns its exit code and streams.
func gputop(args ...string) (int, string, string) {
	te := newTestEnv()
	code := run(args, &te.env)
	return code, te.out.String(), te.err.String()
}

// --fail-on exits 3 with the failing hints on stderr, one line each, and 0
// where none is that bad; a bad severity is a usage error.
func TestReportFailOnExitCodes(t *testing.T) {
	ck := recordDemo(t, "checkpoint", "8m")
	code, out, errOut := gputop("report", ck, "--fail-on", "warning")
	if code != exitCheck || !strings.Contains(out, "HINTS") {
		t.Fatalf("report --fail-on warning of the checkpoint demo: exit %d, want 3\n%s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "gputop report: --fail-on warning: warning periodic-stall on GPU0-7") {
		t.Errorf("stderr should name the failing hint in one line:\n%s", errOut)
	}
	if code, _, errOut := gputop("report", ck, "--fail-on", "critical"); code != 0 || errOut != "" {
		t.Errorf("--fail-on critical of a warning: exit %d, want 0\n%s", code, errOut)
	}
	if code, _, _ := gputop("report", ck); code != 0 {
		t.Errorf("report without --fail-on: exit %d", code)
	}
	if code, _, errOut := gputop("report", ck, "--fail-on", "info"); code != exitUsage || !strings.Contains(errOut, "warning or critical") {
		t.Errorf("--fail-on info: exit %d, want 2\n%s", code, errOut)
	}
	tr := recordDemo(t, "training", "8m")
	if code, _, errOut := gputop("report", tr, "--fail-on", "warning"); code != 0 {
		t.Errorf("the training demo fails --fail-on warning: exit %d\n%s", code, errOut)
	}
}

// `run --fail-on` keeps the job's own failure, and is a usage error with a
// bad severity before anything runs.
func TestRunFailOnKeepsTheJobsCode(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := gputop("run", "-o", filepath.Join(dir, "a.gtr"), "--fail-on", "warning", "--", "sh", "-c", "exit 5")
	if code != 5 {
		t.Errorf("a job that exits 5 under --fail-on: exit %d, want 5\n%s", code, errOut)
	}
	code, _, errOut = gputop("run", "-o", filepath.Join(dir, "b.gtr"), "--fail-on", "warning", "--", "true")
	if code != 0 {
		t.Errorf("a short job without hints under --fail-on: exit %d, want 0\n%s", code, errOut)
	}
	if code, _, _ := gputop("run", "--fail-on", "sometimes", "--", "true"); code != exitUsage {
		t.Errorf("--fail-on sometimes: exit %d, want 2", code)
	}
}

// --format html and svg write a page and a drawing, to stdout or to -o,
// and -o refuses to overwrite without --force.
func TestReportHTMLAndSVGFiles(t *testing.T) {
	ck := recordDemo(t, "checkpoint", "4m")
	out := filepath.Join(t.TempDir(), "ck.html")
	if code, _, errOut := gputop("report", ck, "--format", "html", "-o", out); code != 0 {
		t.Fatalf("report --format html -o: exit %d\n%s", code, errOut)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", "<svg", "<h2>Hints</h2>", "<h2>GPUs</h2>"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if code, _, errOut := gputop("report", ck, "--format", "html", "-o", out); code != exitError || !strings.Contains(errOut, "--force") {
		t.Errorf("-o over an existing file: exit %d\n%s", code, errOut)
	}
	code, svg, errOut := gputop("report", ck, "--format", "svg", "--from", "+1m", "--to", "+3m")
	if code != 0 || !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "0:02:00") {
		t.Errorf("report --format svg of a stretch: exit %d\n%s\n%.300s", code, errOut, svg)
	}
}
