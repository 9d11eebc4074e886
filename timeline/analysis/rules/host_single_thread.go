package rules

import (
	"fmt"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// HostSingleThread is host-single-thread: the GPU starved (as in
// hostStarved) while one host core is at PeggedCore or more and at least
// three in four cores are at IdleCore or less, in at least 70 % of the
// window (50 % to go on). One thread feeds the GPU: num_workers=0 (seed
// report 001's "safe mode"), or preprocessing in the main process. It
// needs per-core data. Critical when the mean work is below 30 %.
var HostSingleThread = frame.Rule{
	ID: timeline.HintHostSingleThread,
	Find: func(f *frame.Frame) []frame.Cand {
		return f.PerGPU(timeline.HintHostSingleThread, f.Opts.SustainedWindows, func(g *frame.GPU, w frame.Span, in bool) bool {
			single, known := frame.HostShare(&f.HostOf(g).Single, []frame.Span{w})
			return known && single >= frame.Level(in, 0.7, 0.5) && hostStarved(f, g, w, in)
		}, nil)
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		gs := f.Members(g)
		h := f.HostOf(gs[0])
		top := frame.HostStats(&h.TopCore, g.Spans)
		idle, cores := frame.HostStats(&h.IdleCores, g.Spans), frame.HostStats(&h.Cores, g.Spans)
		ev := fmt.Sprintf("%s, while one host core runs at %s%% and on average %s of %s cores idle, %s", starvedText(f, g, gs),
			units.Number(top.Mean), units.Number(idle.Mean), units.Number(cores.Mean), f.During(g))
		sug := "One thread feeds the GPU: a DataLoader with `num_workers=0`, or preprocessing in the main process. Use " +
			"`num_workers > 0` with `persistent_workers=True`, or parallelise the preprocessing (processes; threads only " +
			"help outside the GIL)."
		return hostHint(f, gs, g, ev, sug, 0.8), true
	},
}
