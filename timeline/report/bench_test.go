package report

import (
	"io"
	"testing"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// BenchmarkReportDay builds and prints the report of a day of 8 GPUs at
// 1 Hz (the store of BenchmarkSegmentDay), as `gputop report` does once.
func BenchmarkReportDay(b *testing.B) {
	for _, bc := range []struct {
		name string
		raw  int
	}{{"replay", 0}, {"live", timeline.DefaultRawSamples}} {
		b.Run(bc.name, func(b *testing.B) {
			s := timelinetest.DayStore(b, bc.raw)
			b.ResetTimer()
			for b.Loop() {
				r := NewReport(s, timeline.SourceInfo{}, nil, ReportOptions{})
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
