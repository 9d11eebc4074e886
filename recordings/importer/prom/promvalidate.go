package prom

import (
	"math"

	"github.com/gputop-dev/gputop/timeline"
)

// checkPoints leaves out (a gap, counted) the points of series m whose
// value is outside its metric's physical range: gauges as gputop's
// value, the throttle mask as the bits it is, and the energy counter's
// joules finite and not negative.
func (set *promSet) checkPoints(m int, pts *promPoints) {
	pm := &promMetrics[m]
	name, scale := pm.metric, pm.scale
	switch m {
	case promFBFree:
		name = timeline.GPUMemFree
	case promThrottle:
		scale = 1
	}
	bad := 0
	for i, v := range pts.vals {
		var ok float64
		if pm.kind == timeline.Counter {
			ok = set.outside.CheckCounter(name, v*scale)
		} else {
			ok = set.outside.Check(name, v*scale)
		}
		if math.IsNaN(ok) {
			pts.vals[i] = math.NaN()
			bad++
		}
	}
	if bad == 0 {
		return
	}
	times := pts.times.all()
	var kept pointTimes
	vals := pts.vals[:0]
	for i, v := range pts.vals {
		if !math.IsNaN(v) {
			kept.add(times[i])
			vals = append(vals, v)
		}
	}
	pts.times, pts.vals = kept, vals
}
