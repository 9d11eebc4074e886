package marks

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// markLog collects what a listener delivers.
type markLog struct {
	mu    sync.Mutex
	texts []string
}

func (m *markLog) deliver(text string) {
	m.mu.Lock()
	m.texts = append(m.texts, text)
	m.mu.Unlock()
}

func (m *markLog) got() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.texts)
}

func listenForTest(t *testing.T, dir string) (*Listener, *markLog) {
	t.Helper()
	var log markLog
	l, err := listenMarks(dir, log.deliver, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return l, &log
}

func dialMarks(t *testing.T, l *Listener) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("unix", l.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

func send(t *testing.T, c net.Conn, s string) {
	t.Helper()
	if _, err := io.WriteString(c, s); err != nil {
		t.Fatal(err)
	}
}

func readAnswer(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the answer: %v (got %q)", err, line)
	}
	return strings.TrimSuffix(line, "\n")
}

func TestMarkDirIsPrivateAndPrefersXDGRuntimeDir(t *testing.T) {
	runtime, tmp := t.TempDir(), t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	t.Setenv("TMPDIR", tmp)
	dir, warning, fresh, err := Dir()
	if err != nil || warning != "" || fresh {
		t.Fatalf("Dir() = %s, %q, fresh %v, %v", dir, warning, fresh, err)
	}
	if want := filepath.Join(runtime, "gputop"); dir != want {
		t.Errorf("Dir() = %s, want %s", dir, want)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		t.Errorf("mode %#o, want 0700", perm)
	}
	if again, _, _, err := Dir(); err != nil || again != dir {
		t.Errorf("second Dir() = %s, %v; want the same directory again", again, err)
	}

	for _, xdg := range []string{"", filepath.Join(runtime, "gone"), "relative/dir"} {
		t.Setenv("XDG_RUNTIME_DIR", xdg)
		dir, _, _, err := Dir()
		if want := filepath.Join(tmp, fmt.Sprintf("gputop-%d", os.Getuid())); err != nil || dir != want {
			t.Errorf("XDG_RUNTIME_DIR=%q: Dir() = %s, %v; want %s", xdg, dir, err, want)
		}
	}
}

func TestMarkDirPassesOverADirectoryOthersCanEnter(t *testing.T) {
	runtime, tmp := t.TempDir(), t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	t.Setenv("TMPDIR", tmp)
	open := filepath.Join(runtime, "gputop")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil { // past the umask
		t.Fatal(err)
	}
	dir, warning, fresh, err := Dir()
	if want := filepath.Join(tmp, fmt.Sprintf("gputop-%d", os.Getuid())); err != nil || dir != want || fresh {
		t.Fatalf("Dir() = %s, fresh %v, %v; want %s, the next usual one", dir, fresh, err, want)
	}
	for _, want := range []string{open, "0755", "chmod 700", "using " + dir} {
		if !strings.Contains(warning, want) || strings.Contains(warning, "\n") {
			t.Errorf("warning %q lacks %q, or is more than a line", warning, want)
		}
	}
}

// TestMarkDirNeverUsesSomeoneElses: every usual directory belongs to
// someone else (as a directory of ours does to a test that says it is
// another uid), so the session makes a fresh one of its own, warns, and
// gputop mark still finds it.
func TestMarkDirNeverUsesSomeoneElses(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_RUNTIME_DIR", "")
	squatted := filepath.Join(tmp, "squatted")
	if err := os.Mkdir(squatted, 0o700); err != nil {
		t.Fatal(err)
	}
	other := os.Getuid() + 4242
	dir, warning, fresh, err := pickMarkDir([]string{squatted}, other)
	if err != nil || !fresh || dir == squatted {
		t.Fatalf("pickMarkDir = %s, fresh %v, %v; want a fresh directory", dir, fresh, err)
	}
	if !strings.Contains(warning, "not to you") || !strings.Contains(warning, dir) {
		t.Errorf("warning %q; want whose it is and where the socket goes", warning)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 || filepath.Dir(dir) != tmp {
		t.Fatalf("fresh directory %s: %v %v", dir, fi, err)
	}
	// For this user's own uid, Dirs lists fallbacks such as this one.
	dir, _, fresh, err = pickMarkDir(nil, os.Getuid())
	if err != nil || !fresh {
		t.Fatal(err)
	}
	if !slices.Contains(Dirs(), dir) {
		t.Errorf("Dirs() = %v, lacks the fallback %s", Dirs(), dir)
	}
	_, log := listenForTest(t, dir)
	if n, err := Send(Dirs(), "eval"); n != 1 || err != nil {
		t.Errorf("Send = %d, %v; want the session in the fallback reached", n, err)
	}
	if got := log.got(); !slices.Equal(got, []string{"eval"}) {
		t.Errorf("session got %q", got)
	}
}

func TestOpenMarksRemovesItsFallbackWhenItCloses(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	runtime := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	// Both usual directories are files, not directories: a fallback it is.
	for _, p := range []string{filepath.Join(runtime, "gputop"), filepath.Join(tmp, fmt.Sprintf("gputop-%d", os.Getuid()))} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	l, warning, err := Open(func(string) {})
	if err != nil || !strings.Contains(warning, "is not a directory") {
		t.Fatalf("Open: %q, %v", warning, err)
	}
	dir := filepath.Dir(l.Path())
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("fallback %s still there after Close: %v", dir, err)
	}
}

func TestCheckPrivateDir(t *testing.T) {
	base := t.TempDir()
	mk := func(name string, mode os.FileMode, dir bool) os.FileInfo {
		p := filepath.Join(base, name)
		var err error
		if dir {
			err = os.Mkdir(p, mode)
		} else {
			err = os.WriteFile(p, nil, mode)
		}
		if err == nil {
			err = os.Chmod(p, mode)
		}
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	private, open, file := mk("private", 0o700, true), mk("open", 0o777, true), mk("file", 0o600, false)
	uid := os.Getuid()
	tests := []struct {
		name string
		fi   os.FileInfo
		uid  int
		want string // in the error; "" for none
	}{
		{"ours and 0700", private, uid, ""},
		{"someone else's", private, uid + 1, fmt.Sprintf("belongs to uid %d, not to you (uid %d)", uid, uid+1)},
		{"world-writable", open, uid, "has mode 0777"},
		{"not a directory", file, uid, "is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkPrivateDir("/the/dir", tt.fi, tt.uid)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error = %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func TestMarkSocketIsOwnerOnlyAndGoesAwayOnClose(t *testing.T) {
	dir := t.TempDir()
	l, err := Listen(dir, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(l.Path()) != dir || !strings.HasPrefix(filepath.Base(l.Path()), fmt.Sprint(os.Getpid())) {
		t.Errorf("socket %s: want it in %s, named after pid %d", l.Path(), dir, os.Getpid())
	}
	fi, err := os.Stat(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want a socket with 0600", fi.Mode())
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket file still there after Close: %v", err)
	}
	if n, err := Send([]string{dir}, "after close"); n != 0 || !errors.Is(err, ErrNoSession) {
		t.Errorf("Send after Close = %d, %v; want 0, ErrNoSession", n, err)
	}
}

func TestSendMarkReachesEverySession(t *testing.T) {
	dir := t.TempDir()
	_, first := listenForTest(t, dir)
	_, second := listenForTest(t, dir)
	n, err := Send([]string{dir}, "  eval starts  ")
	if n != 2 || err != nil {
		t.Fatalf("Send = %d, %v; want 2, nil", n, err)
	}
	for i, log := range []*markLog{first, second} {
		if got := log.got(); !slices.Equal(got, []string{"eval starts"}) {
			t.Errorf("session %d got %q", i+1, got)
		}
	}
}

func TestSendMarkWithNoSession(t *testing.T) {
	dir := t.TempDir()
	if n, err := Send([]string{dir}, "hello"); n != 0 || !errors.Is(err, ErrNoSession) {
		t.Errorf("empty directory: Send = %d, %v; want 0, ErrNoSession", n, err)
	}
	if n, err := Send([]string{filepath.Join(dir, "missing")}, "hello"); n != 0 || !errors.Is(err, ErrNoSession) {
		t.Errorf("missing directory: Send = %d, %v; want 0, ErrNoSession", n, err)
	}
	if ErrNoSession.Error() != "no gputop session is running for this user" {
		t.Errorf("ErrNoSession says %q", ErrNoSession)
	}
}

func TestSendMarkRemovesStaleSockets(t *testing.T) {
	dir := t.TempDir()
	// A session killed with -9 leaves its socket file behind, unheard.
	stale := filepath.Join(dir, "4242.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	_, live := listenForTest(t, dir)

	if n, err := Send([]string{dir}, "checkpoint"); n != 1 || err != nil {
		t.Errorf("Send = %d, %v; want 1, nil (the stale socket is not an error)", n, err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale socket not removed: %v", err)
	}
	if got := live.got(); !slices.Equal(got, []string{"checkpoint"}) {
		t.Errorf("live session got %q", got)
	}
}

func TestSendMarkChecksTheTextFirst(t *testing.T) {
	dir := t.TempDir()
	_, log := listenForTest(t, dir)
	for _, text := range []string{"", "   ", "two\nlines", strings.Repeat("x", MaxBytes+1), "\xff"} {
		if n, err := Send([]string{dir}, text); n != 0 || err == nil || errors.Is(err, ErrNoSession) {
			t.Errorf("Send(%q) = %d, %v; want 0 and the reason", text, n, err)
		}
	}
	if got := log.got(); len(got) != 0 {
		t.Errorf("session got %q", got)
	}
}
