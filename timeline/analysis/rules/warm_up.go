package rules

import (
	"fmt"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
)

// Warm-up worth a hint: at least warmUpMin, and warmUpShare of the time so
// far.
const (
	warmUpMin   = time.Minute
	warmUpShare = 0.1
)

// WarmUp is warm-up (info): the job took at least a minute, and a tenth
// of the time so far, to reach its working rate (WarmUp: the first steady
// stretch within 25 % of its fastest), counting the start-up before its
// first reading. Start-up that long is worth shortening where a job runs
// often or briefly.
var WarmUp = frame.Rule{
	ID: timeline.HintWarmUp,
	Find: func(f *frame.Frame) []frame.Cand {
		sp, _, ok := warmUp(f)
		if !ok {
			return nil
		}
		return everyGPU(f, timeline.HintWarmUp, "warm-up", sp)
	},
	Describe: func(f *frame.Frame, g *frame.Group) (timeline.Hint, bool) {
		sp, rate, ok := warmUp(f)
		if !ok || sp != g.Hull {
			return timeline.Hint{}, false
		}
		j, _ := f.Job()
		total := j.End.Sub(f.From)
		ev := fmt.Sprintf("the job took %s (%s of the time) to reach its working rate of %s",
			units.Duration(f.Dur(sp)), units.Share(f.Dur(sp).Seconds()/total.Seconds()), jobRate(rate, j.Unit))
		if len(j.Progress) > 0 {
			ev += fmt.Sprintf("; its first progress came %s in", units.Duration(j.Progress[0].At.Sub(f.From).Truncate(time.Second)))
		}
		sug := "Time before the job works at full rate: loading and compiling (torch.compile's cache, " +
			"TORCHINDUCTOR_CACHE_DIR), reading the model from remote storage, data-loader workers filling their " +
			"prefetch. Cache what can be cached on local disk, and start the loaders before the model."
		return timeline.Hint{Severity: timeline.Info, Evidence: ev, Suggestion: sug,
			Confidence: 0.6 * frame.KnownShare(f.Members(g), g.Spans)}, true
	},
}

// warmUp is the warm-up's columns and the working rate, where it is long
// enough for warm-up.
func warmUp(f *frame.Frame) (frame.Span, float64, bool) {
	j, ok := f.Job()
	if !ok || len(j.Levels) == 0 {
		return frame.Span{}, 0, false
	}
	warm := frame.WarmUp(j.Levels, f.From)
	total := j.End.Sub(f.From)
	if warm < warmUpMin || total <= 0 || warm.Seconds() < warmUpShare*total.Seconds() {
		return frame.Span{}, 0, false
	}
	rate := 0.0
	if k := slices.IndexFunc(j.Levels, func(l frame.RateLevel) bool { return !l.Start.Before(f.From.Add(warm)) }); k >= 0 {
		rate = j.Levels[k].Rate
	}
	return f.Span(f.From, f.From.Add(warm)), rate, true
}
