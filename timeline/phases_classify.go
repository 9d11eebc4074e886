package timeline

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
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
func phaseClassify(s *Store, info SourceInfo, from, to time.Time, n int, opts PhaseOptions) []PhaseKind {
	activity := phaseGPUActivity(s, info, from, to, n)
	host := phaseHostActivity(s, from, to, n, opts)
	kinds := make([]PhaseKind, n)
	for i, a := range activity {
		switch {
		case math.IsNaN(a):
			kinds[i] = phaseNoData
		case a >= opts.BusyUtil:
			kinds[i] = PhaseBusy
		case host[i] == phaseHostBusy:
			kinds[i] = PhaseStalled
		case a >= opts.IdleUtil:
			kinds[i] = PhaseBusy
		default:
			kinds[i] = PhaseIdle
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
func phaseGPUActivity(s *Store, info SourceInfo, from, to time.Time, n int) []float64 {
	smMax, utilMax := make([]float64, n), make([]float64, n)
	for i := range n {
		smMax[i], utilMax[i] = math.NaN(), math.NaN()
	}
	col := make([]Agg, n)
	higher := func(into []float64, key Key) {
		s.Series(key, from, to, col)
		for i, a := range col {
			if !a.Empty() && (math.IsNaN(into[i]) || a.Mean > into[i]) {
				into[i] = a.Mean
			}
		}
	}
	for _, gpu := range phaseGPUs(s, info) {
		dev := GPUDevice(gpu)
		higher(smMax, Key{GPUSMActive, dev})
		higher(utilMax, Key{GPUUtil, dev})
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
func phaseHostActivity(s *Store, from, to time.Time, n int, opts PhaseOptions) []phaseHost {
	state := make([]phaseHost, n)
	col := make([]Agg, n)
	check := func(key Key, threshold float64) {
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
	check(Key{ProcCPU, JobDevice}, opts.JobBusyCPU)
	check(Key{HostCPU, HostDevice}, opts.HostBusyCPU)
	check(Key{HostIOWait, HostDevice}, opts.IOWaitBusy)
	for _, k := range s.Keys() {
		if k.Name == CoreBusy {
			// A core's mean over the window, not its peak: pegged for the
			// whole window, not a one-second spike.
			check(k, opts.CoreBusyCPU)
		}
	}
	return state
}

// phaseGPUs lists the NVML indexes of the GPUs to read: the source's, or
// where it names none (an import that could not tell), every "gpuN" device
// the store has seen.
func phaseGPUs(s *Store, info SourceInfo) []int {
	var idx []int
	if len(info.GPUs) > 0 {
		for _, g := range info.GPUs {
			idx = append(idx, g.Index)
		}
	} else {
		seen := map[int]bool{}
		for _, k := range s.Keys() {
			if i, ok := phaseGPUIndex(k.Device); ok && !seen[i] {
				seen[i] = true
				idx = append(idx, i)
			}
		}
	}
	sort.Ints(idx)
	return idx
}

// phaseGPUIndex parses the NVML index out of a "gpuN" device name.
func phaseGPUIndex(device string) (int, bool) {
	rest, ok := strings.CutPrefix(device, "gpu")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(rest)
	if err != nil || i < 0 || GPUDevice(i) != device {
		return 0, false
	}
	return i, true
}
