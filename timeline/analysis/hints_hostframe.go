package analysis

import (
	"math"
)

// hintHost is the host's columns; nil where never reported (before the
// view's end).
type hintHost struct {
	cpu, iowait, job, memUsed, memTotal, swap, diskRead, diskWrite []float32
	// Per-core summaries: the busiest core, how many cores are at
	// BusyCore or above and at IdleCore or below, and how many reported.
	topCore, busyCores, idleCores, cores []float32
	// Per column: 1 if the host is busy feeding the GPUs, 0 if not, -1
	// unknown; likewise for "one core pegged, the rest idle" and for high
	// iowait.
	busy, single, ioHigh []int8

	// seen is when each series was first seen (a column; -1 never), for
	// views: the Engine's frame only.
	seen [hostSeries]int
}

// The host's series, for hintHost.seen.
const (
	hCPU = iota
	hIOWait
	hJob
	hMemUsed
	hMemTotal
	hSwap
	hDiskRead
	hDiskWrite
	hCores
	hostSeries
)

func (h *hintHost) series(k int) *[]float32 {
	switch k {
	case hCPU:
		return &h.cpu
	case hIOWait:
		return &h.iowait
	case hJob:
		return &h.job
	case hMemUsed:
		return &h.memUsed
	case hMemTotal:
		return &h.memTotal
	case hSwap:
		return &h.swap
	case hDiskRead:
		return &h.diskRead
	case hDiskWrite:
		return &h.diskWrite
	}
	return nil
}

// view is the host cut at n columns (see hintFrame.view).
func (h *hintHost) view(n int) hintHost {
	var v hintHost
	for k := range hCores {
		if s := *h.series(k); h.seen[k] >= 0 && h.seen[k] < n {
			*v.series(k) = s[:n]
		}
	}
	if h.seen[hCores] >= 0 && h.seen[hCores] < n {
		v.topCore, v.busyCores, v.idleCores, v.cores = h.topCore[:n], h.busyCores[:n], h.idleCores[:n], h.cores[:n]
	}
	v.busy, v.single, v.ioHigh = h.busy[:n], h.single[:n], h.ioHigh[:n]
	return v
}

// judge sets the host's flags of column i (see hostBusy and the others).
func (f *hintFrame) judgeHost(i int) {
	h := &f.host
	h.busy[i], h.single[i], h.ioHigh[i] = f.hostBusy(i), f.hostSingle(i), f.hostIOHigh(i)
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
