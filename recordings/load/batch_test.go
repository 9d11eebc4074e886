package load

import (
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings/recordingstest"
	"github.com/gputop-dev/gputop/timeline"
)

// A batch holds at most loadBatch samples and ends at the sample that
// brings it to loadBatchValues values, so that the pipeline's slots hold
// about as much for a recording of 64 hosts as for one of a machine.
func TestBatchesEndAtTheirValues(t *testing.T) {
	for _, c := range []struct {
		name         string
		cores, count int
		wantMost     int
	}{
		{"narrow", 4, 150, loadBatch},
		// 2 values a core: a sample of 40,000 values, two to a batch.
		{"wide", 20_000, 5, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := recordingstest.NewSynth(1, recordingstest.T0, time.Second, 2, c.cores)
			ss := make([]timeline.Sample, c.count)
			for i := range ss {
				ss[i] = g.Next()
			}
			r := recordingOf(t, ss)
			out, spent := make(chan []loadedSample), make(chan []loadedSample, loadBatches)
			for range loadBatches {
				spent <- make([]loadedSample, 0, loadBatch)
			}
			done := make(chan error)
			go func() {
				_, err := readSamples(r, time.Time{}, time.Time{}, out, spent)
				close(out)
				done <- err
			}()
			most, total := 0, 0
			for batch := range out {
				most, total = max(most, len(batch)), total+len(batch)
				spent <- batch[:0]
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if most != c.wantMost || total != c.count {
				t.Fatalf("batches of at most %d samples, %d in all; want %d and %d", most, total, c.wantMost, c.count)
			}
		})
	}
}
