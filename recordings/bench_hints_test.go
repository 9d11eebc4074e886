package recordings

import (
	"fmt"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings/recordingstest"
	"github.com/gputop-dev/gputop/timeline"
)

// liveHints is what a live view of an 8-GPU node with a checkpoint stall
// shows at sample i: the texts of gputop's rules, with the numbers and
// times that move from one recomputation to the next.
func liveHints(at time.Time, i int) []timeline.Hint {
	start := at.Add(-5 * time.Minute)
	return []timeline.Hint{
		{ID: timeline.HintPeriodicStall, Severity: timeline.Warning, GPUs: []int{0, 1, 2, 3, 4, 5, 6, 7},
			Start: start.Add(time.Duration(i%120) * time.Second), End: at, Confidence: 0.85,
			Evidence: fmt.Sprintf("GPU0-7 stall for %d-%d s every 2 min, %d %% of the time (%d stalls over %d min): "+
				"GPU0 idle (0-6.7 %% util, SM activity 0-0.3 %%) while GPU1-7 wait at 99-100 %% util, %d-%d W "+
				"(spinning in a collective); the host writes 1.5 GB/s to disk during them",
				40+i%3, 46+i%5, 33+i%7, 2+i%3, 5, 149-i%4, 153+i%3),
			Suggestion: "GPU0 stops every 2 min and the others wait for it in a collective: its rank does something " +
				"on the critical path, typically a synchronous checkpoint save, evaluation or logging on rank 0. " +
				"Save asynchronously (`torch.distributed.checkpoint.async_save`, a background thread) or less often."},
		{ID: timeline.HintBusyWait, Severity: timeline.Warning, GPUs: []int{1, 2, 3, 4, 5, 6, 7},
			Start: start, End: at, Confidence: 0.7,
			Evidence: fmt.Sprintf("GPU1-7 at 99-100 %% util but SM activity %d-%d %% and %d W of 700 W for %d s",
				i%4, 5+i%3, 150+i%9, 40+i%11),
			Suggestion: "The GPUs spin in a collective waiting for a slower rank: find what the slow rank does " +
				"(see periodic-stall or gpu-imbalance)."},
		{ID: timeline.HintMemoryHeadroom, Severity: timeline.Info, GPUs: []int{0, 1, 2, 3, 4, 5, 6, 7},
			Start: start, End: at, Confidence: 1,
			Evidence:   fmt.Sprintf("at most %d %% of memory used on GPU0-7", 41+i%2),
			Suggestion: "A larger batch may fit: try raising it until memory is 80-90 % used."},
	}
}

// BenchmarkHintsSize reports what a live view's hint snapshots cost in an
// hour's recording of the synthetic 8-GPU node: the three hints of
// liveHints, recomputed every 7 s (the numbers change each time, so each
// recomputation is a new snapshot), against the same recording without.
func BenchmarkHintsSize(b *testing.B) {
	const every = 7
	var size [2]int64
	snapshots := 0
	for b.Loop() {
		for pass := range size {
			g := recordingstest.NewSynth(3, t0, time.Second, benchGPUs, benchCores)
			var f memFile
			w, err := newWriter(&f, "bench", Header{Info: recordingstest.Info(benchGPUs, time.Second)})
			if err != nil {
				b.Fatal(err)
			}
			snapshots = 0
			for i := range 3600 {
				s := g.Next()
				if err := w.Write(&s); err != nil {
					b.Fatal(err)
				}
				if pass == 1 && i%every == 0 {
					if err := w.WriteHints(s.At, liveHints(s.At, i/every)); err != nil {
						b.Fatal(err)
					}
					snapshots++
				}
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			size[pass] = int64(f.Len())
		}
	}
	extra := float64(size[1] - size[0])
	b.ReportMetric(extra/float64(snapshots), "B/snapshot")
	b.ReportMetric(extra/3600, "B/s")
	b.ReportMetric(100*extra/float64(size[0]), "%-of-file")
}
