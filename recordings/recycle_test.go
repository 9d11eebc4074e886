package recordings

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// A reader handed back each sample's metrics (Recycle) reads the next ones
// into them: the same samples as a reader that allocates, over segments
// (whose names are decoded afresh), and no new metrics once it has some.
func TestReaderReadsIntoRecycledMetrics(t *testing.T) {
	want := samples(300, 4)
	rec := writeMem(t, want, time.Minute)
	r, err := openMem(rec.data)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var prev []timeline.Metric
	fresh := 0
	for i := 0; ; i++ {
		s, err := r.Read()
		if errors.Is(err, io.EOF) {
			if i != len(want) {
				t.Fatalf("read %d samples, want %d", i, len(want))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		sameSample(t, i, want[i], s)
		if len(s.Metrics) > 0 && (prev == nil || &s.Metrics[0] != &prev[0]) {
			fresh++
		}
		// Scribbled over: the next sample must not show any of it.
		for j := range s.Metrics {
			s.Metrics[j] = timeline.Metric{Key: timeline.Key{Name: "x"}, Value: -1}
		}
		r.Recycle(s.Metrics)
		prev = s.Metrics
	}
	if fresh > 1 {
		t.Errorf("%d samples read into new metrics, want only the first", fresh)
	}
}
