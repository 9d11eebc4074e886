package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gputop as people use it every day: `ssh -t node gputop` from an 80x24
// terminal, through the real ssh client and a real sshd. The screen fits,
// the keys reach it, and when the client dies (a laptop lid closed, a
// dropped connection: kill -9 of ssh) the remote gputop gets its hang-up
// and ends instead of spinning on a dead terminal.
func TestLiveViewOverSSH(t *testing.T) {
	bin := buildBinary(t)
	hosts := startSSHD(t, bin)
	dir := t.TempDir()
	sshPid, remotePid := filepath.Join(dir, "ssh.pid"), filepath.Join(dir, "remote.pid")
	remote := fmt.Sprintf("echo \\$\\$ > %s; exec env XDG_RUNTIME_DIR=%s %s --demo --interval 250ms --log %s",
		remotePid, dir, bin, filepath.Join(dir, "log"))
	// Killed, ssh leaves the local terminal as gputop set it (the
	// alternate screen): the shell clears it to say how ssh ended.
	command := fmt.Sprintf(`sh -c 'echo $$ > %s; exec ssh -t -F %s login "%s"'; s=$?; printf '\033[?1049l\033[2J\033[H'; echo EXIT=$s; sleep 60`,
		sshPid, hosts.config, remote)
	term := newTerminal(t, 80, 24, command)
	s := term.waitFor("DEMO training", "GPU0")
	checkRowsFit(t, s, 80)

	// Keys travel through ssh: help opens and closes, the process table
	// is there by default at 80x24.
	term.keys("?")
	term.waitFor("keys")
	term.keys("Escape")
	s = term.waitFor("DEMO training")
	if !strings.Contains(s, "PID") {
		t.Errorf("no process table at 80x24 over ssh:\n%s", s)
	}

	pid := readPID(t, remotePid)
	killed := time.Now()
	if err := syscall.Kill(readPID(t, sshPid), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	term.waitFor("EXIT=")
	for deadline := time.Now().Add(20 * time.Second); stillRunning(pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the remote gputop (%d) still runs 20 s after its ssh client was killed", pid)
		}
	}
	t.Logf("the remote gputop ended %v after its ssh client was killed", time.Since(killed).Round(time.Millisecond))
}
