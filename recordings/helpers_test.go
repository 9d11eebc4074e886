package recordings

import (
	"bytes"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// memFile is a file in memory for a Writer.
type memFile struct{ bytes.Buffer }

func (*memFile) Close() error { return nil }

// memRecording is a recording written to memory.
type memRecording struct {
	data []byte
	// ends[i] is the file's length once sample i was flushed: a file cut
	// at or after it holds sample i whole.
	ends []int64
	// segments is where each segment starts.
	segments []int64
}

// writeMem writes samples to memory with segments of span sample time,
// flushing every sample (the interval is 1 s), and closes the file.
func writeMem(t testing.TB, ss []timeline.Sample, span time.Duration) memRecording {
	t.Helper()
	var f memFile
	w, err := newWriter(&f, "mem.gtr", header(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	w.span = span
	var rec memRecording
	for i := range ss {
		if err := w.Write(&ss[i]); err != nil {
			t.Fatal(err)
		}
		if w.Pending() {
			t.Fatalf("sample %d not flushed at a 1 s interval", i)
		}
		rec.ends = append(rec.ends, w.out.n)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, s := range w.index.Segments {
		rec.segments = append(rec.segments, s.Offset)
	}
	rec.data = f.Bytes()
	return rec
}

// openMem opens a recording held in memory.
func openMem(data []byte) (*Reader, error) {
	return newReader(bytes.NewReader(data), int64(len(data)), "mem.gtr")
}

// readMem reads a recording held in memory to its end.
func readMem(t testing.TB, data []byte) ([]timeline.Sample, error) {
	t.Helper()
	r, err := openMem(data)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer r.Close()
	return drain(r)
}
