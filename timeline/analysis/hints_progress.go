package analysis

import (
	"fmt"
	"math"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// everyGPU makes one candidate of the rule for every GPU with data over
// sp, grouped by key into one episode.
func (f *hintFrame) everyGPU(id, key string, sp hintSpan) []hintCand {
	var out []hintCand
	for _, g := range f.gpus {
		if hintStats([]*hintGPU{g}, hintPickUtil, []hintSpan{sp}, nil).ok() {
			out = append(out, hintCand{id: id, gpu: g.index, key: key, whole: true, firm: true, spans: []hintSpan{sp}})
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
func (f *hintFrame) throughputLoss(stalls []hintSpan, hull hintSpan) string {
	j, ok := f.job()
	if !ok {
		return ""
	}
	from, to := f.time(hull.lo), f.time(hull.hi)
	done := timeline.ProgressDone(j.ps, j.unit, from, to)
	total := to.Sub(from)
	if math.IsNaN(done) || total <= 0 {
		return ""
	}
	inStalls, stalled := 0.0, time.Duration(0)
	for _, sp := range stalls {
		if d := timeline.ProgressDone(j.ps, j.unit, f.time(sp.lo), f.time(sp.hi)); !math.IsNaN(d) {
			inStalls += d
		}
		stalled += f.dur(sp)
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
		units.Share(1-rate/between), jobRate(rate, j.unit), jobRate(between, j.unit))
}
