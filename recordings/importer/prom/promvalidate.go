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
	bad := pts.vals.mark(func(v float64, n int) bool {
		return checkRun(n, func() float64 {
			if pm.kind == timeline.Counter {
				return set.outside.CheckCounter(name, v*scale)
			}
			return set.outside.Check(name, v*scale)
		})
	})
	if bad > 0 {
		pts.times, pts.vals = pts.vals.dropMarked(&pts.times)
	}
}

// checkRun checks a run of n points of one value (check checks one) and
// says whether they are out: a value out is tallied once per point, as
// when each point was checked.
func checkRun(n int, check func() float64) bool {
	if !math.IsNaN(check()) {
		return false
	}
	for range n - 1 {
		check()
	}
	return true
}
