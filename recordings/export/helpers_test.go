package export

import (
	"flag"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/recordings/recordingstest"
	"github.com/gputop-dev/gputop/timeline"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Formats lists the formats Write writes.
var Formats = []Format{CSV, JSONL}

// writeFile writes a recording of ss to path.
func writeFile(t testing.TB, path string, h recordings.Header, ss []timeline.Sample) {
	t.Helper()
	w, err := recordings.Create(path, h, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ss {
		if err := w.Write(&ss[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// benchFile is an hour of a synthetic 8-GPU, 32-core node at 1 Hz.
func benchFile(b *testing.B) string {
	b.Helper()
	g := recordingstest.NewSynth(7, recordingstest.T0, time.Second, 8, 32)
	ss := make([]timeline.Sample, 3600)
	for i := range ss {
		ss[i] = g.Next()
	}
	path := filepath.Join(b.TempDir(), "bench.gtr")
	writeFile(b, path, recordings.Header{Version: "bench", Info: recordingstest.Info(8, time.Second), Start: recordingstest.T0}, ss)
	return path
}

// countingWriter counts what is written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
