package marks

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// deadPID is the pid of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// leaveSocket makes a socket at path whose listener is gone, as a session
// killed without closing leaves it.
func leaveSocket(t *testing.T, path string) {
	t.Helper()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
}

// The sockets of sessions that died are removed by the next session that
// opens its own (issue 44: a viewer taken out of memory left its sockets
// for attach --list to list); a live session's socket, and whatever is not
// a gputop socket, are left alone.
func TestSweepRemovesDeadSessionsSockets(t *testing.T) {
	dir := t.TempDir()
	dead := strconv.Itoa(deadPID(t))
	me := strconv.Itoa(os.Getpid())
	// 1-3.sock: a live pid (init's, which reused it), but nobody listens.
	for _, name := range []string{dead + ".sock", dead + "-2.stream", me + "-7.stream", "1-3.sock"} {
		leaveSocket(t, filepath.Join(dir, name))
	}
	live, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, "1.stream"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if err := os.WriteFile(filepath.Join(dir, dead+".sock.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	leaveSocket(t, filepath.Join(dir, "someone-else.sock"))

	// The sweep leaves this process's own sockets to it.
	if n := sweepStale(dir); n != 3 {
		t.Errorf("removed %d sockets, want 3", n)
	}
	for name, want := range map[string]bool{dead + ".sock": false, dead + "-2.stream": false, me + "-7.stream": true, "1-3.sock": false,
		"1.stream": true, dead + ".sock.txt": true, "someone-else.sock": true} {
		if _, err := os.Lstat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s: there %v, want %v", name, err == nil, want)
		}
	}
}
