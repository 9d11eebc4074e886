package ui

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/ui/hostrow"
)

// gpuState is one GPU at a moment, by the idle rules' test: SM activity
// decides where the GPU has it (utilisation reads high for one resident
// kernel).
func gpuState(mo timeline.Moment, sr gpuSeries, idle *analysis.HintOptions) (util float64, known, isIdle bool) {
	u := mo.Value(sr.util)
	if math.IsNaN(u) {
		return u, false, false
	}
	if sm := mo.Value(sr.sm); !math.IsNaN(sm) {
		return u, true, sm < idle.IdleSM
	}
	return u, true, u < idle.IdleUtil
}

// hostFigures is host h's figures at the moment mo (the cursor's, at):
// the problem from its connection's status, and since when its data
// stopped.
func (f *frame) hostFigures(h int, at time.Time, mo timeline.Moment, idle *analysis.HintOptions, events []timeline.Event) hostrow.Figures {
	hn := &f.list
	gpus := f.drawn.hosts.scratch[:0]
	for _, pos := range hn.GPUs[h] {
		sr := f.series.at(f.store, f.info.GPUs, pos)
		u, _, isIdle := gpuState(mo, sr, idle)
		gpus = append(gpus, timeline.GPUFigures{Index: sr.index, Util: u, SMActive: math.NaN(),
			Power: mo.Value(sr.power), Energy: math.NaN(), MemUsed: math.NaN(),
			MemTotal: math.NaN(), Busy: !isIdle})
	}
	f.drawn.hosts.scratch = gpus
	sum := timeline.SumHost(gpus)
	fig := hostrow.Figures{GPUs: sum.GPUs, Busy: sum.Busy, Mean: sum.UtilMean, Lo: sum.UtilLowest, Power: sum.Power}
	for i := range f.an.shown {
		hint := &f.an.shown[i]
		if !hint.Ongoing || (fig.Worst != nil && hint.Severity <= fig.Worst.Severity) {
			continue
		}
		if slices.ContainsFunc(hint.GPUs, func(g int) bool { pos := f.gpuPosition(g); return pos >= 0 && hn.Of[pos] == h }) {
			fig.Worst = hint
		}
	}
	for _, e := range events {
		if e.Probe == timeline.RemoteProbe && e.Device == hn.Names[h] {
			fig.Problem = cmp.Or(e.Err, e.State.String())
			fig.Waiting = e.State == timeline.ProbeLate
			fig.Since = e.Since
			break
		}
	}
	if fig.Problem == "" && fig.GPUs == 0 {
		fig.Problem, fig.Waiting = f.hostWaiting(h)
	}
	if sum.Known == 0 && fig.GPUs > 0 {
		fig.Gap = true
		if from := f.gapStart(h, at); !from.IsZero() && (fig.Since.IsZero() || from.Before(fig.Since)) {
			fig.Since = from
		}
	}
	return fig
}

// gpuPosition is where the GPU with session-wide index g is in info.GPUs;
// -1 for none.
func (s *session) gpuPosition(g int) int {
	if g >= 0 && g < len(s.info.GPUs) && s.info.GPUs[g].Index == g {
		return g
	}
	return slices.IndexFunc(s.info.GPUs, func(gi timeline.GPUInfo) bool { return gi.Index == g })
}

// gapStart is when host h's GPUs stopped having a utilisation, before at:
// the first sample after the last one in which any of them had one. Zero
// if they never had one (or no sample came after it).
func (f *frame) gapStart(h int, at time.Time) time.Time {
	hn := &f.list
	name := hn.Names[h]
	if c, ok := f.drawn.hosts.seen[name]; ok && c.at.Equal(at) && c.samples == f.store.Len() {
		return c.since
	}
	var seen time.Time
	for _, pos := range hn.GPUs[h] {
		key := timeline.Key{Name: timeline.GPUUtil, Device: timeline.GPUDevice(f.info.GPUs[pos].Index)}
		f.store.Each(key, f.store.First(), at, func(t time.Time, v float64) bool {
			if !math.IsNaN(v) && t.After(seen) {
				seen = t
			}
			return true
		})
	}
	var since time.Time
	if !seen.IsZero() {
		f.store.SampleTimes(seen.Add(1), at, func(t time.Time) bool {
			since = t
			return false
		})
	}
	if f.drawn.hosts.seen == nil {
		f.drawn.hosts.seen = map[string]gapCache{}
	}
	f.drawn.hosts.seen[name] = gapCache{at: at, since: since, samples: f.store.Len()}
	return since
}
