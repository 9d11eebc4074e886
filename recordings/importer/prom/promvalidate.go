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
	dropOutside(pts, func(v float64) float64 {
		if pm.kind == timeline.Counter {
			return set.outside.CheckCounter(name, v*scale)
		}
		return set.outside.Check(name, v*scale)
	})
}

// dropOutside leaves out, as gaps, the points whose value check finds
// outside its range (NaN; check tallies it). A run of n points of one
// value is checked once, and one out again for each of its other points:
// it is tallied once per point, as when each point was checked.
func dropOutside(pts *promPoints, check func(v float64) float64) {
	bad := pts.vals.mark(func(v float64, n int) bool {
		if !math.IsNaN(check(v)) {
			return false
		}
		for range n - 1 {
			check(v)
		}
		return true
	})
	if bad > 0 {
		pts.times, pts.vals = pts.vals.dropMarked(&pts.times)
	}
}
