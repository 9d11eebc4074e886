package analysis

import (
	"math"

	"github.com/gputop-dev/gputop/timeline"
)

// hintHost is the host's columns; nil where never reported.
type hintHost struct {
	cpu, iowait, job, memUsed, memTotal, swap, diskRead, diskWrite []float32
	// Per-core summaries: the busiest core, how many cores are at
	// BusyCore or above and at IdleCore or below, and how many reported.
	topCore, busyCores, idleCores, cores []float32
	// Per column: 1 if the host is busy feeding the GPUs, 0 if not, -1
	// unknown; likewise for "one core pegged, the rest idle" and for high
	// iowait.
	busy, single, ioHigh []int8
}

// loadHost reads the host and the wrapped job, and judges each column.
func (f *hintFrame) loadHost(s *timeline.Store, scratch []timeline.Agg) {
	h := &f.host
	load := func(name, device string) []float32 {
		return f.load(s, timeline.Key{Name: name, Device: device}, scratch)
	}
	h.cpu, h.iowait = load(timeline.HostCPU, timeline.HostDevice), load(timeline.HostIOWait, timeline.HostDevice)
	h.memUsed, h.memTotal = load(timeline.HostMemUsed, timeline.HostDevice), load(timeline.HostMemTotal, timeline.HostDevice)
	h.swap = load(timeline.HostSwapUsed, timeline.HostDevice)
	h.diskRead, h.diskWrite = load(timeline.HostDiskRead, timeline.HostDevice), load(timeline.HostDiskWrite, timeline.HostDevice)
	h.job = load(timeline.ProcCPU, timeline.JobDevice)
	for _, k := range s.Keys() {
		if k.Name != timeline.CoreBusy {
			continue
		}
		core := load(timeline.CoreBusy, k.Device)
		if core == nil {
			continue
		}
		if h.cores == nil {
			h.topCore, h.busyCores = make([]float32, f.n), make([]float32, f.n)
			h.idleCores, h.cores = make([]float32, f.n), make([]float32, f.n)
		}
		for i, v := range core {
			if v != v { // NaN
				continue
			}
			h.cores[i]++
			h.topCore[i] = max(h.topCore[i], v)
			if float64(v) >= f.opts.BusyCore {
				h.busyCores[i]++
			}
			if float64(v) <= f.opts.IdleCore {
				h.idleCores[i]++
			}
		}
	}
	h.busy, h.single, h.ioHigh = make([]int8, f.n), make([]int8, f.n), make([]int8, f.n)
	for i := range f.n {
		h.busy[i], h.single[i], h.ioHigh[i] = f.hostBusy(i), f.hostSingle(i), f.hostIOHigh(i)
	}
}

// hostBusy: the host's CPU at HostBusyCPU or more, two or more cores at
// BusyCore or more, or the job at JobBusyCPU or more (1), none of them
// (0), or no CPU data (-1).
func (f *hintFrame) hostBusy(i int) int8 {
	h, o := &f.host, f.opts
	cpu, job := hintAt(h.cpu, i), hintAt(h.job, i)
	cores := hintAt(h.cores, i)
	if math.IsNaN(cpu) && math.IsNaN(job) && !(cores > 0) {
		return -1
	}
	if cpu >= o.HostBusyCPU || job >= o.JobBusyCPU || (cores > 0 && hintAt(h.busyCores, i) >= 2) {
		return 1
	}
	return 0
}

// hostSingle: one core at PeggedCore or more while at least three in four
// cores are at IdleCore or less (1); not so (0); no per-core data (-1).
func (f *hintFrame) hostSingle(i int) int8 {
	h := &f.host
	n := hintAt(h.cores, i)
	if !(n > 0) {
		return -1
	}
	if hintAt(h.topCore, i) >= f.opts.PeggedCore && hintAt(h.idleCores, i) >= 0.75*n {
		return 1
	}
	return 0
}

// hostIOHigh: iowait at IOWait % or more, or at two cores' worth or more
// where the core count is known (1); lower (0); unknown (-1).
func (f *hintFrame) hostIOHigh(i int) int8 {
	w := hintAt(f.host.iowait, i)
	if math.IsNaN(w) {
		return -1
	}
	if n := hintAt(f.host.cores, i); n > 0 && w*n/100 >= 2 {
		return 1
	}
	if w >= f.opts.IOWait {
		return 1
	}
	return 0
}
