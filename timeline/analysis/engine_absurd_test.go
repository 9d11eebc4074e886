package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// TestAbsurdValuesNeverPanic feeds the Engine what hostile files and broken
// drivers give: every value a float64 can hold, where rules index tables by
// watts and columns by time. None may panic, and none may count as a
// reading (an absurd power is a gap, never a busy-wait reference).
func TestAbsurdValuesNeverPanic(t *testing.T) {
	absurd := []float64{1e19, -1e19, math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64,
		math.SmallestNonzeroFloat64, -0.0, 4096, 1 << 62, math.NaN()}
	names := []string{timeline.GPUUtil, timeline.GPUSMActive, timeline.GPUPower, timeline.GPUPowerLimit,
		timeline.GPUMemUsed, timeline.GPUMemTotal, timeline.GPUTemp, timeline.GPUClockSM, timeline.GPUThrottle,
		timeline.GPUPCIeRx, timeline.GPUPCIeGen, timeline.GPUPCIeWidth, timeline.GPUXid, timeline.GPUNVLinkDown,
		timeline.HostCPU, timeline.CoreBusy, timeline.HostIOWait, timeline.HostMemUsed}
	for _, v := range absurd {
		e := htEngine(180, func(t *htTick) {
			t.h100(0, 100, 90, 500, 10*htGiB)
			for _, n := range names {
				dev := timeline.GPUDevice(1)
				switch n {
				case timeline.HostCPU, timeline.HostIOWait, timeline.HostMemUsed:
					dev = timeline.HostDevice
				case timeline.CoreBusy:
					dev = timeline.CoreDevice(0)
				}
				if t.sec%3 == 0 {
					t.put(n, dev, v)
				} else {
					t.put(n, dev, 100)
				}
			}
		})
		for _, h := range e.Hints(e.Last()) {
			if math.IsNaN(h.Confidence) || h.Confidence < 0 || h.Confidence > 1 {
				t.Errorf("value %v: hint %s confidence %v", v, h.ID, h.Confidence)
			}
		}
		e.Phases(e.First(), e.Last())
		if r, _ := timeline.RangeOf(timeline.GPUPower); e.nodes[0].maxPower > r.Max {
			t.Errorf("value %v: the node's highest draw is %v W", v, e.nodes[0].maxPower)
		}
	}
}

// TestSampleFarAfterTheLastIsLeftOut checks that a sample a century on (a
// corrupt timestamp) costs no century of columns: the Engine leaves it
// out, as the Store does.
func TestSampleFarAfterTheLastIsLeftOut(t *testing.T) {
	e := NewEngine(timeline.SourceInfo{Interval: time.Second})
	for _, at := range []time.Duration{0, time.Second, 100 * 365 * 24 * time.Hour} {
		s := timeline.Sample{At: htT0.Add(at), Metrics: []timeline.Metric{
			{Key: timeline.Key{Name: timeline.GPUUtil, Device: "gpu0"}, Value: 50}}}
		e.Add(&s)
	}
	if e.Len() != 2 || e.f.N > 2 {
		t.Fatalf("%d samples in %d columns, want 2 in 2", e.Len(), e.f.N)
	}
}

// TestAbsurdIntervalsEnd checks that a session's stated interval, which a
// file or a stream may state as anything, cannot make the Engine loop or
// overflow: 1 ns, a century, the largest Duration.
func TestAbsurdIntervalsEnd(t *testing.T) {
	for _, iv := range []time.Duration{1, time.Microsecond, 100 * 365 * 24 * time.Hour, math.MaxInt64, -time.Second} {
		e := NewEngine(timeline.SourceInfo{Interval: iv})
		for i := range 120 {
			s := timeline.Sample{At: htT0.Add(time.Duration(i) * time.Second), Metrics: []timeline.Metric{
				{Key: timeline.Key{Name: timeline.GPUUtil, Device: "gpu0"}, Value: float64(i % 100)}}}
			e.Add(&s)
		}
		e.Hints(e.Last())
		e.Phases(e.First(), e.Last())
		SamplesUntil(timeline.SourceInfo{Interval: iv}, e.Last())
	}
}
