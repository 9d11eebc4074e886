package timeline

import (
	"math"
	"slices"
	"sort"
	"time"
)

// ProcessSpan is one process over a stretch of time, from the process lists
// the slower tier took in it: when it was first and last seen holding its
// GPU, its peak GPU memory, and its newest reading.
type ProcessSpan struct {
	// Process is the newest reading of it in the stretch.
	Process
	// FirstSeen and LastSeen are the times of the first and the last
	// process list that held it (the first may be before the stretch: the
	// list current at its start).
	FirstSeen, LastSeen time.Time
	// PeakGPUMem is the most GPU memory it held in the stretch; NaN if
	// never known.
	PeakGPUMem float64
	// Running says the newest list of the stretch holds it; false for a
	// process that let go of its GPU (or exited) during the stretch.
	Running bool
}

// Start is when the process started, if the host said, else when it was
// first seen.
func (p *ProcessSpan) Start() time.Time {
	if !p.Started.IsZero() {
		return p.Started
	}
	return p.FirstSeen
}

// processID tells processes apart across lists: a PID is reused, and a
// process on two GPUs is two spans.
type processID struct {
	gpu, pid int
	started  int64
}

// ProcessListsIn is the span of process lists that ProcessSpans(from, to)
// reads: the times of its first and last list (zero when none). Equal
// answers mean equal spans, so a caller can keep the spans until they
// change.
func (s *Store) ProcessListsIn(from, to time.Time) (first, last time.Time) {
	lo, hi := s.processRange(from, to)
	if lo >= hi {
		return time.Time{}, time.Time{}
	}
	return time.Unix(0, s.processes[lo].at), time.Unix(0, s.processes[hi-1].at)
}

// processRange is the lists in [from, to], with the one current at from.
func (s *Store) processRange(from, to time.Time) (lo, hi int) {
	f, t := from.UnixNano(), to.UnixNano()
	hi = sort.Search(len(s.processes), func(i int) bool { return s.processes[i].at > t })
	lo = sort.Search(len(s.processes), func(i int) bool { return s.processes[i].at > f })
	return max(0, lo-1), hi
}

// ProcessSpans lists every process in the process lists of [from, to] (and
// the list current at from), in order of GPU, then PID, then start.
func (s *Store) ProcessSpans(from, to time.Time) []ProcessSpan {
	lo, hi := s.processRange(from, to)
	if lo >= hi {
		return nil
	}
	at := map[processID]int{}
	var out []ProcessSpan
	newest := s.processes[hi-1].at
	for _, list := range s.processes[lo:hi] {
		seen := time.Unix(0, list.at)
		for _, p := range list.procs {
			id := processID{p.GPU, p.PID, p.Started.UnixNano()}
			if p.Started.IsZero() {
				id.started = 0
			}
			i, ok := at[id]
			if !ok {
				at[id] = len(out)
				out = append(out, ProcessSpan{Process: p, FirstSeen: seen, PeakGPUMem: math.NaN()})
				i = len(out) - 1
			}
			sp := &out[i]
			sp.Process, sp.LastSeen = p, seen
			sp.Running = list.at == newest
			if !math.IsNaN(p.GPUMem) && (math.IsNaN(sp.PeakGPUMem) || p.GPUMem > sp.PeakGPUMem) {
				sp.PeakGPUMem = p.GPUMem
			}
		}
	}
	slices.SortStableFunc(out, func(a, b ProcessSpan) int {
		if a.GPU != b.GPU {
			return a.GPU - b.GPU
		}
		if a.PID != b.PID {
			return a.PID - b.PID
		}
		return a.FirstSeen.Compare(b.FirstSeen)
	})
	return out
}
