package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gputop-dev/gputop/recordings"
)

// TestFindSessions: a live recorder's socket is found; a stale one (its
// recorder was killed) is removed; one in a directory open to other users
// is not trusted, and attach then says there is no session.
func TestFindSessions(t *testing.T) {
	rt := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", rt)
	t.Setenv("TMPDIR", t.TempDir())
	dir := filepath.Join(rt, "gputop")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(dir, "101"+recordings.SessionSuffix)
	ln, err := net.Listen("unix", live)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	stale := filepath.Join(dir, "102"+recordings.SessionSuffix)
	dead, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	dead.SetUnlinkOnClose(false)
	dead.Close()

	got, _ := findSessions()
	if len(got) != 1 || got[0].ID != "101" {
		t.Fatalf("sessions %+v, want 101 alone", got)
	}
	if _, err := os.Lstat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale socket was left: %v", err)
	}
	if _, _, err := pickSession("999"); err == nil {
		t.Error("a session that is not running: no error")
	}

	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o700)
	if got, _ := findSessions(); len(got) != 0 {
		t.Errorf("sessions in a directory open to others: %+v", got)
	}
	te := newTestEnv()
	if code := run([]string{"attach"}, &te.env); code != exitError || !strings.Contains(te.err.String(), "has mode 0777, open to other users") {
		t.Errorf("exit %d, stderr %q; want why the directory is not used", code, te.err.String())
	}
	os.Chmod(dir, 0o700)
	ln.Close()
	te = newTestEnv()
	if code := run([]string{"attach"}, &te.env); code != exitError || te.err.String() != "gputop attach: "+errNoSession.Error()+"\n" {
		t.Errorf("exit %d, stderr %q", code, te.err.String())
	}
}
