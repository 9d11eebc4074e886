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

// working says whether a column has the GPU doing real work.
func (g *hintGPU) working(i int) bool { return g.state[i] == hsLow || g.state[i] == hsBusy }

// shareIn is the share of a window's known columns (state known) where
// cond holds; false when under half the window is known.
func (g *hintGPU) shareIn(w hintSpan, cond func(i int) bool) (float64, bool) {
	known, yes := 0, 0
	for i := w.lo; i < w.hi; i++ {
		if g.state[i] == hsUnknown {
			continue
		}
		known++
		if cond(i) {
			yes++
		}
	}
	if known == 0 || 2*known < w.len() {
		return 0, false
	}
	return float64(yes) / float64(known), true
}

// capped says whether a working column is held at the power limit: the
// power-cap reasons (software cap, power brake, hardware slowdown) where
// clock-event reasons are recorded, which are authoritative; otherwise
// (also in columns too old for reasons: see loadThrottle) power at
// CapShare of a known limit or more.
func (f *hintFrame) capped(g *hintGPU, i int) bool {
	if !g.working(i) {
		return false
	}
	if g.throttle != nil && g.throttle[i] >= 0 {
		return g.throttle[i]&timeline.ThrottlePower != 0
	}
	return g.limit > 0 && hintAt(g.power, i) >= f.opts.CapShare*g.limit
}

// powerCappedRule is power-capped: clocks held down to keep a busy GPU at
// its power limit (see capped). Without reasons or a limit (nanogpt's
// nvidia-smi log) it infers the cap from its signature: busy in at least
// 90 % of the window (80 % to go on), power within 3 % of the highest draw
// this GPU reaches in the span, and flat, varying by at most 0.6 % (1 % to
// go on): firmware regulating to a limit holds power that still, where
// busy work varies by several percent (vlm_llava: 2-7 %). That inference
// gets a low confidence. A warning: it costs throughput, often by design.
var powerCappedRule = hintRule{
	id: timeline.HintPowerCapped,
	find: func(f *hintFrame) []hintCand {
		var out []hintCand
		for _, g := range f.gpus {
			if g.throttle == nil && !(g.limit > 0) {
				out = append(out, f.inferredCap(g)...)
				continue
			}
			eps := f.holds(1, func(w hintSpan, in bool) bool {
				share, ok := g.shareIn(w, func(i int) bool { return f.capped(g, i) })
				return ok && share >= hintLevel(in, 0.6, 0.4)
			}, func(i int) bool { return f.capped(g, i) })
			out = append(out, f.cands(timeline.HintPowerCapped, g.index, eps)...)
		}
		return out
	},
	describe: describePowerCapped,
}

// inferredCap finds a power cap from the draw alone.
func (f *hintFrame) inferredCap(g *hintGPU) []hintCand {
	if g.power == nil {
		return nil
	}
	peak := hintQuantile(g.power, 0.99, g.working)
	if !(peak > 0) {
		return nil
	}
	atPeak := func(i int) bool { return g.working(i) && hintAt(g.power, i) >= 0.97*peak }
	eps := f.holds(1, func(w hintSpan, in bool) bool {
		busy, ok := g.shareIn(w, g.working)
		if !ok || busy < hintLevel(in, 0.9, 0.8) {
			return false
		}
		var m hintMoments
		for i := w.lo; i < w.hi; i++ {
			if g.working(i) && g.power[i] == g.power[i] {
				m.add(float64(g.power[i]))
			}
		}
		return m.n > 0 && m.sum/m.n >= 0.97*peak && m.cv() <= hintLevel(in, 0.006, 0.01)
	}, atPeak)
	cands := f.cands(timeline.HintPowerCapped, g.index, eps)
	for k := range cands {
		cands[k].key = "inferred" // never grouped with GPUs whose cap is on record
	}
	return cands
}

func describePowerCapped(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
	gs := f.members(g)
	held := func(gpu *hintGPU, i int) bool { return gpu.working(i) }
	p := hintStats(gs, hintPickPower, g.spans, held)
	ev := units.GPUs(g.gpus) + " "
	conf := 0.9
	switch {
	case g.cands[0].key == "inferred":
		spread := 0.0
		if p.mean > 0 {
			spread = 100 * (p.hi - p.lo) / 2 / p.mean
		}
		ev += fmt.Sprintf("flat at %s (±%s%%) at %s, the highest draw of the run: the signature of a power cap "+
			"(the limit and clock-event reasons were not recorded)", hintRange(p, "W"), units.Number(spread), hintActivity(gs, g.spans, held))
		conf = 0.45
	default:
		ev += "at " + hintRange(p, "W")
		if limit := gs[0].limit; limit > 0 {
			ev += fmt.Sprintf(" (%s of the %s limit)", units.Share(p.mean/limit), units.Watts(limit))
		}
		if gs[0].throttle != nil {
			ev += ", power-cap reason " + units.Share(f.reasonShare(gs, g.spans, timeline.ThrottlePower)) + " of the time"
		} else {
			conf = 0.75
		}
	}
	if clock := hintStats(gs, func(g *hintGPU) []float32 { return g.clock }, g.spans, held); clock.ok() {
		ev += ", SM clock " + hintRange(clock, "MHz")
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
		ev := units.GPUs(g.gpus)
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
