package analysis

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// jobTrack is what the Engine keeps of the job's own progress and of its
// markers, for the rules that use them (throughput-drop, progress-stalled,
// warm-up, and periodic-stall's cost in throughput).
type jobTrack struct {
	progress []timeline.Progress
	markers  []timeline.Marker
}

// maxJobTrack bounds each list; the oldest quarter goes first.
const maxJobTrack = 1 << 20

func (j *jobTrack) add(s *timeline.Sample) {
	for _, p := range s.Progress {
		if n := len(j.progress); n > 0 && p.At.Before(j.progress[n-1].At) {
			continue
		}
		if len(j.progress) >= maxJobTrack {
			j.progress = append(j.progress[:0], j.progress[maxJobTrack/4:]...)
		}
		j.progress = append(j.progress, p)
	}
	for _, m := range s.Markers {
		if len(j.markers) >= maxJobTrack {
			j.markers = append(j.markers[:0], j.markers[maxJobTrack/4:]...)
		}
		j.markers = append(j.markers, m)
	}
}

// jobView is the job's progress as one view of the frame sees it: the
// readings up to the view's end, their unit, and the levels of its rate.
type jobView struct {
	ps     []timeline.Progress
	unit   string
	levels []RateLevel
	end    time.Time
}

// job is the job's progress up to the view's end; ok false without any.
func (f *hintFrame) job() (jobView, bool) {
	if f.eng == nil || f.n == 0 {
		return jobView{}, false
	}
	end := f.time(f.n)
	all := f.eng.job.progress
	ps := all[:sort.Search(len(all), func(i int) bool { return all[i].At.After(end) })]
	unit := timeline.ProgressUnit(ps)
	if unit == "" {
		return jobView{}, false
	}
	return jobView{ps: ps, unit: unit, levels: RateLevels(ps, unit, f.from, end), end: end}, true
}

// span is the columns of [from, to), within the frame.
func (f *hintFrame) span(from, to time.Time) hintSpan {
	return hintSpan{max(0, min(f.n, f.col(from))), max(0, min(f.n, f.col(to)))}
}

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

// phaseAt names the phase the job was in at t: the last marker at or
// before it, as `, during "eval"`; "" without one.
func (f *hintFrame) phaseAt(t time.Time) string {
	if f.eng == nil {
		return ""
	}
	ms := f.eng.job.markers
	i := sort.Search(len(ms), func(i int) bool { return ms[i].At.After(t) })
	if i == 0 || ms[i-1].At.Before(f.from) {
		return ""
	}
	return fmt.Sprintf(", during %q", ms[i-1].Text)
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
