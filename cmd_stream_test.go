package main

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
)

// TestStreamCommand runs gputop stream --demo in-process with pipes for
// stdin and stdout, as ssh gives it: the header arrives, samples follow a
// second apart, a "mark" line on stdin comes back as a marker in a later
// sample, other lines are ignored, and closing stdin ends the stream
// cleanly (the recording closed, exit 0), as ssh does when the viewer dies.
func TestStreamCommand(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	te := newTestEnv()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW := io.Pipe()
	te.env.stdin = inR
	te.env.stdout = outW
	done := te.start("stream", "--demo=checkpoint")
	sr, err := recordings.NewStreamReader(outR, "stream")
	if err != nil {
		t.Fatal(err)
	}
	if h := sr.Header(); h.Info.Scenario != "checkpoint" || len(h.Info.GPUs) != 8 || h.Version != version {
		t.Fatalf("header %+v", h)
	}
	io.WriteString(inW, "hello from a newer viewer\nmark "+strings.Repeat("x", 5000)+"\nmark eval start\n")
	var marked, samples int
	for marked == 0 {
		ev, err := sr.Next()
		if err != nil {
			t.Fatalf("after %d samples: %v", samples, err)
		}
		if ev.Item != recordings.StreamSample {
			continue
		}
		samples++
		for _, m := range ev.Sample.Markers {
			if m.Text != "eval start" || m.Origin != "key" {
				t.Errorf("marker %+v", m)
			}
			marked++
		}
		if samples > 5 {
			t.Fatal("the marker did not come back within 5 samples")
		}
	}
	inW.Close()
	for {
		_, err := sr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("after stdin closed: %v, want the stream closed cleanly", err)
		}
	}
	if code := waitExit(t, done, te); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, te.err.String())
	}
	if strings.Contains(te.err.String(), "eval") {
		t.Errorf("stderr %q", te.err.String())
	}
}

// TestStreamBadInput: one line and exit 2 for a bad command line.
func TestStreamBadInput(t *testing.T) {
	for _, args := range [][]string{{"stream", "extra"}, {"stream", "--duration", "-1s"}, {"stream", "--interval", "10ms"}} {
		te := newTestEnv()
		if code := run(args, &te.env); code != exitUsage || strings.Count(te.err.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q", args, code, te.err.String())
		}
	}
}

// TestStreamFollowsARunningRecord: where this user's gputop record runs
// already, gputop stream follows its recording (the history first, then
// live) instead of sampling again, says so on stderr, and passes its
// stdin's markers to the recording; --new samples anew.
func TestStreamFollowsARunningRecord(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", dir)
	rec := newTestEnv()
	out := dir + "/rec.gtr"
	recDone := rec.start("record", "--demo=throttle", "-o", out)
	var found []session
	for deadline := time.Now().Add(10 * time.Second); len(found) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("gputop record's socket never appeared")
		}
		found, _ = findSessions()
	}
	time.Sleep(2500 * time.Millisecond) // a little history

	te := newTestEnv()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW := io.Pipe()
	te.env.stdin, te.env.stdout = inR, outW
	done := te.start("stream")
	sr, err := recordings.NewStreamReader(outR, "stream")
	if err != nil {
		t.Fatal(err)
	}
	if h := sr.Header(); h.Info.Scenario != "throttle" {
		t.Fatalf("header %+v: not the record's", h.Info)
	}
	var first time.Time
	var samples int
	io.WriteString(inW, "mark from afar\n")
	for marked := false; !marked; {
		ev, err := sr.Next()
		if err != nil {
			t.Fatalf("after %d samples: %v", samples, err)
		}
		if ev.Item != recordings.StreamSample {
			continue
		}
		if first.IsZero() {
			first = ev.Sample.At
		}
		samples++
		for _, m := range ev.Sample.Markers {
			marked = marked || m.Text == "from afar"
		}
	}
	if samples < 3 {
		t.Errorf("%d samples up to the marker: the history did not come first", samples)
	}
	inW.Close()
	if code := waitExit(t, done, te); code != 0 || !strings.Contains(te.err.String(), "following session") {
		t.Fatalf("exit %d, stderr %q", code, te.err.String())
	}
	rec.sigs <- os.Interrupt
	if code := waitExit(t, recDone, rec); code != 0 {
		t.Fatalf("record: exit %d, %q", code, rec.err.String())
	}
	r, err := recordings.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if f, _ := r.Span(); !f.Equal(first) {
		t.Errorf("the stream began at %v, the recording at %v", first, f)
	}
}
