package main

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

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
