package marks

import (
	"bufio"
	"errors"
	"fmt"
	"io"
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
	if n, err := Send(dir, "after close"); n != 0 || !errors.Is(err, ErrNoSession) {
		t.Errorf("Send after Close = %d, %v; want 0, ErrNoSession", n, err)
	}
}

func TestSendMarkReachesEverySession(t *testing.T) {
	dir := t.TempDir()
	_, first := listenForTest(t, dir)
	_, second := listenForTest(t, dir)
	n, err := Send(dir, "  eval starts  ")
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
	if n, err := Send(dir, "hello"); n != 0 || !errors.Is(err, ErrNoSession) {
		t.Errorf("empty directory: Send = %d, %v; want 0, ErrNoSession", n, err)
	}
	if n, err := Send(filepath.Join(dir, "missing"), "hello"); n != 0 || !errors.Is(err, ErrNoSession) {
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

	if n, err := Send(dir, "checkpoint"); n != 1 || err != nil {
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
		if n, err := Send(dir, text); n != 0 || err == nil || errors.Is(err, ErrNoSession) {
			t.Errorf("Send(%q) = %d, %v; want 0 and the reason", text, n, err)
		}
	}
	if got := log.got(); len(got) != 0 {
		t.Errorf("session got %q", got)
	}
}
