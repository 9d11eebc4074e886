package rules

import (
	"fmt"
	"strconv"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// dropShare is how far the job's rate must fall for throughput-drop: to
// 70 % of the stretch before or less.
const dropShare = 0.7

// ThroughputDrop is throughput-drop: the job's own rate (its progress
// bar, its step lines) falls by 30 % or more from one steady stretch to the
// next (RateLevels), for at least a Window, while the GPUs stay busy: their
// mean utilisation in the slower stretch is at least BusyWork and at least
// 85 % of what it was. Utilisation says they are as busy as before for
// less work: contention, a busy-wait, a slower code path. A fall to a
// standstill is progress-stalled's.
var ThroughputDrop = frame.Rule{
	ID: timeline.HintThroughputDrop,
	Find: func(f *frame.Frame) []frame.Cand {
		j, ok := f.Job()
		if !ok {
			return nil
		}
		var out []frame.Cand
		for k := 1; k < len(j.Levels); k++ {
			if _, ok := drop(f, j, k); ok {
				b := j.Levels[k]
				out = append(out, everyGPU(f, timeline.HintThroughputDrop, "drop "+strconv.Itoa(k), f.Span(b.Start, b.End))...)
			}
		}
		return out
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		j, ok := f.Job()
		if !ok {
			return timeline.Hint{}, false
		}
		for k := 1; k < len(j.Levels); k++ {
			b := j.Levels[k]
			if f.Span(b.Start, b.End) != g.Hull {
				continue
			}
			util, ok := drop(f, j, k)
			if !ok {
				return timeline.Hint{}, false
			}
			a := j.Levels[k-1]
			ev := fmt.Sprintf("the job's rate fell %s at %s, from %s to %s, while %s stayed busy (util %s%% before, %s%% after)%s",
				units.Share(1-b.Rate/a.Rate), f.Into(b.Start), jobRate(a.Rate, j.Unit), jobRate(b.Rate, j.Unit),
				f.GPUNames(g.GPUs), units.Number(util[0]), units.Number(util[1]), f.PhaseAt(b.Start))
			sug := "The GPUs are as busy as before for less work: look for another process on them (the process " +
				"table), a busy-wait (a collective waiting on a slow rank, a sync in the loop), or a slower code path " +
				"in this phase (a different sequence length or batch, an eval mode, CPU offload); profile a step " +
				"before and after the drop (torch.profiler) and compare."
			sev := timeline.Warning
			if b.Rate <= 0.4*a.Rate {
				sev = timeline.Critical
			}
			return timeline.Hint{Severity: sev, Evidence: ev, Suggestion: sug,
				Confidence: 0.7 * f.LengthFactor(g.Hull) * frame.KnownShare(f.Members(g), g.Spans)}, true
		}
		return timeline.Hint{}, false
	},
}

// drop says whether level k of the job's rate is a throughput drop, with
// the GPUs' mean utilisation before and in it.
func drop(f *frame.Frame, j frame.JobView, k int) ([2]float64, bool) {
	a, b := j.Levels[k-1], j.Levels[k]
	if !(b.Rate > 0) || b.Rate > dropShare*a.Rate || b.End.Sub(b.Start) < f.Opts.Window {
		return [2]float64{}, false
	}
	before := frame.Stats(f.GPUs, frame.PickUtil, []frame.Span{f.Span(a.Start, a.End)}, nil)
	after := frame.Stats(f.GPUs, frame.PickUtil, []frame.Span{f.Span(b.Start, b.End)}, nil)
	if !before.OK() || !after.OK() || after.Mean < f.Opts.BusyWork || after.Mean < 0.85*before.Mean {
		return [2]float64{}, false
	}
	return [2]float64{before.Mean, after.Mean}, true
}
