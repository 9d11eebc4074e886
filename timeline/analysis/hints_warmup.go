package analysis

import (
	"fmt"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// Warm-up worth a hint: at least warmUpMin, and warmUpShare of the time so
// far.
const (
	warmUpMin   = time.Minute
	warmUpShare = 0.1
)

// warmUpRule is warm-up (info): the job took at least a minute, and a tenth
// of the time so far, to reach its working rate (WarmUp: the first steady
// stretch within 25 % of its fastest), counting the start-up before its
// first reading. Start-up that long is worth shortening where a job runs
// often or briefly.
var warmUpRule = hintRule{
	id: timeline.HintWarmUp,
	find: func(f *hintFrame) []hintCand {
		sp, _, ok := f.warmUp()
		if !ok {
			return nil
		}
		return f.everyGPU(timeline.HintWarmUp, "warm-up", sp)
	},
	describe: func(f *hintFrame, g *hintGroup) (timeline.Hint, bool) {
		sp, rate, ok := f.warmUp()
		if !ok || sp != g.hull {
			return timeline.Hint{}, false
		}
		j, _ := f.job()
		total := j.end.Sub(f.from)
		ev := fmt.Sprintf("the job took %s (%s of the time) to reach its working rate of %s",
			units.Duration(f.dur(sp)), units.Share(f.dur(sp).Seconds()/total.Seconds()), jobRate(rate, j.unit))
		if len(j.ps) > 0 {
			ev += fmt.Sprintf("; its first progress came %s in", units.Duration(j.ps[0].At.Sub(f.from).Truncate(time.Second)))
		}
		sug := "Time before the job works at full rate: loading and compiling (torch.compile's cache, " +
			"TORCHINDUCTOR_CACHE_DIR), reading the model from remote storage, data-loader workers filling their " +
			"prefetch. Cache what can be cached on local disk, and start the loaders before the model."
		gs := f.members(g)
		return timeline.Hint{Severity: timeline.Info, Evidence: ev, Suggestion: sug,
			Confidence: 0.6 * hintKnownShare(gs, g.spans)}, true
	},
}

// warmUp is the warm-up's columns and the working rate, where it is long
// enough for warm-up.
func (f *hintFrame) warmUp() (hintSpan, float64, bool) {
	j, ok := f.job()
	if !ok || len(j.levels) == 0 {
		return hintSpan{}, 0, false
	}
	warm := WarmUp(j.levels, f.from)
	total := j.end.Sub(f.from)
	if warm < warmUpMin || total <= 0 || warm.Seconds() < warmUpShare*total.Seconds() {
		return hintSpan{}, 0, false
	}
	rate := 0.0
	for _, l := range j.levels {
		if !l.Start.Before(f.from.Add(warm)) {
			rate = l.Rate
			break
		}
	}
	return f.span(f.from, f.from.Add(warm)), rate, true
}
