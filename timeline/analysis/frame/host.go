package frame

import (
	"math"
)

// Host is one host's columns; none (Has false) where never reported
// (before the view's end). A session of several hosts has one for each: each GPU is
// judged against its own host's CPU, never another's.
type Host struct {
	// Name is the host's name in a session of several ("" for the one
	// host of a session, or where a GPU names none).
	Name string

	CPU, IOWait, Job, MemUsed, MemTotal, Swap, DiskRead, DiskWrite Floats
	// Per-core summaries: the busiest core, how many cores are at
	// BusyCore or above and at IdleCore or below, and how many reported.
	TopCore, BusyCores, IdleCores, Cores Floats
	// Per column: 1 if the host is busy feeding the GPUs, 0 if not, -1
	// unknown; likewise for "one core pegged, the rest idle" and for high
	// iowait.
	Busy, Single, IOHigh Col[int8]

	// Seen is when each series was first seen (a column; -1 never), for
	// views: the Engine's frame only.
	Seen [HostSeries]int
}

// The host's series, for Host.Seen.
const (
	HostCPU = iota
	HostIOWait
	HostJob
	HostMemUsed
	HostMemTotal
	HostSwap
	HostDiskRead
	HostDiskWrite
	HostCores
	HostSeries
)

// Series returns the host's series k, HostCPU to HostDiskWrite.
func (h *Host) Series(k int) *Floats {
	return [...]*Floats{&h.CPU, &h.IOWait, &h.Job, &h.MemUsed, &h.MemTotal, &h.Swap, &h.DiskRead, &h.DiskWrite}[k]
}

// AllSeries is every series of the host's columns.
func (h *Host) AllSeries() []Paged {
	return []Paged{&h.CPU, &h.IOWait, &h.Job, &h.MemUsed, &h.MemTotal, &h.Swap, &h.DiskRead, &h.DiskWrite,
		&h.TopCore, &h.BusyCores, &h.IdleCores, &h.Cores, &h.Busy, &h.Single, &h.IOHigh}
}

// NewHost is the columns of host name, none seen yet, with n columns of
// flags unknown (the columns before it was first seen).
func NewHost(name string, n int) Host {
	h := Host{Name: name}
	for k := range h.Seen {
		h.Seen[k] = -1
	}
	h.Busy, h.Single, h.IOHigh = NewCol[int8](n, -1), NewCol[int8](n, -1), NewCol[int8](n, -1)
	return h
}

// HostOf is g's host's columns: an empty host, every flag unknown, where
// the frame has none for it.
func (f *Frame) HostOf(g *GPU) *Host {
	if g.Host >= 0 && g.Host < len(f.Hosts) {
		return &f.Hosts[g.Host]
	}
	h := NewHost("", f.N) // nothing known of it, as long as the frame
	return &h
}

// view is the host cut at n columns (see Frame.View).
func (h *Host) view(n int) Host {
	v := Host{Name: h.Name}
	for k := range HostCores {
		if h.Seen[k] >= 0 && h.Seen[k] < n {
			*v.Series(k) = h.Series(k).Cut(n)
		}
	}
	if h.Seen[HostCores] >= 0 && h.Seen[HostCores] < n {
		v.TopCore, v.BusyCores, v.IdleCores, v.Cores = h.TopCore.Cut(n), h.BusyCores.Cut(n), h.IdleCores.Cut(n), h.Cores.Cut(n)
	}
	v.Busy, v.Single, v.IOHigh = h.Busy.Cut(n), h.Single.Cut(n), h.IOHigh.Cut(n)
	return v
}

// JudgeHosts sets every host's flags of column i (see hostBusy and the
// others).
func (f *Frame) JudgeHosts(i int) {
	for k := range f.Hosts {
		h := &f.Hosts[k]
		h.Busy.Set(i, f.hostBusy(h, i))
		h.Single.Set(i, f.hostSingle(h, i))
		h.IOHigh.Set(i, f.hostIOHigh(h, i))
	}
}

// hostBusy: the host's CPU at HostBusyCPU or more, two or more cores at
// BusyCore or more, or the job at JobBusyCPU or more (1), none of them
// (0), or no CPU data (-1).
func (f *Frame) hostBusy(h *Host, i int) int8 {
	o := f.Opts
	cpu, job, cores := At(&h.CPU, i), At(&h.Job, i), At(&h.Cores, i)
	return flag(!math.IsNaN(cpu) || !math.IsNaN(job) || cores > 0,
		cpu >= o.HostBusyCPU || job >= o.JobBusyCPU || (cores > 0 && At(&h.BusyCores, i) >= 2))
}

// hostSingle: one core at PeggedCore or more while at least three in four
// cores are at IdleCore or less (1); not so (0); no per-core data (-1).
func (f *Frame) hostSingle(h *Host, i int) int8 {
	n := At(&h.Cores, i)
	return flag(n > 0, At(&h.TopCore, i) >= f.Opts.PeggedCore && At(&h.IdleCores, i) >= 0.75*n)
}

// hostIOHigh: iowait at IOWait % or more, or at two cores' worth or more
// where the core count is known (1); lower (0); unknown (-1).
func (f *Frame) hostIOHigh(h *Host, i int) int8 {
	w, n := At(&h.IOWait, i), At(&h.Cores, i)
	return flag(!math.IsNaN(w), (n > 0 && w*n/100 >= 2) || w >= f.Opts.IOWait)
}

// flag is a host flag's column: 1 if yes, 0 if not, -1 if not known.
func flag(known, yes bool) int8 {
	switch {
	case !known:
		return -1
	case yes:
		return 1
	}
	return 0
}
