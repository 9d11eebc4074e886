package analysis

import (
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// BenchmarkPhasesDay is the phases of a whole day of 8 GPUs, made again
// after the day's last window came in: what the screen asks every 5 s.
func BenchmarkPhasesDay(b *testing.B) {
	e := NewEngine(timeline.SourceInfo{Interval: time.Second})
	var cols *timeline.Columns
	for sec := range 86400 {
		s := timelinetest.DaySample(sec, cols)
		cols = s.Columns
		e.Add(&s)
	}
	var n int
	b.ResetTimer()
	for b.Loop() {
		e.phases.phasesN = -1 // as if a window had just come in
		n = len(e.Phases(e.First(), e.Last()))
	}
	b.ReportMetric(float64(n), "phases")
}
