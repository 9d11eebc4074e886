package reporttest

import (
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
	"github.com/gputop-dev/gputop/timeline/xid"
)

// HealthSamples are two minutes of two GPUs: GPU0's link at x8 of x16,
// one uncorrected ECC error from the minute on, Xid 94 at 90 s and its
// clocks held for power half the time; GPU1 reports none of it.
func HealthSamples() ([]timeline.Sample, timeline.SourceInfo) {
	var samples []timeline.Sample
	for sec := range 120 {
		g := timelinetest.Gauge
		ms := []timeline.Metric{
			g(timeline.GPUUtil, "gpu0", 95),
			g(timeline.GPUPCIeGen, "gpu0", 5), g(timeline.GPUPCIeGenMax, "gpu0", 5),
			g(timeline.GPUPCIeWidth, "gpu0", 8), g(timeline.GPUPCIeWidthMax, "gpu0", 16),
			g(timeline.GPUECCUncorrected, "gpu0", float64(sec/60)),
			g(timeline.GPUXid, "gpu0", 0),
			// Half of every second held for power, since the driver loaded.
			timelinetest.Counter(timeline.GPUViolPowerSecs, "gpu0", 1000+0.5*float64(sec)),
			g(timeline.GPUUtil, "gpu1", 95),
		}
		s := timeline.Sample{At: T(float64(sec))}.WithMetrics(ms)
		if sec == 90 {
			s.Markers = []timeline.Marker{{At: s.At, Text: xid.MarkerText(0, 94), Origin: timeline.XidOrigin}}
		}
		samples = append(samples, s)
	}
	return samples, timeline.SourceInfo{Interval: time.Second}
}
