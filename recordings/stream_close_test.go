package recordings

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings/format"
)

// nextUntilError calls Next until it fails, in a goroutine, and sends how
// many events came after started was closed, and the error.
func nextUntilError(sr *StreamReader, started chan<- struct{}) <-chan [2]any {
	out := make(chan [2]any, 1)
	go func() {
		n := 0
		for {
			_, err := sr.Next()
			if err != nil {
				out <- [2]any{n, err}
				return
			}
			if n == 0 {
				close(started)
			}
			n++
		}
	}()
	return out
}

// waitFor waits for c to close, failing t after hangGuard.
func waitFor(t *testing.T, c <-chan struct{}) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(hangGuard):
		t.Fatalf("no event after %v", hangGuard)
	}
}

// A Next that waits on its source returns as soon as the source is
// closed: what the --hosts viewer does to a host that hangs.
func TestStreamNextReturnsWhenItsSourceCloses(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	rec := writeMem(t, samples(3, 1), time.Minute)
	go func() {
		// Up to the first sample, then nothing.
		if _, err := pw.Write(rec.data[:rec.ends[0]]); err != nil {
			t.Error(err)
		}
	}()
	sr, err := NewStreamReader(pr, "a host")
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	started := make(chan struct{})
	done := nextUntilError(sr, started)
	waitFor(t, started) // a sample came; Next now waits for the rest
	time.Sleep(10 * time.Millisecond)
	if err := pr.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-done:
		if !errors.Is(got[1].(error), os.ErrClosed) {
			t.Errorf("Next: %v; want the source's own error", got[1])
		}
	case <-time.After(hangGuard):
		t.Fatalf("Next still waits %v after its source was closed", hangGuard)
	}
}

// Close from another goroutine stops a Next that is busy with a stream
// whose every byte has arrived (four segments of a quarter of a million
// samples each, in 4 KB): it returns within a chunk, not a million
// samples later.
func TestStreamCloseStopsABusyNext(t *testing.T) {
	sr, err := NewStreamReader(bytes.NewReader(tinySegmentsBomb(t)), "a host")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	done := nextUntilError(sr, started)
	waitFor(t, started)
	if err := sr.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-done:
		if n := got[0].(int); n > format.MaxSegmentSamples {
			t.Errorf("Next returned %d events after Close", n)
		}
		if !errors.Is(got[1].(error), errClosed) {
			t.Errorf("Next after Close: %v", got[1])
		}
	case <-time.After(hangGuard):
		t.Fatalf("Next still busy %v after Close", hangGuard)
	}
}
