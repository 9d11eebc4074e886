package rules

import (
	"fmt"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// MemoryHeadroom is memory-headroom: a GPU under-used in the sense of
// low-utilization (mean work below LowWork, LowWork+10 to go on; working
// throughout the window, and below 70 % while it works) over a
// sustained window (SustainedWindows × Window), using at most MemHeadroom
// (40 %) of its memory on average. Info: a bigger batch would give it more
// work per step. It yields to the host rules (a starved GPU needs a faster
// pipeline, not a bigger batch) and to rules that find the GPUs waiting.
var MemoryHeadroom = frame.Rule{
	ID: timeline.HintMemoryHeadroom,
	Find: func(f *frame.Frame) []frame.Cand {
		low := f.Opts.LowWork
		return f.PerGPU(timeline.HintMemoryHeadroom, f.Opts.SustainedWindows, func(g *frame.GPU, w frame.Span, in bool) bool {
			if total := g.MemTotalAt.Get(w.Hi - 1); !(total > 0) || !(frame.Mean(&g.Mem, w) <= f.Opts.MemHeadroom*total) {
				return false
			}
			c := g.Counts(w)
			if !c.Judged() || c.Active == 0 || c.Intensity() >= 70 {
				return false
			}
			return c.MeanWork() < frame.Level(in, low, low+10) && (in || c.Starts())
		}, nil)
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		gs := f.Members(g)
		mem := frame.Stats(gs, frame.PickMem, g.Spans, nil)
		total := gs[0].MemTotalAt.Get(g.Hull.Hi - 1)
		work := frame.Stats(gs, frame.PickWork, g.Spans, nil)
		what := "util"
		if frame.Stats(gs, frame.PickSM, g.Spans, nil).OK() {
			what = "SM activity"
		}
		ev := fmt.Sprintf("%s uses %s of %s (%s) while %s averages %s%%, %s", f.GPUNames(g.GPUs), units.Bytes(mem.Hi),
			units.Bytes(total), units.Share(mem.Hi/total), what, units.Number(work.Mean), f.During(g))
		return timeline.Hint{
			Severity: timeline.Info,
			Evidence: ev,
			Suggestion: fmt.Sprintf("About %s free: raise the batch size (scaling the learning rate), or use the room "+
				"for a larger model or longer sequences.", units.Bytes(total-mem.Hi)),
			Confidence: 0.7 * frame.KnownShare(gs, g.Spans),
		}, true
	},
	YieldsTo: []string{timeline.HintInputBound, timeline.HintHostSingleThread, timeline.HintIOWait, timeline.HintPeriodicStall, timeline.HintBusyWait, timeline.HintGPUImbalance},
}
