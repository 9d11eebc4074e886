package recordings

import (
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// TestShare follows a recording being written through its socket: a
// client that connects midway gets the history, then each sample as it is
// written; a second client that never reads and a third that leaves at
// once change nothing for the recording or the first; a "mark" line
// reaches the source; Stop ends every stream cleanly and removes the
// socket.
func TestShare(t *testing.T) {
	dir := t.TempDir()
	ss := samples(40, 2)
	for i := range ss {
		ss[i].Markers = nil
	}
	src := &scriptSource{samples: ss, block: true}
	rec := NewRecorder(src, RecorderOptions{Version: "v-test", ShareDir: dir})
	path := filepath.Join(dir, "run.gtr")
	if _, err := rec.Start(path); err != nil {
		t.Fatal(err)
	}
	sock := rec.State().Socket
	if filepath.Dir(sock) != dir || filepath.Ext(sock) != SessionSuffix {
		t.Fatalf("socket %q (%v)", sock, rec.State().SocketErr)
	}
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket: %v, mode %v", err, fi.Mode())
	}
	for range 20 {
		if _, err := rec.Next(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	stalled, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	if leaver, err := net.Dial("unix", sock); err == nil {
		leaver.Close()
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := make(chan StreamEvent, 64)
	end := make(chan error, 1)
	go func() {
		sr, err := NewStreamReader(c, "session")
		if err != nil {
			end <- err
			return
		}
		for {
			ev, err := sr.Next()
			if err != nil {
				end <- err
				return
			}
			got <- ev
		}
	}()
	next := func(i int) {
		t.Helper()
		for {
			select {
			case ev := <-got:
				if ev.Item != StreamSample {
					continue
				}
				sameSample(t, i, ss[i], ev.Sample)
				return
			case err := <-end:
				t.Fatalf("sample %d: %v", i, err)
			case <-time.After(10 * time.Second):
				t.Fatalf("sample %d did not arrive", i)
			}
		}
	}
	for i := range 20 {
		next(i) // the history
	}
	if _, err := io.WriteString(c, "mark from a viewer\n"); err != nil {
		t.Fatal(err)
	}
	for i := 20; i < 40; i++ {
		if _, err := rec.Next(t.Context()); err != nil {
			t.Fatal(err)
		}
		next(i) // live, within about a second of being taken
	}
	deadline := time.Now().Add(5 * time.Second)
	for src.markCount() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !slices.Equal(src.marksCopy(), []string{"from a viewer"}) {
		t.Errorf("marks %q", src.marksCopy())
	}
	sum, err := rec.Stop()
	if err != nil || sum.Samples != 40 {
		t.Fatalf("Stop: %+v %v", sum, err)
	}
	select {
	case err := <-end:
		if !errors.Is(err, io.EOF) {
			t.Fatalf("after Stop: %v, want io.EOF", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end with the recording")
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
	if _, err := readAll(t, path); err != nil {
		t.Errorf("the file: %v", err)
	}
}

// TestShareStaleSocket: a socket left by a recorder that was killed is
// removed and taken over.
func TestShareStaleSocket(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "4242"+SessionSuffix)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close() // the socket file stays, nobody behind it
	got, err := listenPrivate(stale)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	if c, err := net.Dial("unix", stale); err != nil {
		t.Errorf("the new socket: %v", err)
	} else {
		c.Close()
	}
	if _, err := listenPrivate(stale); !errors.Is(err, errSocketTaken) {
		t.Errorf("a socket in use: %v", err)
	}
}

// TestShareDropsAStalledClient: a client that takes nothing is dropped
// once its socket is full and shareStall passes; the server holds no more
// than its one buffer for it meanwhile, and a client that reads is served
// in full.
func TestShareDropsAStalledClient(t *testing.T) {
	defer func(d time.Duration) { shareStall = d }(shareStall)
	shareStall = 200 * time.Millisecond
	dir := t.TempDir()
	file := filepath.Join(dir, "big.gtr")
	big := make([]byte, 8<<20) // far more than a socket holds
	for i := range big {
		big[i] = byte(i * 7)
	}
	if err := os.WriteFile(file, big, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := listenShare(dir, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	stalled, err := net.Dial("unix", s.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	reader, err := net.Dial("unix", s.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	got := make(chan int, 1)
	go func() {
		n, _ := io.Copy(io.Discard, reader)
		got <- int(n)
	}()
	conns := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.conns)
	}
	deadline := time.Now().Add(10 * time.Second)
	for conns() < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	for {
		if conns() <= 1 {
			break // the stalled one was dropped (the reader may be done too)
		}
		if time.Now().After(deadline) {
			t.Fatal("the stalled client was never dropped")
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.end()
	if n := <-got; n != len(big) {
		t.Errorf("the reading client got %d bytes, want %d", n, len(big))
	}
}

// TestShareHistory: a client that asks for "history 1m" of a recording
// whose samples are all older gets its header and its last segment alone,
// starting with the hints carried into it; "history all" gets everything.
func TestShareHistory(t *testing.T) {
	dir := t.TempDir()
	ss := samples(700, 2) // segments start at samples 0, 300 and 600
	src := &scriptSource{samples: ss, block: true}
	rec := NewRecorder(src, RecorderOptions{Version: "v-test", ShareDir: dir, Sync: true,
		NewJudge: func(timeline.SourceInfo) HintJudge { return &everyTenth{} }})
	if _, err := rec.Start(filepath.Join(dir, "run.gtr")); err != nil {
		t.Fatal(err)
	}
	for range ss {
		if _, err := rec.Next(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	sock := rec.State().Socket
	follow := func(request string) (chan []StreamEvent, net.Conn) {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, request)
		out := make(chan []StreamEvent, 1)
		go func() {
			_, evs, err := streamAll(t, c)
			if err != nil {
				t.Errorf("%q: %v", request, err)
			}
			out <- evs
		}()
		return out, c
	}
	last, c1 := follow("history 1m\n")
	defer c1.Close()
	all, c2 := follow("history all\n")
	defer c2.Close()
	time.Sleep(200 * time.Millisecond) // both connected and sent to before the end
	if _, err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	evs := <-last
	got := samplesOf(evs)
	if len(got) != 100 || !got[0].At.Equal(ss[600].At) {
		t.Fatalf("history 1m: %d samples from %v, want the last segment's 100 from %v", len(got), got[0].At, ss[600].At)
	}
	if evs[0].Item != StreamHints || !evs[0].Hints.At.Before(ss[600].At) {
		t.Errorf("history 1m: first %+v, want the hints carried into the segment", evs[0])
	}
	if got := samplesOf(<-all); len(got) != len(ss) {
		t.Errorf("history all: %d samples, want %d", len(got), len(ss))
	}
}

// A session's command line, as attach --list prints it, holds no escape
// sequence from the job's arguments.
func TestSessionCommandLineIsClean(t *testing.T) {
	// sh waits on its own read, so killing it leaves no child behind.
	cmd := exec.Command("sh", "-c", "read line", "\x1b]0;pwned\x07\x1b[31mtrain.py")
	if _, err := cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	// A process just started can read an empty command line for a
	// moment, until its arguments are laid out: one run in four under -race.
	s := Session{ID: strconv.Itoa(cmd.Process.Pid)}
	got := s.CommandLine()
	for i := 0; got == "" && i < 500; i++ {
		time.Sleep(10 * time.Millisecond)
		got = s.CommandLine()
	}
	if want := "sh -c read line train.py"; got != want {
		t.Errorf("command line %q, want %q", got, want)
	}
}
