package rules

import (
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// BusyWait is busy-wait: utilisation high while the GPU does little
// (see Waiting: utilisation at WaitUtil or more with SM activity below
// WaitSM, or without SM activity, power at most WaitPower of the limit or
// of the node's working draw). It fires where at least 60 % of a window's
// columns wait (40 % to go on), cut to the waiting columns. Kernels
// resident but not working: an NCCL collective spinning while it waits for
// a slow rank (llama8b: GPU1-7 at 99 % util and 150 W while rank 0
// checkpoints). Critical when one stretch lasts 5 min or more: a hung
// collective wastes every GPU in it. Utilisation alone cannot see it; it
// yields to periodic-stall, which reports recurring waits as one stall.
var BusyWait = frame.Rule{
	ID: timeline.HintBusyWait,
	Find: func(f *frame.Frame) []frame.Cand {
		return f.PerGPU(timeline.HintBusyWait, 1, func(g *frame.GPU, w frame.Span, in bool) bool {
			c := g.Counts(w)
			return c.Judged() && c.Share(c.Waiting) >= frame.Level(in, 0.6, 0.4)
		}, func(g *frame.GPU, i int) bool { return g.State.At(i) == frame.Waiting })
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		gs := f.Members(g)
		waiting := func(gpu *frame.GPU, i int) bool { return gpu.State.At(i) == frame.Waiting }
		ev := f.GPUNames(g.GPUs) + " " + frame.Range(frame.Stats(gs, frame.PickUtil, g.Spans, waiting), "% util")
		conf := 0.9
		if p := frame.Stats(gs, frame.PickPower, g.Spans, waiting); p.OK() {
			ev += " at " + frame.Range(p, "W") + powerShare(gs, p, g.Hull.Hi-1)
		}
		if sm := frame.Stats(gs, frame.PickSM, g.Spans, waiting); sm.OK() {
			ev += ", SM activity " + frame.Range(sm, "%")
		} else if gs[0].RefIsLimit.Get(g.Hull.Hi-1) == 1 {
			conf = 0.8
		} else {
			conf = 0.65
		}
		ev += ", " + f.During(g)
		sev := timeline.Warning
		if slices.ContainsFunc(g.Spans, func(sp frame.Span) bool { return f.Dur(sp) >= 5*time.Minute }) {
			sev = timeline.Critical
		}
		sug := "Kernels resident but not working: ranks waiting in a collective (NCCL all-reduce, barrier) for a " +
			"slower rank, or a kernel spinning on a flag. Find the GPU that is not waiting and what it does then (a " +
			"checkpoint, evaluation or logging on one rank); if it never ends the job is hung (`NCCL_DEBUG=INFO`, `py-spy dump`)."
		if len(f.GPUs) == 1 {
			// No other GPU to wait for: no collective, no rank.
			sug = "Kernels resident but not working: a kernel spinning on a flag or waiting on the host (a stream " +
				"waiting for an event, a host callback); if it never ends the job is hung (`py-spy dump`, `cuda-gdb`)."
		}
		return timeline.Hint{
			Severity:   sev,
			Evidence:   ev,
			Suggestion: sug,
			Confidence: conf * frame.KnownShare(gs, g.Spans),
		}, true
	},
	YieldsTo: []string{timeline.HintPeriodicStall},
}

// powerShare says what a power range is a share of: " (21-23% of the
// 700W limit)", or without a limit " (27% of the 560W these GPUs draw
// when working)".
func powerShare(gs []*frame.GPU, p frame.Stat, last int) string {
	ref := gs[0].RefAt.Get(last)
	if !(ref > 0) {
		return ""
	}
	share := frame.Stat{N: p.N, Lo: 100 * p.Lo / ref, Hi: 100 * p.Hi / ref}
	if gs[0].RefIsLimit.Get(last) == 1 {
		return " (" + frame.Range(share, "%") + " of the " + units.Number(ref) + "W limit)"
	}
	return " (" + frame.Range(share, "%") + " of the " + units.Number(ref) + "W they draw when working)"
}
