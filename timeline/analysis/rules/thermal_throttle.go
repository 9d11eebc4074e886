package rules

import (
	"math"
	"slices"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// hot says whether a working column is slowed for heat: the thermal
// reasons where recorded, else a temperature of ThermalTemp or more.
func hot(f *frame.Frame, g *frame.GPU, i int) bool {
	if !g.Working(i) {
		return false
	}
	if g.Throttle.Has() && g.Throttle.At(i) >= 0 {
		return g.Throttle.At(i)&timeline.ThrottleThermal != 0
	}
	return frame.At(&g.Temp, i) >= f.Opts.ThermalTemp
}

// ThermalThrottle is thermal-throttle: a working GPU slowed for heat
// (see hot) in at least 60 % of a window's columns (40 % to go on). The
// thermal reasons are the evidence; without them a busy GPU at
// ThermalTemp (88 °C) or more, where most datacenter GPUs begin to slow,
// fires with a low confidence. A hot GPU below that (nanogpt's GPU1 at
// 73 °C beside neighbours at 55 °C) is a cooling outlier, not a throttle,
// and stays silent. A warning: it costs throughput now.
var ThermalThrottle = frame.Rule{
	ID: timeline.HintThermalThrottle,
	Find: func(f *frame.Frame) []frame.Cand {
		return f.PerGPUShare(timeline.HintThermalThrottle, 1, 0.6, 0.4, func(g *frame.GPU) bool { return g.Throttle.Has() || g.Temp.Has() },
			func(g *frame.GPU, i int) bool { return hot(f, g, i) })
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		gs := f.Members(g)
		held := func(gpu *frame.GPU, i int) bool { return hot(f, gpu, i) }
		ev := f.GPUNames(g.GPUs)
		if t := frame.Stats(gs, func(g *frame.GPU) *frame.Floats { return &g.Temp }, g.Spans, held); t.OK() {
			ev += " at " + frame.Range(t, "°C")
		}
		conf := 0.9
		if gs[0].Throttle.Has() {
			ev += " with thermal slowdown " + units.Share(reasonShare(gs, g.Spans, timeline.ThrottleThermal)) + " of the time"
		} else {
			ev += " while busy (clock-event reasons not recorded)"
			conf = 0.4
		}
		pickClock := func(g *frame.GPU) *frame.Floats { return &g.Clock }
		if clock := frame.Stats(gs, pickClock, g.Spans, held); clock.OK() {
			ev += ", SM clock " + frame.Range(clock, "MHz")
			others := slices.DeleteFunc(slices.Clone(f.GPUs), func(o *frame.GPU) bool { return slices.Contains(gs, o) })
			if oc := frame.Stats(others, pickClock, g.Spans, (*frame.GPU).Working); oc.OK() && math.Abs(oc.Mean-clock.Mean) >= 15 {
				ev += " (" + frame.Range(oc, "MHz") + " on the other GPUs)"
			}
		}
		ev += ", " + f.During(g)
		return timeline.Hint{
			Severity: timeline.Warning,
			Evidence: ev,
			Suggestion: "Cooling: check airflow and fans, blocked inlets, the GPU's place in the chassis (one that runs " +
				"hotter than its neighbours gets less air) and the room's inlet temperature; the GPU slows to protect itself.",
			Confidence: conf * frame.KnownShare(gs, g.Spans),
		}, true
	},
}
