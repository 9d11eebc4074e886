package analysis

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// stallIdleShare is how much of a progress stall the GPUs must be idle for
// progress-stalled.
const stallIdleShare = 0.8

// progressStalledRule is progress-stalled: the job's count of work done
// does not move for at least a Window (between two of its readings, or
// from its last one to the view's end) while its GPUs are idle in at least
// 80 % of it. Neither the GPUs nor the job's own loop are working: it
// waits on something outside them (a data source, storage, a barrier with
// another rank, a service). A job that states only rates gives no count,
// and no such hint.
var progressStalledRule = hintRule{
	id: timeline.HintProgressStalled,
	find: func(f *hintFrame) []hintCand {
		var out []hintCand
		for k, st := range f.progressStalls() {
			if f.idleShare(st) >= stallIdleShare {
				out = append(out, f.everyGPU(timeline.HintProgressStalled, "stall "+strconv.Itoa(k), st)...)
			}
		}
		return out
	},
	describe: func(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
		j, ok := f.job()
		if !ok {
			return timeline.Hint{}, false
		}
		from := f.time(g.hull.lo)
		done := jobDone(j.ps, j.unit, from)
		gs := f.members(g)
		util := hintStats(gs, hintPickUtil, g.spans, nil)
		ev := fmt.Sprintf("the job made no progress for %s from %s (at %s %s), while %s were idle %s of the time (util %s%%)%s",
			units.Duration(f.dur(g.hull)), f.at(from), units.Number(done), j.unit, f.gpuNames(g.gpus),
			units.Share(hintShareOf(gs, g.spans, func(st hintState) bool { return st == hsIdle })),
			units.Number(util.mean), f.phaseAt(from))
		sug := "Neither the GPUs nor the training loop are working: the job waits on something outside them: a " +
			"data source or a remote store, a checkpoint written synchronously, a barrier with another rank or " +
			"node, a lock or a service. Dump its stacks while it waits (py-spy dump --pid PID) to see where."
		sev := timeline.Warning
		if f.dur(g.hull) >= 5*time.Minute {
			sev = timeline.Critical
		}
		return timeline.Hint{Severity: sev, Evidence: ev, Suggestion: sug,
			Confidence: 0.8 * f.lengthFactor(g.hull) * hintKnownShare(gs, g.spans)}, true
	},
}

// stallRateShare: a stretch between two readings whose rate is below this
// share of the job's fastest steady rate is a stall (the first reading
// after one has a little work in it).
const stallRateShare = 0.05

// progressStalls are the stretches of at least a Window in which the job's
// count of work done did not move, or hardly (stallRateShare).
func (f *hintFrame) progressStalls() []hintSpan {
	j, ok := f.job()
	if !ok {
		return nil
	}
	fastest := 0.0
	for _, l := range j.levels {
		fastest = max(fastest, l.Rate)
	}
	var out []hintSpan
	var prev *timeline.Progress
	for i := range j.ps {
		p := &j.ps[i]
		if p.Unit != j.unit || math.IsNaN(p.Done) {
			continue
		}
		if prev != nil {
			if d := p.At.Sub(prev.At); d >= f.opts.Window && (p.Done-prev.Done)/d.Seconds() <= stallRateShare*fastest {
				out = append(out, f.span(prev.At, p.At))
			}
		}
		prev = p
	}
	if prev != nil && j.end.Sub(prev.At) >= f.opts.Window {
		out = append(out, f.span(prev.At, j.end)) // stalled to now
	}
	return out
}

// idleShare is the share of sp's known columns in which the GPUs were idle.
func (f *hintFrame) idleShare(sp hintSpan) float64 {
	return hintShareOf(f.gpus, []hintSpan{sp}, func(st hintState) bool { return st == hsIdle })
}

// jobDone is the work done by the last reading at or before t.
func jobDone(ps []timeline.Progress, unit string, t time.Time) float64 {
	done := math.NaN()
	for _, p := range ps {
		if p.At.After(t) {
			break
		}
		if p.Unit == unit && !math.IsNaN(p.Done) {
			done = p.Done
		}
	}
	return done
}
