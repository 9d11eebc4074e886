package timeline

import "math"

// A session of several hosts is read host by host in four places: the
// hosts screen, the report, the snapshot and the cross-host rules. They
// group its GPUs by host here, and sum a host's GPUs here, so that a host
// is the same hosts and the same figures wherever it is shown.

// HostGroups are the hosts of a session and which of its GPUs each has.
type HostGroups struct {
	// Names are the hosts: the description's, in its order, then any host
	// a GPU names that the description does not list, in the GPUs' order.
	Names []string
	// GPUs are each host's GPUs, as positions in SourceInfo.GPUs, in order.
	GPUs [][]int
	// Of is the host of each position in SourceInfo.GPUs.
	Of []int
}

// GroupByHost groups the GPUs of info by host. A GPU whose host the
// description does not list still has a place: under a host of its own
// name, so that no GPU of a session goes unshown.
func GroupByHost(info SourceInfo) HostGroups {
	var g HostGroups
	at := make(map[string]int, len(info.Hosts))
	place := func(name string) int {
		k, ok := at[name]
		if !ok {
			k = len(g.Names)
			at[name] = k
			g.Names = append(g.Names, name)
			g.GPUs = append(g.GPUs, nil)
		}
		return k
	}
	for _, h := range info.Hosts {
		place(h.Name)
	}
	g.Of = make([]int, len(info.GPUs))
	for pos, gpu := range info.GPUs {
		k := place(gpu.Host)
		g.GPUs[k] = append(g.GPUs[k], pos)
		g.Of[pos] = k
	}
	return g
}

// GPUFigures are one GPU's figures as its host sums them: at a moment (the
// screen, the snapshot) or over a stretch of time (the report's means).
// NaN where unknown.
type GPUFigures struct {
	// Index is the GPU's session-wide index.
	Index int
	Util  float64
	// SMActive is the SM activity, where the GPU has it.
	SMActive float64
	Power    float64
	Energy   float64
	MemUsed  float64
	MemTotal float64
	// Busy says the GPU worked, by the idle rules' test; meaningful only
	// where Util is known.
	Busy bool
}

// HostFigures are a host's GPUs together. Means are over the GPUs with a
// value; sums are NaN until the first GPU with a value.
type HostFigures struct {
	// GPUs is how many GPUs were summed; Known how many had a utilisation,
	// Busy how many of those worked.
	GPUs, Known, Busy int
	UtilMean          float64
	// UtilLowest is the lowest utilisation, that of the GPU LowestGPU
	// (session-wide; -1 with none).
	UtilLowest   float64
	LowestGPU    int
	SMActiveMean float64
	// Power, Energy, MemUsed and MemTotal are the GPUs' together.
	Power, Energy, MemUsed, MemTotal float64
	// MemPeak is the highest MemUsed of one GPU, MemPeakTotal that GPU's
	// memory: the fullest GPU, which runs out first.
	MemPeak, MemPeakTotal float64
}

// SumHost sums a host's GPUs.
func SumHost(gpus []GPUFigures) HostFigures {
	nan := math.NaN()
	f := HostFigures{GPUs: len(gpus), UtilMean: nan, UtilLowest: nan, LowestGPU: -1, SMActiveMean: nan,
		Power: nan, Energy: nan, MemUsed: nan, MemTotal: nan, MemPeak: nan, MemPeakTotal: nan}
	var util, sm float64
	smKnown := 0
	for _, g := range gpus {
		if !math.IsNaN(g.Util) {
			f.Known++
			util += g.Util
			if g.Busy {
				f.Busy++
			}
			if f.LowestGPU < 0 || g.Util < f.UtilLowest {
				f.UtilLowest, f.LowestGPU = g.Util, g.Index
			}
		}
		if !math.IsNaN(g.SMActive) {
			smKnown++
			sm += g.SMActive
		}
		f.Power, f.Energy = AddKnown(f.Power, g.Power), AddKnown(f.Energy, g.Energy)
		f.MemUsed, f.MemTotal = AddKnown(f.MemUsed, g.MemUsed), AddKnown(f.MemTotal, g.MemTotal)
		if !math.IsNaN(g.MemUsed) && !(g.MemUsed <= f.MemPeak) {
			f.MemPeak, f.MemPeakTotal = g.MemUsed, g.MemTotal
		}
	}
	if f.Known > 0 {
		f.UtilMean = util / float64(f.Known)
	}
	if smKnown > 0 {
		f.SMActiveMean = sm / float64(smKnown)
	}
	return f
}

// AddKnown adds v to a sum that is NaN until the first known value: a sum
// of readings where unknown is never zero.
func AddKnown(sum, v float64) float64 {
	switch {
	case math.IsNaN(v):
		return sum
	case math.IsNaN(sum):
		return v
	}
	return sum + v
}
