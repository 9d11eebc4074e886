package analysis

import (
	"testing"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// BenchmarkSegmentDay segments a whole day, as the UI does every few
// seconds with the session's full range: from a replay's store (every sample
// raw) and from a live store (an hour raw, the rest in buckets).
func BenchmarkSegmentDay(b *testing.B) {
	for _, bc := range []struct {
		name string
		raw  int
	}{{"replay", 0}, {"live", timeline.DefaultRawSamples}} {
		b.Run(bc.name, func(b *testing.B) {
			s := timelinetest.DayStore(b, bc.raw)
			opts := DefaultPhaseOptions()
			var n int
			b.ResetTimer()
			for b.Loop() {
				n = len(Segment(s, timeline.SourceInfo{}, s.First(), s.Last(), opts))
			}
			b.ReportMetric(float64(n), "phases")
		})
	}
}
