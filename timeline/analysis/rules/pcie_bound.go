package rules

import (
	"fmt"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// PCIeBound is pcie-bound: host-device traffic at PCIeBusy or more
// (both directions) while the GPU's work is below 25 %, in at least half
// the known columns of a window (30 % to go on), cut to those columns.
// Copies dominate and the SMs wait for them. It needs the PCIe counters
// (live NVML) and stays silent without them. The link's generation and
// width are not in the timeline, so "near its limit" is an absolute 10 GB/s
// (what a PCIe 3.0 x16 link sustains), and the confidence is modest.
var PCIeBound = frame.Rule{
	ID: timeline.HintPCIeBound,
	Find: func(f *frame.Frame) []frame.Cand {
		copying := func(g *frame.GPU, i int) bool {
			return frame.At(&g.Bus, i) >= f.Opts.PCIeBusy && frame.At(&g.Work, i) < 25
		}
		return f.PerGPU(timeline.HintPCIeBound, 1, func(g *frame.GPU, w frame.Span, in bool) bool {
			known := func(i int) bool { return g.Bus.At(i) == g.Bus.At(i) && g.State.At(i) != frame.Unknown }
			return g.Bus.Has() && holdsIn(w, in, 0.5, 0.3, known, func(i int) bool { return copying(g, i) })
		}, copying)
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		gs := f.Members(g)
		bus := frame.Stats(gs, func(g *frame.GPU) *frame.Floats { return &g.Bus }, g.Spans, nil)
		conf := 0.55
		if !frame.Stats(gs, frame.PickSM, g.Spans, nil).OK() {
			conf = 0.45
		}
		rate := units.Rate(bus.Lo)
		if hi := units.Rate(bus.Hi); hi != rate {
			rate += " to " + hi
		}
		ev := fmt.Sprintf("%s moves %s over PCIe while at %s, %s", f.GPUNames(g.GPUs), rate, frame.Activity(gs, g.Spans, nil), f.During(g))
		return timeline.Hint{
			Severity: timeline.Warning,
			Evidence: ev,
			Suggestion: "Copies between host and GPU dominate: use pinned memory (`pin_memory=True`) with non_blocking copies, " +
				"move fewer, larger batches, and keep data and intermediate results on the GPU (preprocess there, avoid `.cpu()` round trips).",
			Confidence: conf * frame.KnownShare(gs, g.Spans),
		}, true
	},
}

// holdsIn says whether cond holds in at least enter (stay, to go on) of
// the columns of w where known holds, with at least half of w known: the
// judge of a rule whose figures may be missing where the GPU's state is not.
func holdsIn(w frame.Span, in bool, enter, stay float64, known, cond func(i int) bool) bool {
	n, yes := 0, 0
	for i := w.Lo; i < w.Hi; i++ {
		if known(i) {
			n++
			if cond(i) {
				yes++
			}
		}
	}
	return 2*n >= w.Len() && float64(yes) >= frame.Level(in, enter, stay)*float64(n)
}
