package analysis

import (
	"fmt"
	"math"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// Rules about clocks held down: power-capped and thermal-throttle. Both
// judge Windows (30 s) of a working GPU (low or busy), fire where at least
// 60 % of the known columns are held down (40 % to go on), and are cut to
// those columns. NVML's clock-event reasons are the evidence where they
// were recorded; without them each rule falls back to a weaker sign and
// says so.

// ClockHeld is how far below the highest SM clock seen on the node a
// GPU's clock must be for the clock to count as pulled down: a cap takes a
// few hundred MHz off the boost clock; a steady workload's clock wanders
// by tens.
const ClockHeld = 0.92

// capped says whether a working column is held at the power limit: the
// power-cap reasons (software cap, power brake, hardware slowdown) where
// clock-event reasons are recorded, which are authoritative. Otherwise a
// cap is power pinned at the limit with the SM clock pulled down (below
// ClockHeld of the node's highest so far): power flat below the
// limit with the clock steady near its boost is a steady workload, not a
// cap, even at the run's highest draw. Where the limit is unknown the clock
// decides: pulled down while the power stays at the highest this GPU draws.
// Without the clock, power at CapShare of a known limit or more is all the
// sign there is; without the limit or the clock there is none.
func (f *hintFrame) capped(g *hintGPU, i int) bool {
	if !g.working(i) {
		return false
	}
	if g.throttle != nil && g.throttle[i] >= 0 {
		return g.throttle[i]&timeline.ThrottlePower != 0
	}
	p, c, limit := hintAt(g.power, i), hintAt(g.clock, i), g.limitAt.get(i)
	held := c < ClockHeld*g.maxClockAt.get(i)
	switch {
	case limit > 0 && !math.IsNaN(c):
		return p >= f.opts.CapShare*limit && held
	case limit > 0:
		return p >= f.opts.CapShare*limit
	case !math.IsNaN(c):
		return held && p >= f.opts.CapShare*g.maxPowerAt.get(i)
	}
	return false
}

// capSigns says what a GPU's columns can tell about a cap: the reasons, a
// limit, a clock; none of them, and the rule stays silent.
func capSigns(g *hintGPU) bool {
	return g.throttle != nil || g.limit > 0 || (g.clock != nil && g.power != nil)
}

// powerCappedRule is power-capped: clocks held down to keep a busy GPU at
// its power limit (see capped), in at least 60 % of a window's working
// columns (40 % to go on), cut to the capped columns. A warning: it costs
// throughput, often by design.
var powerCappedRule = hintRule{
	id: timeline.HintPowerCapped,
	find: func(f *hintFrame) []hintCand {
		return f.perGPU(timeline.HintPowerCapped, 1, func(g *hintGPU, w hintSpan, in bool) bool {
			if !capSigns(g) {
				return false
			}
			share, ok := g.shareIn(w, func(i int) bool { return f.capped(g, i) })
			return ok && share >= hintLevel(in, 0.6, 0.4)
		}, func(g *hintGPU, i int) bool { return f.capped(g, i) })
	},
	describe: describePowerCapped,
}

func describePowerCapped(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
	gs := f.members(g)
	held := func(gpu *hintGPU, i int) bool { return f.capped(gpu, i) }
	p := hintStats(gs, hintPickPower, g.spans, held)
	last := g.hull.hi - 1
	ev := f.gpuNames(g.gpus) + " at " + hintRange(p, "W")
	conf := 0.9
	if limit := gs[0].limitAt.get(last); limit > 0 {
		ev += fmt.Sprintf(" (%s of the %s limit)", units.Share(p.mean/limit), units.Watts(limit))
	}
	clock := hintStats(gs, func(g *hintGPU) []float32 { return g.clock }, g.spans, held)
	if clock.ok() {
		ev += ", SM clock " + hintRange(clock, "MHz")
		// Against the peak only where it was pulled down: "100% of the
		// peak" of a node whose GPUs were all capped says nothing.
		if peak := gs[0].maxClockAt.get(last); peak > 0 && clock.mean < ClockHeld*peak {
			ev += fmt.Sprintf(" (%s of the node's %s peak)", units.Share(clock.mean/peak), units.MHz(peak))
		}
	}
	switch {
	case gs[0].throttle != nil:
		ev += ", power-cap reason " + units.Share(f.reasonShare(gs, g.spans, timeline.ThrottlePower)) + " of the time"
	case gs[0].limitAt.get(last) > 0 && clock.ok():
		ev += " (clock-event reasons not recorded)"
		conf = 0.75
	case clock.ok():
		ev += ": power held at its highest while the clock is pulled down (the limit and clock-event reasons were not recorded)"
		conf = 0.55
	default:
		ev += " (neither clocks nor clock-event reasons recorded)"
		conf = 0.5
	}
	ev += ", " + f.during(g)
	return timeline.Hint{
		Severity: timeline.Warning,
		Evidence: ev,
		Suggestion: "Clocks are held down to stay at the power limit: expected for heavy work at the board's TDP. Check " +
			"the enforced limit against the default (`nvidia-smi -q -d POWER`) and restore it if it was lowered " +
			"(`nvidia-smi -pl`); judge speed by throughput, since utilisation reads 100 % either way.",
		Confidence: conf * hintKnownShare(gs, g.spans),
	}, true
}

// reasonShare is the share of the working columns of spans (with reasons
// recorded) where any of bits is set.
func (f *hintFrame) reasonShare(gs []*hintGPU, spans []hintSpan, bits int32) float64 {
	known, yes := 0, 0
	for _, g := range gs {
		for _, sp := range spans {
			for i := sp.lo; i < sp.hi; i++ {
				if g.throttle == nil || g.throttle[i] < 0 || !g.working(i) {
					continue
				}
				known++
				if g.throttle[i]&bits != 0 {
					yes++
				}
			}
		}
	}
	if known == 0 {
		return 0
	}
	return float64(yes) / float64(known)
}

// hot says whether a working column is slowed for heat: the thermal
// reasons where recorded, else a temperature of ThermalTemp or more.
func (f *hintFrame) hot(g *hintGPU, i int) bool {
	if !g.working(i) {
		return false
	}
	if g.throttle != nil && g.throttle[i] >= 0 {
		return g.throttle[i]&timeline.ThrottleThermal != 0
	}
	return hintAt(g.temp, i) >= f.opts.ThermalTemp
}

// thermalThrottleRule is thermal-throttle: a working GPU slowed for heat
// (see hot) in at least 60 % of a window's columns (40 % to go on). The
// thermal reasons are the evidence; without them a busy GPU at
// ThermalTemp (88 °C) or more, where most datacenter GPUs begin to slow,
// fires with a low confidence. A hot GPU below that (nanogpt's GPU1 at
// 73 °C beside neighbours at 55 °C) is a cooling outlier, not a throttle,
// and stays silent. A warning: it costs throughput now.
var thermalThrottleRule = hintRule{
	id: timeline.HintThermalThrottle,
	find: func(f *hintFrame) []hintCand {
		return f.perGPU(timeline.HintThermalThrottle, 1, func(g *hintGPU, w hintSpan, in bool) bool {
			if g.throttle == nil && g.temp == nil {
				return false
			}
			share, ok := g.shareIn(w, func(i int) bool { return f.hot(g, i) })
			return ok && share >= hintLevel(in, 0.6, 0.4)
		}, func(g *hintGPU, i int) bool { return f.hot(g, i) })
	},
	describe: func(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
		gs := f.members(g)
		held := func(gpu *hintGPU, i int) bool { return f.hot(gpu, i) }
		ev := f.gpuNames(g.gpus)
		if t := hintStats(gs, func(g *hintGPU) []float32 { return g.temp }, g.spans, held); t.ok() {
			ev += " at " + hintRange(t, "°C")
		}
		conf := 0.9
		if gs[0].throttle != nil {
			ev += " with thermal slowdown " + units.Share(f.reasonShare(gs, g.spans, timeline.ThrottleThermal)) + " of the time"
		} else {
			ev += " while busy (clock-event reasons not recorded)"
			conf = 0.4
		}
		pickClock := func(g *hintGPU) []float32 { return g.clock }
		if clock := hintStats(gs, pickClock, g.spans, held); clock.ok() {
			ev += ", SM clock " + hintRange(clock, "MHz")
			var others []*hintGPU
			for _, o := range f.gpus {
				if f.subset(gs, []int{o.index}) == nil {
					others = append(others, o)
				}
			}
			working := func(gpu *hintGPU, i int) bool { return gpu.working(i) }
			if oc := hintStats(others, pickClock, g.spans, working); oc.ok() && math.Abs(oc.mean-clock.mean) >= 15 {
				ev += " (" + hintRange(oc, "MHz") + " on the other GPUs)"
			}
		}
		ev += ", " + f.during(g)
		return timeline.Hint{
			Severity: timeline.Warning,
			Evidence: ev,
			Suggestion: "Cooling: check airflow and fans, blocked inlets, the GPU's place in the chassis (one that runs " +
				"hotter than its neighbours gets less air) and the room's inlet temperature; the GPU slows to protect itself.",
			Confidence: conf * hintKnownShare(gs, g.spans),
		}, true
	},
}
