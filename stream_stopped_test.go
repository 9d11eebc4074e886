package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stoppable is a process standing for a session's gputop, with a socket
// under its pid in this user's runtime directory that takes connections
// and sends nothing: what a suspended recorder's looks like from outside.
func stoppable(t *testing.T) (pid int, stop func(), attached <-chan struct{}) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", dir)
	if err := os.Mkdir(filepath.Join(dir, "gputop"), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ln, err := net.Listen("unix", filepath.Join(dir, "gputop", strconv.Itoa(cmd.Process.Pid)+".stream"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	conns := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			conns <- struct{}{}
		}
	}()
	stop = func() {
		cmd.Process.Signal(syscall.SIGSTOP)
		for s := (session{}); ; time.Sleep(10 * time.Millisecond) { // the signal lands in its own time
			s.ID = strconv.Itoa(cmd.Process.Pid)
			if s.Stopped() {
				return
			}
		}
	}
	return cmd.Process.Pid, stop, conns
}

// gputop stream gives up on a session whose gputop is suspended (issue 44:
// it sent nothing, for ever, with no error): at once when asked to follow
// one that is stopped, and a few seconds after the one it follows stops.
func TestStreamGivesUpOnASuspendedSession(t *testing.T) {
	t.Run("stopped before", func(t *testing.T) {
		pid, stop, _ := stoppable(t)
		stop()
		code, _, errOut := gputop("stream", "--session", strconv.Itoa(pid))
		want := "gputop stream: session " + strconv.Itoa(pid) + " is stopped (its gputop, pid " + strconv.Itoa(pid) + ", was suspended: Ctrl-Z?); resume it with fg, or stream anew with --new\n"
		if code != 1 || errOut != want {
			t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut, want)
		}
	})
	t.Run("stopped while followed", func(t *testing.T) {
		_, stop, attached := stoppable(t)
		te := newTestEnv()
		done := te.start("stream")
		<-attached // the look for sessions
		<-attached // the stream's own connection
		stop()
		code := waitExit(t, done, te)
		lines := strings.Split(strings.TrimSpace(te.err.String()), "\n")
		if code != 1 || len(lines) != 2 || !strings.Contains(lines[0], "following session") || !strings.Contains(lines[1], "was suspended: Ctrl-Z?") {
			t.Errorf("exit %d, stderr:\n%s", code, te.err.String())
		}
	})
}
