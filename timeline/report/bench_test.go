package report

import (
	"io"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// BenchmarkReportDay builds and prints the report of a day of 8 GPUs at
// 1 Hz, as `gputop report` does once, from the store and the Engine's
// analysis (whose own cost analysis.BenchmarkEngine measures).
func BenchmarkReportDay(b *testing.B) {
	e := analysis.NewEngine(timeline.SourceInfo{Interval: time.Second})
	var buf []timeline.Metric
	for sec := range 86400 {
		smp := timelinetest.DaySample(sec, buf)
		buf = smp.Metrics
		e.Add(&smp)
	}
	a := Analyse(e)
	for _, bc := range []struct {
		name string
		raw  int
	}{{"replay", 0}, {"live", timeline.DefaultRawSamples}} {
		b.Run(bc.name, func(b *testing.B) {
			s := timelinetest.DayStore(b, bc.raw)
			b.ResetTimer()
			for b.Loop() {
				r := NewReport(s, timeline.SourceInfo{}, a, ReportOptions{})
				if err := r.WriteText(io.Discard); err != nil {
					b.Fatal(err)
				}
				if err := r.WriteJSON(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
