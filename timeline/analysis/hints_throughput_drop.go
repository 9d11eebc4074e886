package analysis

import (
	"fmt"
	"strconv"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// dropShare is how far the job's rate must fall for throughput-drop: to
// 70 % of the stretch before or less.
const dropShare = 0.7

// throughputDropRule is throughput-drop: the job's own rate (its progress
// bar, its step lines) falls by 30 % or more from one steady stretch to the
// next (RateLevels), for at least a Window, while the GPUs stay busy: their
// mean utilisation in the slower stretch is at least BusyWork and at least
// 85 % of what it was. Utilisation says they are as busy as before for
// less work: contention, a busy-wait, a slower code path. A fall to a
// standstill is progress-stalled's.
var throughputDropRule = hintRule{
	id: timeline.HintThroughputDrop,
	find: func(f *hintFrame) []hintCand {
		j, ok := f.job()
		if !ok {
			return nil
		}
		var out []hintCand
		for k := 1; k < len(j.levels); k++ {
			if _, ok := f.drop(j, k); ok {
				b := j.levels[k]
				out = append(out, f.everyGPU(timeline.HintThroughputDrop, "drop "+strconv.Itoa(k), f.span(b.Start, b.End))...)
			}
		}
		return out
	},
	describe: func(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
		j, ok := f.job()
		if !ok {
			return timeline.Hint{}, false
		}
		for k := 1; k < len(j.levels); k++ {
			b := j.levels[k]
			if f.span(b.Start, b.End) != g.hull {
				continue
			}
			util, ok := f.drop(j, k)
			if !ok {
				return timeline.Hint{}, false
			}
			a := j.levels[k-1]
			ev := fmt.Sprintf("the job's rate fell %s at %s, from %s to %s, while %s stayed busy (util %s%% before, %s%% after)%s",
				units.Share(1-b.Rate/a.Rate), f.at(b.Start), jobRate(a.Rate, j.unit), jobRate(b.Rate, j.unit),
				f.gpuNames(g.gpus), units.Number(util[0]), units.Number(util[1]), f.phaseAt(b.Start))
			sug := "The GPUs are as busy as before for less work: look for another process on them (the process " +
				"table), a busy-wait (a collective waiting on a slow rank, a sync in the loop), or a slower code path " +
				"in this phase (a different sequence length or batch, an eval mode, CPU offload); profile a step " +
				"before and after the drop (torch.profiler) and compare."
			sev := timeline.Warning
			if b.Rate <= 0.4*a.Rate {
				sev = timeline.Critical
			}
			gs := f.members(g)
			return timeline.Hint{Severity: sev, Evidence: ev, Suggestion: sug,
				Confidence: 0.7 * f.lengthFactor(g.hull) * hintKnownShare(gs, g.spans)}, true
		}
		return timeline.Hint{}, false
	},
}

// drop says whether level k of the job's rate is a throughput drop, with
// the GPUs' mean utilisation before and in it.
func (f *hintFrame) drop(j jobView, k int) ([2]float64, bool) {
	a, b := j.levels[k-1], j.levels[k]
	if !(b.Rate > 0) || b.Rate > dropShare*a.Rate || b.End.Sub(b.Start) < f.opts.Window {
		return [2]float64{}, false
	}
	before := hintStats(f.gpus, hintPickUtil, []hintSpan{f.span(a.Start, a.End)}, nil)
	after := hintStats(f.gpus, hintPickUtil, []hintSpan{f.span(b.Start, b.End)}, nil)
	if !before.ok() || !after.ok() || after.mean < f.opts.BusyWork || after.mean < 0.85*before.mean {
		return [2]float64{}, false
	}
	return [2]float64{before.mean, after.mean}, true
}
