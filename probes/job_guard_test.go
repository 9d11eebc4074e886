package probes

import (
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// treeJob starts a job that starts a child, an orphan (setsid, its parent
// exits at once) and, with deaf, a shell that ignores SIGTERM, and
// returns them by name once they all run.
func treeJob(t *testing.T, killAfter time.Duration, deaf bool) (*Job, map[string]int) {
	t.Helper()
	pidsFile := filepath.Join(t.TempDir(), "pids")
	script := `sleep 100 & echo "child $!" >> "$1"
setsid sh -c 'sleep 100 & echo "orphan $!" >> "$1"' orphan "$1"
if [ "$2" = deaf ]; then sh -c 'trap "" TERM; echo "deaf $$" >> "$1"; while :; do sleep 0.05; done' deaf "$1" & fi
echo "job $$" >> "$1"; echo ready >> "$1"; wait`
	mode := "plain"
	names := []string{"child", "orphan", "job"}
	if deaf {
		mode, names = "deaf", append(names, "deaf")
	}
	j, err := StartJob(JobConfig{Command: []string{"sh", "-c", script, "job", pidsFile, mode}, KillAfter: killAfter})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(pidsFile)
		pids := map[string]int{}
		for line := range strings.Lines(string(b)) {
			if name, pid, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
				pids[name], _ = strconv.Atoi(pid)
			}
		}
		all := strings.Contains(string(b), "ready")
		for _, n := range names {
			all = all && pids[n] > 0
		}
		if all {
			t.Cleanup(func() {
				for _, pid := range pids {
					syscall.Kill(pid, syscall.SIGKILL) // whatever a failed test left
				}
			})
			return j, pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job listed %q", b)
		}
	}
}

// waitGone waits until none of pids runs; the deadline only bounds a
// broken run.
func waitGone(t *testing.T, pids map[string]int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var left []string
		for name, pid := range pids {
			if running(pid) {
				left = append(left, name)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still running: %q", left)
		}
	}
}

// The guard adopts what the job orphans: the orphan is under it, not
// init, and a signal passed on to the job reaches it.
func TestGuardAdoptsTheJobsOrphans(t *testing.T) {
	j, pids := treeJob(t, time.Second, false)
	defer j.Close()
	if got := parentOf(t, pids["orphan"]); got != j.guard.Process.Pid {
		t.Errorf("the orphan's parent is %d, want the guard %d", got, j.guard.Process.Pid)
	}
	// The job reads the terminal as gputop does: it is in gputop's process
	// group; the guard is in a group of its own.
	if pg, _ := syscall.Getpgid(j.PID()); pg != syscall.Getpgrp() {
		t.Errorf("the job is in process group %d, gputop in %d", pg, syscall.Getpgrp())
	}
	if pg, _ := syscall.Getpgid(j.guard.Process.Pid); pg != j.guard.Process.Pid {
		t.Errorf("the guard is in process group %d, not its own", pg)
	}
	if _, err := j.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, _ := j.Wait(); code != 128+15 {
		t.Errorf("exit code %d, want 143", code)
	}
	waitGone(t, pids)
}

// Closed before the job has ended, which is what gputop's death looks like
// to the guard, the guard ends every process of the job: SIGTERM, then
// SIGKILL KillAfter later for what ignores it.
func TestGuardEndsTheJobWhenGputopGoes(t *testing.T) {
	const killAfter = 300 * time.Millisecond
	j, pids := treeJob(t, killAfter, true)
	start := time.Now()
	if err := j.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	took := time.Since(start)
	waitGone(t, pids)
	if took < killAfter {
		t.Errorf("the guard was done in %v: the deaf shell was killed before KillAfter", took)
	}
	if code, err := j.Wait(); code != 128+15 || err != nil {
		t.Errorf("Wait = %d, %v; want the job's 143 (SIGTERM)", code, err)
	}
}

// Released after the job has exited (gputop ended on its own terms), the
// guard leaves what the job left running, as a shell would.
func TestGuardLeavesLeftoversWhenReleased(t *testing.T) {
	j, out := startWaiting(t, `sleep 100 >/dev/null & echo "ready $!"`)
	child := leftoverPID(t, out)
	j.Wait()
	if err := j.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if !running(child) {
		t.Errorf("the job's leftover %d was killed", child)
	}
	syscall.Kill(child, syscall.SIGKILL)
}

// gputop run ignores SIGPIPE (its terminal may go away); the job starts
// with every signal at its default all the same, as from a shell, so
// `yes | head -1` ends.
func TestJobStartsWithNoSignalIgnored(t *testing.T) {
	signal.Ignore(syscall.SIGPIPE)
	defer signal.Reset(syscall.SIGPIPE)
	if _, out, _ := shellJob(t, JobConfig{}, `grep SigIgn /proc/self/status`); out != "SigIgn:\t0000000000000000\n" {
		t.Errorf("the job's ignored signals: %q", out)
	}
}

// A program that cannot be run is exec's error, said by gputop.
func TestGuardSaysWhyTheJobCouldNotStart(t *testing.T) {
	script := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(script, []byte("\x00\x01not a program"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := StartJob(JobConfig{Command: []string{script}})
	if err == nil || !strings.Contains(err.Error(), "fork/exec "+script+": exec format error") {
		t.Errorf("error %v", err)
	}
}

// A gputop started with the guard's variable but not by StartJob (set by
// hand, or left in an environment) says so in one line and runs nothing.
func TestGuardRefusesWhatStartJobDidNotStart(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	cmd := exec.Command(os.Args[0], "/bin/touch", "touch", marker)
	cmd.Args[0] = guardName
	cmd.Env = append(os.Environ(), guardEnv+"=1 0 0")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 125 || !strings.Contains(string(out), "not started as a job's guard") {
		t.Errorf("%v: %q", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("it ran the command")
	}
}

func parentOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	st, err := parsePidStat(b)
	if err != nil {
		t.Fatal(err)
	}
	return st.ppid
}
