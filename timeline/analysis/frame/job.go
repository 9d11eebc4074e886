package frame

import (
	"fmt"
	"sort"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/work"
)

// JobTrack is what the Engine keeps of the job's own progress and of its
// markers, for the rules that use them (throughput-drop, progress-stalled,
// warm-up, and periodic-stall's cost in throughput).
type JobTrack struct {
	progress []timeline.Progress
	markers  []timeline.Marker
}

// maxJobTrack bounds each list; the oldest quarter goes first.
const maxJobTrack = 1 << 20

func (j *JobTrack) Add(s *timeline.Sample) {
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

// JobView is the job's progress as one view of the frame sees it: the
// readings up to the view's end, their unit, and the levels of its rate.
type JobView struct {
	Progress []timeline.Progress
	Unit     string
	Levels   []RateLevel
	End      time.Time
}

// Job is the job's progress up to the view's end; ok false without any.
func (f *Frame) Job() (JobView, bool) {
	if f.Kept == nil || f.N == 0 {
		return JobView{}, false
	}
	end := f.Time(f.N)
	all := f.Kept.Job.progress
	ps := all[:sort.Search(len(all), func(i int) bool { return all[i].At.After(end) })]
	unit := work.Unit(ps)
	if unit == "" {
		return JobView{}, false
	}
	return JobView{Progress: ps, Unit: unit, Levels: RateLevels(ps, unit, f.From, end), End: end}, true
}

// Span is the columns of [from, to), within the frame.
func (f *Frame) Span(from, to time.Time) Span {
	return Span{max(0, min(f.N, f.Col(from))), max(0, min(f.N, f.Col(to)))}
}

// PhaseAt names the phase the job was in at t: the last marker at or
// before it, as `, during "eval"`; "" without one.
func (f *Frame) PhaseAt(t time.Time) string {
	if f.Kept == nil {
		return ""
	}
	ms := f.Kept.Job.markers
	i := sort.Search(len(ms), func(i int) bool { return ms[i].At.After(t) })
	if i == 0 || ms[i-1].At.Before(f.From) {
		return ""
	}
	return fmt.Sprintf(", during %q", ms[i-1].Text)
}
