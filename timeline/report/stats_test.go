package report

import (
	"math"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// A mean and an integral over the whole report read on the grid of times
// (repWhole) are those of the series loaded (repLoad): before the raw
// samples (buckets) and in them, with gaps where the series is absent and
// a pause in sampling; a series the store never saw is NaN.
func TestRepWholeIsTheLoadedSeriesMean(t *testing.T) {
	s := timeline.NewStore(timeline.StoreOptions{RawSamples: 300})
	t0 := time.Unix(1_700_000_000, 0)
	at := t0
	for i := range 2000 {
		at = at.Add(time.Second)
		if i == 1500 {
			at = at.Add(time.Minute) // a pause in sampling
		}
		smp := timeline.Sample{At: at}.WithMetrics([]timeline.Metric{{Key: timeline.Key{Name: timeline.GPUUtil, Device: "gpu0"}, Value: float64(i % 17)}})
		if i%5 != 0 {
			smp.SetMetrics(append(smp.Metrics(), timeline.Metric{Key: timeline.Key{Name: timeline.GPUPower, Device: "gpu0"}, Value: 100 + float64(i%23)/3}))
		}
		s.Add(&smp)
	}
	from, to, step := s.First(), s.Last(), int64(time.Second)
	grid := repGrid(s, from, to, step)
	for _, name := range []string{timeline.GPUUtil, timeline.GPUPower, timeline.GPUTemp} {
		key := timeline.Key{Name: name, Device: "gpu0"}
		r := repLoad(repSeries{}, s, key, from, to, step)
		mean, integral, ok := repWhole(s, key, from, to, grid)
		if !ok {
			t.Fatalf("%s: not read on the grid", name)
		}
		same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
		if !same(mean, r.mean(0, len(r.v))) || !same(integral, r.integral()) {
			t.Errorf("%s: mean %v, integral %v on the grid; loaded %v, %v", name, mean, integral, r.mean(0, len(r.v)), r.integral())
		}
	}
}
