package rules

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// stallIdleShare is how much of a progress stall the GPUs must be idle for
// progress-stalled.
const stallIdleShare = 0.8

// ProgressStalled is progress-stalled: the job's count of work done
// does not move for at least a Window (between two of its readings, or
// from its last one to the view's end) while its GPUs are idle in at least
// 80 % of it. Neither the GPUs nor the job's own loop are working: it
// waits on something outside them (a data source, storage, a barrier with
// another rank, a service). A job that states only rates gives no count,
// and no such hint.
var ProgressStalled = frame.Rule{
	ID: timeline.HintProgressStalled,
	Find: func(f *frame.Frame) []frame.Cand {
		var out []frame.Cand
		for k, st := range progressStalls(f) {
			// The GPUs idle in stallIdleShare of its known columns.
			if frame.ShareOf(f.GPUs, []frame.Span{st}, func(s frame.State) bool { return s == frame.Idle }) >= stallIdleShare {
				out = append(out, everyGPU(f, timeline.HintProgressStalled, "stall "+strconv.Itoa(k), st)...)
			}
		}
		return out
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		j, ok := f.Job()
		if !ok {
			return timeline.Hint{}, false
		}
		from := f.Time(g.Hull.Lo)
		done := jobDone(j.Progress, j.Unit, from)
		gs := f.Members(g)
		util := frame.Stats(gs, frame.PickUtil, g.Spans, nil)
		ev := fmt.Sprintf("the job made no progress for %s from %s (at %s %s), while %s were idle %s of the time (util %s%%)%s",
			units.Duration(f.Held(g.Hull)), f.Into(from), units.Number(done), j.Unit, f.GPUNames(g.GPUs),
			units.Share(frame.ShareOf(gs, g.Spans, func(st frame.State) bool { return st == frame.Idle })),
			units.Number(util.Mean), f.PhaseAt(from))
		sug := "Neither the GPUs nor the training loop are working: the job waits on something outside them: a " +
			"data source or a remote store, a checkpoint written synchronously, a barrier with another rank or " +
			"node, a lock or a service. Dump its stacks while it waits (py-spy dump --pid PID) to see where."
		sev := timeline.Warning
		if f.Dur(g.Hull) >= 5*time.Minute {
			sev = timeline.Critical
		}
		return timeline.Hint{Severity: sev, Evidence: ev, Suggestion: sug,
			Confidence: 0.8 * f.LengthFactor(g.Hull) * frame.KnownShare(gs, g.Spans)}, true
	},
}

// stallRateShare: a stretch between two readings whose rate is below this
// share of the job's fastest steady rate is a stall (the first reading
// after one has a little work in it).
const stallRateShare = 0.05

// progressStalls are the stretches of at least a Window in which the job's
// count of work done did not move, or hardly (stallRateShare): between two
// readings, or over a run of readings that repeat the count (a progress bar
// redrawn while the job waits, a `gputop mark "progress N"` sent on a
// timer), from the run's first reading to the one where the count moved
// again (or to the last that repeated it, where the move holds more work
// than a stall's).
func progressStalls(f *frame.Frame) []frame.Span {
	j, ok := f.Job()
	if !ok {
		return nil
	}
	fastest := 0.0
	for _, l := range j.Levels {
		fastest = max(fastest, l.Rate)
	}
	slow := func(a, b *timeline.Progress) bool {
		return b.Done-a.Done <= stallRateShare*fastest*b.At.Sub(a.At).Seconds()
	}
	var out []frame.Span
	add := func(from, to time.Time) {
		if to.Sub(from) >= f.Opts.Window {
			out = append(out, f.Span(from, to))
		}
	}
	var anchor, prev *timeline.Progress // the flat run's first reading, and its last
	for i := range j.Progress {
		p := &j.Progress[i]
		if p.Unit != j.Unit || math.IsNaN(p.Done) {
			continue
		}
		switch {
		case prev == nil:
			anchor = p
		case slow(prev, p):
			// Still flat: the run goes on.
		case slow(anchor, p):
			add(anchor.At, p.At)
			anchor = p
		default:
			add(anchor.At, prev.At)
			anchor = p
		}
		prev = p
	}
	if anchor != nil {
		add(anchor.At, j.End) // stalled to now, or nothing where it moved lately
	}
	return out
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
