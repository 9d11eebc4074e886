package ui

import (
	"math"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
)

// hostFigures is what a host line says of one host at the cursor.
type hostFigures struct {
	gpus, known, busy int
	mean, lo          float64
	power             float64 // NaN where no GPU gave one
	worst             *timeline.Hint
	// problem is why the host is not answering ("unreachable: …"), from
	// its connection's status; since is when its data stopped.
	problem string
	gap     bool
	since   time.Time
	// waiting says the problem is a wait (connecting), not a failure.
	waiting bool
}

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

// hostFigures is host h's figures at the moment mo (the cursor's, at).
func (f *frame) hostFigures(h int, at time.Time, mo timeline.Moment, idle *analysis.HintOptions, events []timeline.Event) hostFigures {
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
	fig := hostFigures{gpus: sum.GPUs, known: sum.Known, busy: sum.Busy, mean: sum.UtilMean, lo: sum.UtilLowest,
		power: sum.Power}
	for i := range f.an.shown {
		hint := &f.an.shown[i]
		if !hint.Ongoing || (fig.worst != nil && hint.Severity <= fig.worst.Severity) {
			continue
		}
		for _, g := range hint.GPUs {
			if pos := f.gpuPosition(g); pos >= 0 && hn.Of[pos] == h {
				fig.worst = hint
				break
			}
		}
	}
	for _, e := range events {
		if e.Probe == timeline.RemoteProbe && e.Device == hn.Names[h] {
			fig.problem = e.Err
			if fig.problem == "" {
				fig.problem = e.State.String()
			}
			fig.waiting = e.State == timeline.ProbeLate
			fig.since = e.Since
			break
		}
	}
	if fig.problem == "" && fig.gpus == 0 {
		fig.problem, fig.waiting = f.hostWaiting(h)
	}
	if fig.known == 0 && fig.gpus > 0 {
		fig.gap = true
		if from := f.gapStart(h, at); !from.IsZero() && (fig.since.IsZero() || from.Before(fig.since)) {
			fig.since = from
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
