package rules

import (
	"fmt"
	"math"
	"time"

	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/units"
	"github.com/gputop-dev/gputop/timeline/work"
)

// everyGPU makes one candidate of the rule for every GPU with data over
// sp, grouped by key into one episode.
func everyGPU(f *frame.Frame, id, key string, sp frame.Span) []frame.Cand {
	var out []frame.Cand
	for _, g := range f.GPUs {
		if frame.Stats([]*frame.GPU{g}, frame.PickUtil, []frame.Span{sp}, nil).OK() {
			out = append(out, frame.Cand{ID: id, GPU: g.Index, Key: key, Whole: true, Firm: true, Spans: []frame.Span{sp}})
		}
	}
	return out
}

// jobRate is a rate in the job's unit: "49.6 it/s".
func jobRate(v float64, unit string) string {
	if math.IsNaN(v) {
		return "N/A"
	}
	return units.Number(v) + " " + unit + "/s"
}

// throughputLoss says what stalls cost the job's throughput over hull:
// ", costing the job 18 % of its throughput (40.1 it/s over the stretch,
// 49.0 it/s between stalls)"; "" without the job's progress.
func throughputLoss(f *frame.Frame, stalls []frame.Span, hull frame.Span) string {
	j, ok := f.Job()
	if !ok {
		return ""
	}
	from, to := f.Time(hull.Lo), f.Time(hull.Hi)
	done := work.Done(j.Progress, j.Unit, from, to)
	total := to.Sub(from)
	if math.IsNaN(done) || total <= 0 {
		return ""
	}
	inStalls, stalled := 0.0, time.Duration(0)
	for _, sp := range stalls {
		if d := work.Done(j.Progress, j.Unit, f.Time(sp.Lo), f.Time(sp.Hi)); !math.IsNaN(d) {
			inStalls += d
		}
		stalled += f.Dur(sp)
	}
	if stalled <= 0 || stalled >= total {
		return ""
	}
	rate := done / total.Seconds()
	between := (done - inStalls) / (total - stalled).Seconds()
	if !(between > 0) || rate >= between {
		return ""
	}
	return fmt.Sprintf(", costing the job %s of its throughput (%s over the stretch, %s between stalls)",
		units.Share(1-rate/between), jobRate(rate, j.Unit), jobRate(between, j.Unit))
}
