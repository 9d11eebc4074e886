package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// `gputop run`'s job dies with gputop: killed with SIGKILL, gputop can do
// nothing, and its job's guard (probes/job_guard.go) ends every process of
// the job: a child, a grandchild, one that left the session with setsid and
// was orphaned, and one that ignores SIGTERM (killed --kill-after later).
func TestRunsJobDiesWithGputop(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	pidsFile := filepath.Join(dir, "pids")
	marker := fmt.Sprintf("0%d", time.Now().UnixNano()%1e9)
	script, err := filepath.Abs(filepath.Join("testdata", "jobs", "tree.sh"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "-o", filepath.Join(dir, "run.gtr"), "--demo", "--kill-after", "1s",
		"--", "sh", script, marker, pidsFile)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+dir, "TMPDIR="+dir)
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	named := jobPIDs(t, pidsFile, "child", "parent", "grandchild", "orphan", "deaf", "job")
	var pids []int
	for _, pid := range named {
		pids = append(pids, pid)
	}
	for name, pid := range named {
		if !stillRunning(pid) {
			t.Fatalf("the job's %s (%d) is not running before gputop is killed", name, pid)
		}
	}
	killed := time.Now()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	var quick, all time.Duration
	for deadline := killed.Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var left []int
		for _, pid := range pids {
			if stillRunning(pid) {
				left = append(left, pid)
			}
		}
		if quick == 0 && (len(left) == 0 || len(left) == 1 && left[0] == named["deaf"]) {
			quick = time.Since(killed)
		}
		if len(left) == 0 {
			all = time.Since(killed)
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(dir, "out"))
			t.Fatalf("processes %v of the job still run 20 s after gputop was killed; gputop said:\n%s", left, b)
		}
	}
	gone(t, marker) // the guard too (its arguments are the job's), and whatever the lists missed
	t.Logf("after gputop's SIGKILL: the job's processes that take SIGTERM gone in %v, "+
		"the one that ignores it in %v (--kill-after 1s)", quick.Round(time.Millisecond), all.Round(time.Millisecond))
}

// jobPIDs waits until tree.sh has listed the processes named and said
// ready, and returns their pids by name.
func jobPIDs(t *testing.T, path string, names ...string) map[string]int {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		pids := map[string]int{}
		for line := range strings.Lines(string(b)) {
			if name, pid, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
				pids[name], _ = strconv.Atoi(pid)
			}
		}
		complete := strings.Contains(string(b), "ready")
		for _, name := range names {
			complete = complete && pids[name] > 0
		}
		if complete {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job listed %q; want %q and ready", b, names)
		}
	}
}

// The guard changes nothing of the terminal's job control: the job reads
// the terminal, Ctrl-Z stops gputop and the job together and fg resumes
// them, and Ctrl-C reaches the job once, whose code gputop exits with.
func TestRunsJobKeepsTheTerminal(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	term := newTerminal(t, 100, 30, fmt.Sprintf("env PS1='$ ' XDG_RUNTIME_DIR=%s TMPDIR=%s bash --norc --noprofile -i", dir, dir))
	term.waitFor("$")
	interrupted := filepath.Join(dir, "interrupted")
	// The trap is set before anything is printed: set after "read hello",
	// a Ctrl-C sent on seeing it could come first on a loaded machine.
	job := fmt.Sprintf(`trap "echo INT >> %s; exit 7" INT; echo "ready $$"; read x; echo "read $x"; while :; do sleep 0.05; done`, interrupted)
	term.keys(fmt.Sprintf("%s run -o %s --demo -- sh -c '%s'", bin, filepath.Join(dir, "run.gtr"), job), "Enter")
	s := term.waitFor("\nready ")
	m := regexp.MustCompile(`(?m)^ready (\d+)`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("the job's pid is not on the screen:\n%s", s)
	}
	pid, _ := strconv.Atoi(m[1])
	term.keys("C-z")
	term.waitFor("Stopped")
	// The shell says Stopped when gputop stopped; the job's own stop may
	// come a moment later on a loaded machine.
	for deadline := time.Now().Add(10 * time.Second); procState(pid) != "T"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("the job's state is %q while gputop is stopped; want T", procState(pid))
			break
		}
	}
	term.keys("fg", "Enter")
	// Typed before fg has run, "hello" is bash's type-ahead (readline
	// gathers what is pending), read only once the job has ended: type it
	// once the job runs again, when bash waits for it and reads nothing.
	for deadline := time.Now().Add(10 * time.Second); procState(pid) == "T"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the job is still stopped after fg")
		}
	}
	term.keys("hello", "Enter")
	term.waitFor("read hello")
	term.keys("C-c")
	term.waitFor("recording: ") // the report: the job has ended, and gputop
	term.keys("echo exit=$?", "Enter")
	term.waitFor("exit=7")
	if b, err := os.ReadFile(interrupted); string(b) != "INT\n" {
		t.Errorf("the job heard Ctrl-C as %q (%v); want once", b, err)
	}
}

// procState is the state letter of pid in /proc (R, S, T, Z, ...).
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(fields) == 0 {
		return ""
	}
	return fields[0]
}
