package probes

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startSleep starts a child `sleep` the test owns, and kills it at the end
// if it is still there.
func startSleep(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start sleep: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

// waitSignal waits for cmd and says which signal ended it.
func waitSignal(t *testing.T, cmd *exec.Cmd) syscall.Signal {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the child did not end")
	}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		t.Fatalf("the child ended without a signal: %v", cmd.ProcessState)
	}
	return ws.Signal()
}

// TestTerminatorSignalsOwnChild really sends SIGTERM, to a sleep the test
// started, as the start the process lookup read says.
func TestTerminatorSignalsOwnChild(t *testing.T) {
	cmd := startSleep(t)
	pid := cmd.Process.Pid
	l := newProcessLookup("/proc", true, time.Now)
	info, ok := l.Lookup(pid)
	if !ok || info.Started.IsZero() {
		t.Skipf("cannot read /proc/%d here", pid)
	}
	if err := NewTerminator().Terminate(pid, info.Started); err != nil {
		t.Fatalf("Terminate: %v", err)
	}
	if sig := waitSignal(t, cmd); sig != syscall.SIGTERM {
		t.Errorf("the child ended by %v, want SIGTERM", sig)
	}
}

// TestTerminatorSendsTheSignalAsked: k's other signals go through the same
// checks and reach the process as asked.
func TestTerminatorSendsTheSignalAsked(t *testing.T) {
	cmd := startSleep(t)
	pid := cmd.Process.Pid
	info, ok := newProcessLookup("/proc", true, time.Now).Lookup(pid)
	if !ok || info.Started.IsZero() {
		t.Skipf("cannot read /proc/%d here", pid)
	}
	if err := NewTerminator().Signal(pid, info.Started, syscall.Signal(0)); err == nil {
		t.Error("signal 0 was sent")
	}
	if err := NewTerminator().Signal(pid, info.Started, syscall.SIGUSR1); err != nil {
		t.Fatalf("Signal: %v", err)
	}
	if sig := waitSignal(t, cmd); sig != syscall.SIGUSR1 {
		t.Errorf("the child ended by %v, want SIGUSR1", sig)
	}
}

// fakeProcOf writes a /proc/PID for pid with the given real uid and start.
func fakeProcOf(t *testing.T, pid, uid int, startTicks uint64) string {
	root := t.TempDir()
	fakeProc(t, root, pid, startTicks, 0, "sleep\x0060\x00", uid)
	if err := os.WriteFile(filepath.Join(root, "stat"), []byte("btime 1700000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestTerminatorRefuses: what the Terminator will not signal, each with
// the reason the footer shows; the child lives on through all of them.
func TestTerminatorRefuses(t *testing.T) {
	cmd := startSleep(t)
	pid, uid := cmd.Process.Pid, os.Getuid()
	tick := ticksPerSecond()
	started := time.Unix(1700000000+100, 0)
	// A PID above any pid_max: no process has it (a reaped child's PID
	// could be reused meanwhile, by a process the test must not signal).
	const gone = 1 << 30
	for _, c := range []struct {
		name    string
		term    *Terminator
		pid     int
		started time.Time
		want    string
	}{
		{"another user", &Terminator{proc: fakeProcOf(t, pid, uid+4242, uint64(100*tick)), uid: uid, hostPIDs: true},
			pid, started, fmt.Sprintf("belongs to uid %d, not to you (uid %d)", uid+4242, uid)},
		{"root is no exception", &Terminator{proc: fakeProcOf(t, pid, 1000, uint64(100*tick)), uid: 0, hostPIDs: true},
			pid, started, "belongs to uid 1000, not to you (uid 0)"},
		{"a reused PID", &Terminator{proc: fakeProcOf(t, pid, uid, uint64(500*tick)), uid: uid, hostPIDs: true},
			pid, started, "is now another process"},
		{"exited", &Terminator{proc: "/proc", uid: uid, hostPIDs: true}, gone, time.Time{}, "has exited"},
		{"init", NewTerminator(), 1, time.Time{}, "not a process gputop signals"},
		{"itself", NewTerminator(), os.Getpid(), time.Time{}, "gputop itself"},
		{"another PID namespace", &Terminator{proc: "/proc", uid: uid}, pid, time.Time{}, "own PID namespace"},
	} {
		err := c.term.Terminate(c.pid, c.started)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// The same fake process, with its own user and start, is signalled.
	ok := &Terminator{proc: fakeProcOf(t, pid, uid, uint64(100*tick)), uid: uid, hostPIDs: true}
	if err := ok.Terminate(pid, started); err != nil {
		t.Fatalf("own process: %v", err)
	}
	if sig := waitSignal(t, cmd); sig != syscall.SIGTERM {
		t.Errorf("ended by %v, want SIGTERM (and nothing before it)", sig)
	}
}
