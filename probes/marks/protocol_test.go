package marks

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestMarkProtocolAnswersEachLine(t *testing.T) {
	l, log := listenForTest(t, t.TempDir())
	c, r := dialMarks(t, l)
	longest := strings.Repeat("é", MaxBytes/2)
	tests := []struct {
		send, answer string
	}{
		{"epoch 1\n", "ok"},
		{"  trimmed  \r\n", "ok"},
		{longest + "\n", "ok"},
		{longest + "x\n", fmt.Sprintf("error: marker is %d bytes; at most %d", MaxBytes+1, MaxBytes)},
		{"\n", "error: marker is empty"},
		{" \t \n", "error: marker contains control character U+0009"},
		{"bad \xff\xfe bytes\n", "error: marker is not valid UTF-8"},
		{"\x1b[2Jclear screen\n", "error: marker contains control character U+001B"},
		{"ünïcödé ✓ 🚀\n", "ok"},
	}
	for _, tt := range tests {
		send(t, c, tt.send)
		if got := readAnswer(t, r); got != tt.answer {
			t.Errorf("sent %q: answer %q, want %q", tt.send, got, tt.answer)
		}
	}
	want := []string{"epoch 1", "trimmed", longest, "ünïcödé ✓ 🚀"}
	if got := log.got(); !slices.Equal(got, want) {
		t.Errorf("delivered %q, want %q", got, want)
	}
}

func TestMarkProtocolHangsUpOnAnOversizedLine(t *testing.T) {
	l, log := listenForTest(t, t.TempDir())
	c, r := dialMarks(t, l)
	// No newline within a line's worth: the session answers and hangs up,
	// without reading (or keeping) the rest.
	send(t, c, strings.Repeat("x", 300))
	if got, want := readAnswer(t, r), fmt.Sprintf("error: marker is longer than %d bytes", MaxBytes); got != want {
		t.Errorf("answer %q, want %q", got, want)
	}
	if _, err := r.ReadString('\n'); err == nil {
		t.Error("connection still open after an oversized line")
	}
	if got := log.got(); len(got) != 0 {
		t.Errorf("delivered %q", got)
	}
}

func TestMarkProtocolWantsTheNewline(t *testing.T) {
	l, log := listenForTest(t, t.TempDir())
	c, r := dialMarks(t, l)
	send(t, c, "no newline")
	if err := c.(*net.UnixConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if got := readAnswer(t, r); got != `error: marker must end with "\n"` {
		t.Errorf("answer %q", got)
	}
	if got := log.got(); len(got) != 0 {
		t.Errorf("delivered %q", got)
	}
}

func TestSlowMarkClientDoesNotStopAnother(t *testing.T) {
	dir := t.TempDir()
	l, log := listenForTest(t, dir)
	slow, slowAnswers := dialMarks(t, l)
	send(t, slow, "half a li") // and then nothing, for now

	if n, err := Send(dir, "from another shell"); n != 1 || err != nil {
		t.Fatalf("Send while a client dawdles = %d, %v; want 1, nil", n, err)
	}
	send(t, slow, "ne\n")
	if got := readAnswer(t, slowAnswers); got != "ok" {
		t.Errorf("slow client's answer %q", got)
	}
	if got, want := log.got(), []string{"from another shell", "half a line"}; !slices.Equal(got, want) {
		t.Errorf("delivered %q, want %q", got, want)
	}
}

func TestMarkListenerTurnsAwayClientsBeyondItsLimit(t *testing.T) {
	dir := t.TempDir()
	l, log := listenForTest(t, dir)
	for range maxMarkConns {
		c, r := dialMarks(t, l)
		send(t, c, "held\n") // answered, so its slot is surely taken
		if got := readAnswer(t, r); got != "ok" {
			t.Fatalf("answer %q", got)
		}
	}
	n, err := Send(dir, "one too many")
	if n != 0 || err == nil || !strings.Contains(err.Error(), "busy") {
		t.Errorf("Send = %d, %v; want 0 and busy", n, err)
	}
	if got := len(log.got()); got != maxMarkConns {
		t.Errorf("delivered %d markers, want %d", got, maxMarkConns)
	}
}

func TestMarkConnectionTimesOutWhenIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, trickle := range []string{"", "ep", "epoch"} {
			server, client := net.Pipe()
			start := time.Now()
			done := make(chan struct{})
			go func() {
				defer close(done)
				serveMarks(server, markIdle, func(text string) { t.Errorf("delivered %q", text) })
				server.Close()
			}()
			if trickle != "" {
				// A byte at a time (in the bubble's simulated time), each
				// well within the idle time: the deadline is the whole
				// line's, so it still ends on time.
				for i := range len(trickle) {
					time.Sleep(markIdle / 10)
					send(t, client, trickle[i:i+1])
				}
			}
			got := readAnswer(t, bufio.NewReader(client))
			if want := "error: no complete marker line within 5s; closing"; got != want {
				t.Errorf("after %q: answer %q, want %q", trickle, got, want)
			}
			if took := time.Since(start); took != markIdle {
				t.Errorf("after %q: dropped after %v, want %v", trickle, took, markIdle)
			}
			<-done
			client.Close()
		}
	})
}

// scriptedConn is a connection whose client has said everything at once.
type scriptedConn struct {
	in  *bytes.Reader
	out bytes.Buffer
}

func (c *scriptedConn) Read(p []byte) (int, error)       { return c.in.Read(p) }
func (c *scriptedConn) Write(p []byte) (int, error)      { return c.out.Write(p) }
func (c *scriptedConn) SetReadDeadline(time.Time) error  { return nil }
func (c *scriptedConn) SetWriteDeadline(time.Time) error { return nil }

func FuzzServeMarks(f *testing.F) {
	f.Add([]byte("epoch 1\neval\r\n\n \xff\n"))
	f.Add([]byte(strings.Repeat("a", 250) + "\nafter"))
	f.Fuzz(func(t *testing.T, input []byte) {
		c := &scriptedConn{in: bytes.NewReader(input)}
		var delivered []string
		serveMarks(c, markIdle, func(text string) { delivered = append(delivered, text) })
		oks := 0
		for _, line := range strings.SplitAfter(c.out.String(), "\n") {
			switch {
			case line == "":
			case line == "ok\n":
				oks++
			case !strings.HasPrefix(line, "error: ") || !strings.HasSuffix(line, "\n"):
				t.Fatalf("answer %q is neither ok nor an error line", line)
			}
		}
		if oks != len(delivered) {
			t.Errorf("%d ok answers for %d markers delivered", oks, len(delivered))
		}
		if lines := bytes.Count(input, []byte("\n")); len(delivered) > lines {
			t.Errorf("%d markers from %d lines", len(delivered), lines)
		}
		for _, text := range delivered {
			if again, err := Parse([]byte(text)); err != nil || again != text {
				t.Errorf("delivered %q, which does not pass its own check: %q, %v", text, again, err)
			}
		}
	})
}
