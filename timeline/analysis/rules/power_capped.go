package rules

import (
	"fmt"
	"math"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// ClockHeld is how far below the highest SM clock seen on the node a
// GPU's clock must be for the clock to count as pulled down: a cap takes a
// few hundred MHz off the boost clock; a steady workload's clock wanders
// by tens.
const ClockHeld = 0.92

// ClockHeldNoLimit is how far below the node's highest SM clock a GPU's
// clock must be for a cap to be read without a known limit, where the
// clock is the only sign: a boost clock sits 10-20 % under its idle peak
// under a heavy load that no cap holds (an H100 PCIe GEMM on zeros: 1485
// of 1755 MHz, 85 %, at 280 W of 350 W), while a cap takes far more (the
// same GEMM on random data at the 350 W cap: 825 MHz, 47 %).
const ClockHeldNoLimit = 0.80

// capped says whether a working column is held at the power limit: the
// power-cap reasons (software cap, power brake, hardware slowdown) where
// clock-event reasons are recorded, which are authoritative. Otherwise a
// cap is power pinned at the limit with the SM clock pulled down (below
// ClockHeld of the node's highest so far): power flat below the
// limit with the clock steady near its boost is a steady workload, not a
// cap, even at the run's highest draw. Where the limit is unknown the clock
// decides: pulled down (below ClockHeldNoLimit of the node's highest) while
// the power stays at the highest this GPU draws.
// Without the clock, power at CapShare of a known limit or more is all the
// sign there is; without the limit or the clock there is none.
func capped(f *frame.Frame, g *frame.GPU, i int) bool {
	if !g.Working(i) {
		return false
	}
	if g.Throttle.Has() && g.Throttle.At(i) >= 0 {
		return g.Throttle.At(i)&timeline.ThrottlePower != 0
	}
	p, c, limit := frame.At(&g.Power, i), frame.At(&g.Clock, i), g.LimitAt.Get(i)
	held := c < ClockHeld*g.MaxClockAt.Get(i)
	switch {
	case limit > 0 && !math.IsNaN(c):
		return p >= f.Opts.CapShare*limit && held
	case limit > 0:
		return p >= f.Opts.CapShare*limit
	case !math.IsNaN(c):
		return c < ClockHeldNoLimit*g.MaxClockAt.Get(i) && p >= f.Opts.CapShare*g.MaxPowerAt.Get(i)
	}
	return false
}

// capSigns says what a GPU's columns can tell about a cap: the reasons, a
// limit, a clock; none of them, and the rule stays silent.
func capSigns(g *frame.GPU) bool {
	return g.Throttle.Has() || g.Limit > 0 || (g.Clock.Has() && g.Power.Has())
}

// PowerCapped is power-capped: clocks held down to keep a busy GPU at
// its power limit (see capped), in at least 60 % of a window's working
// columns (40 % to go on), cut to the capped columns. A warning: it costs
// throughput, often by design.
var PowerCapped = frame.Rule{
	ID: timeline.HintPowerCapped,
	Find: func(f *frame.Frame) []frame.Cand {
		return f.PerGPUShare(timeline.HintPowerCapped, 1, 0.6, 0.4, capSigns, func(g *frame.GPU, i int) bool { return capped(f, g, i) })
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		gs := f.Members(g)
		held := func(gpu *frame.GPU, i int) bool { return capped(f, gpu, i) }
		p := frame.Stats(gs, frame.PickPower, g.Spans, held)
		last := g.Hull.Hi - 1
		ev := f.GPUNames(g.GPUs) + " at " + frame.Range(p, "W")
		conf := 0.9
		if limit := gs[0].LimitAt.Get(last); limit > 0 {
			ev += fmt.Sprintf(" (%s of the %s limit)", units.Share(p.Mean/limit), units.Watts(limit))
		}
		clock := frame.Stats(gs, func(g *frame.GPU) *frame.Floats { return &g.Clock }, g.Spans, held)
		if clock.OK() {
			ev += ", SM clock " + frame.Range(clock, "MHz")
			// Against the peak only where it was pulled down: "100% of the
			// peak" of a node whose GPUs were all capped says nothing.
			if peak := gs[0].MaxClockAt.Get(last); peak > 0 && clock.Mean < ClockHeld*peak {
				ev += fmt.Sprintf(" (%s of the node's %s peak)", units.Share(clock.Mean/peak), units.MHz(peak))
			}
		}
		switch {
		case gs[0].Throttle.Has():
			ev += ", power-cap reason " + units.Share(reasonShare(gs, g.Spans, timeline.ThrottlePower)) + " of the time"
		case gs[0].LimitAt.Get(last) > 0 && clock.OK():
			ev += " (clock-event reasons not recorded)"
			conf = 0.75
		case clock.OK():
			ev += ": power held at its highest while the clock is pulled down (the limit and clock-event reasons were not recorded)"
			conf = 0.55
		default:
			ev += " (neither clocks nor clock-event reasons recorded)"
			conf = 0.5
		}
		ev += ", " + f.During(g)
		return timeline.Hint{
			Severity: timeline.Warning,
			Evidence: ev,
			Suggestion: "Clocks are held down to stay at the power limit: expected for heavy work at the board's TDP. Check " +
				"the enforced limit against the default (`nvidia-smi -q -d POWER`) and restore it if it was lowered " +
				"(`nvidia-smi -pl`); judge speed by throughput, since utilisation reads 100 % either way.",
			Confidence: conf * frame.KnownShare(gs, g.Spans),
		}, true
	},
}
