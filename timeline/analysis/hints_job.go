package analysis

import (
	"fmt"
	"sort"
	"time"

	"github.com/gputop-dev/gputop/timeline"
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
	if f.kept == nil || f.n == 0 {
		return jobView{}, false
	}
	end := f.time(f.n)
	all := f.kept.job.progress
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

// phaseAt names the phase the job was in at t: the last marker at or
// before it, as `, during "eval"`; "" without one.
func (f *hintFrame) phaseAt(t time.Time) string {
	if f.kept == nil {
		return ""
	}
	ms := f.kept.job.markers
	i := sort.Search(len(ms), func(i int) bool { return ms[i].At.After(t) })
	if i == 0 || ms[i-1].At.Before(f.from) {
		return ""
	}
	return fmt.Sprintf(", during %q", ms[i-1].Text)
}
