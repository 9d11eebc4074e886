package analysis

import (
	"math"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// phaseHost is what a window says about the host and the job.
type phaseHost int8

const (
	phaseHostUnknown phaseHost = iota // no host or job data in the window
	phaseHostQuiet
	phaseHostBusy
)

// phaseClassify gives each of the n windows between from and to a kind,
// or phaseNoData where no GPU has a value.
func phaseClassify(s *timeline.Store, info timeline.SourceInfo, from, to time.Time, n int, opts PhaseOptions) []timeline.PhaseKind {
	activity := phaseGPUActivity(s, info, from, to, n)
	host := phaseHostActivity(s, from, to, n, opts)
	kinds := make([]timeline.PhaseKind, n)
	for i, a := range activity {
		switch {
		case math.IsNaN(a):
			kinds[i] = phaseNoData
		case a >= opts.BusyUtil:
			kinds[i] = timeline.PhaseBusy
		case host[i] == phaseHostBusy:
			kinds[i] = timeline.PhaseStalled
		case a >= opts.IdleUtil:
			kinds[i] = timeline.PhaseBusy
		default:
			kinds[i] = timeline.PhaseIdle
		}
	}
	return kinds
}

// phaseGPUActivity is, per window, the highest SM activity of the GPUs that
// report it, or where none does the highest utilisation; NaN where no GPU
// has either. SM activity wherever any GPU has it, because utilisation lies
// (a GPU spinning in a collective reads 99 %) and one GPU's utilisation
// must not outvote the others' SM activity. The highest, not the mean: a
// phase says what the job is doing, and a job working on one GPU of eight
// is working (that it uses one is the gpu-imbalance hint's news), while in a
// stall every GPU's SM activity drops, the spinning ones' too. A lost GPU
// writes no values, so it drops out by itself.
func phaseGPUActivity(s *timeline.Store, info timeline.SourceInfo, from, to time.Time, n int) []float64 {
	smMax, utilMax := make([]float64, n), make([]float64, n)
	for i := range n {
		smMax[i], utilMax[i] = math.NaN(), math.NaN()
	}
	col := make([]timeline.Agg, n)
	higher := func(into []float64, key timeline.Key) {
		s.Series(key, from, to, col)
		for i, a := range col {
			if !a.Empty() && (math.IsNaN(into[i]) || a.Mean > into[i]) {
				into[i] = a.Mean
			}
		}
	}
	for _, gpu := range timeline.GPUIndexes(s, info) {
		dev := timeline.GPUDevice(gpu)
		higher(smMax, timeline.Key{Name: timeline.GPUSMActive, Device: dev})
		higher(utilMax, timeline.Key{Name: timeline.GPUUtil, Device: dev})
	}
	for i := range smMax {
		if math.IsNaN(smMax[i]) {
			smMax[i] = utilMax[i]
		}
	}
	return smMax
}

// phaseHostActivity says, per window, whether the job or the host was busy: the
// job's CPU, the host's CPU, its busiest core or its iowait at or above its
// threshold. A window is phaseHostQuiet when some of these have values and none
// is busy, phaseHostUnknown when none has a value.
func phaseHostActivity(s *timeline.Store, from, to time.Time, n int, opts PhaseOptions) []phaseHost {
	state := make([]phaseHost, n)
	col := make([]timeline.Agg, n)
	check := func(key timeline.Key, threshold float64) {
		if !s.Has(key) {
			return
		}
		s.Series(key, from, to, col)
		for i, a := range col {
			switch {
			case a.Empty():
			case a.Mean >= threshold:
				state[i] = phaseHostBusy
			case state[i] == phaseHostUnknown:
				state[i] = phaseHostQuiet
			}
		}
	}
	check(timeline.Key{Name: timeline.ProcCPU, Device: timeline.JobDevice}, opts.JobBusyCPU)
	check(timeline.Key{Name: timeline.HostCPU, Device: timeline.HostDevice}, opts.HostBusyCPU)
	check(timeline.Key{Name: timeline.HostIOWait, Device: timeline.HostDevice}, opts.IOWaitBusy)
	for _, k := range s.Keys() {
		if k.Name == timeline.CoreBusy {
			// A core's mean over the window, not its peak: pegged for the
			// whole window, not a one-second spike.
			check(k, opts.CoreBusyCPU)
		}
	}
	return state
}
