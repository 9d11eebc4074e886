package timeline

import (
	"cmp"
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

// processRef is one process in a list as the store keeps it: which
// process it is (its GPU, PID and start, for ProcessSpans), the rest of
// what does not change from list to list by number (processInfo), and its
// figures. 40 bytes, where a Process is 120.
type processRef struct {
	id, info            int32
	mem, util, cpu, rss float64 // NaN if unknown
}

// processInfo is what a process is, its figures aside: the key of a
// Store's processInfos.
type processInfo struct {
	gpu, pid      int
	user, command string
	inJob         bool
	started       int64
	// workload is by value: a file's reader makes a Workload for each
	// list it reads.
	workload    Workload
	hasWorkload bool
}

// processRefs numbers the processes of a list as it is added: the same
// (GPU, PID, start) keeps its number across lists, and so does the same
// description.
func (s *Store) processRefs(procs []Process) []processRef {
	if s.processIDs == nil {
		s.processIDs, s.processInfoOf = map[processID]int32{}, map[processInfo]int32{}
	}
	refs := make([]processRef, len(procs))
	for i := range procs {
		p := &procs[i]
		id := processID{gpu: p.GPU, pid: p.PID}
		if !p.Started.IsZero() {
			id.started = p.Started.UnixNano()
		}
		n, ok := s.processIDs[id]
		if !ok {
			n = int32(len(s.processIDs))
			s.processIDs[id] = n
		}
		key := processInfo{gpu: p.GPU, pid: p.PID, user: p.User, command: p.Command, inJob: p.InJob,
			started: id.started, hasWorkload: p.Workload != nil}
		if p.Workload != nil {
			key.workload = *p.Workload
		}
		info, ok := s.processInfoOf[key]
		if !ok {
			info = int32(len(s.processInfos))
			s.processInfoOf[key] = info
			desc := *p
			desc.GPUMem, desc.Util, desc.CPU, desc.RSS = 0, 0, 0, 0
			s.processInfos = append(s.processInfos, desc)
		}
		refs[i] = processRef{id: n, info: info, mem: p.GPUMem, util: p.Util, cpu: p.CPU, rss: p.RSS}
	}
	return refs
}

// process is the Process r keeps.
func (s *Store) process(r *processRef) Process {
	p := s.processInfos[r.info]
	p.GPUMem, p.Util, p.CPU, p.RSS = r.mem, r.util, r.cpu, r.rss
	return p
}

// ProcessSpans lists every process in the process lists of [from, to] (and
// the list current at from), in order of GPU, then PID, then start.
func (s *Store) ProcessSpans(from, to time.Time) []ProcessSpan {
	lo, hi := s.processRange(from, to)
	if lo >= hi {
		return nil
	}
	type span struct {
		first, last int // list indexes
		at          int // the process's index in the last list
		peak        float64
	}
	// Process numbers grow as processes appear, so the window's fit in a
	// slice from the smallest.
	minID, maxID := int32(math.MaxInt32), int32(-1)
	for _, l := range s.processes[lo:hi] {
		for _, r := range l.refs {
			minID, maxID = min(minID, r.id), max(maxID, r.id)
		}
	}
	if maxID < 0 {
		return []ProcessSpan{}
	}
	pos := make([]int32, maxID-minID+1) // index+1 into spans; 0 is none
	var spans []span
	for li := lo; li < hi; li++ {
		for i, r := range s.processes[li].refs {
			k := pos[r.id-minID] - 1
			if k < 0 {
				k = int32(len(spans))
				pos[r.id-minID] = k + 1
				spans = append(spans, span{first: li, peak: math.NaN()})
			}
			sp := &spans[k]
			sp.last, sp.at = li, i
			if r.mem == r.mem && (sp.peak != sp.peak || r.mem > sp.peak) { // NaN is unknown
				sp.peak = r.mem
			}
		}
	}
	out := make([]ProcessSpan, len(spans))
	for i, sp := range spans {
		out[i] = ProcessSpan{
			Process:    s.process(&s.processes[sp.last].refs[sp.at]),
			FirstSeen:  time.Unix(0, s.processes[sp.first].at),
			LastSeen:   time.Unix(0, s.processes[sp.last].at),
			PeakGPUMem: sp.peak,
			Running:    sp.last == hi-1,
		}
	}
	slices.SortStableFunc(out, func(a, b ProcessSpan) int {
		// Compared, not subtracted: a file's PIDs are any varint, and a
		// difference that overflows would order them at random.
		if a.GPU != b.GPU {
			return cmp.Compare(a.GPU, b.GPU)
		}
		if a.PID != b.PID {
			return cmp.Compare(a.PID, b.PID)
		}
		return a.FirstSeen.Compare(b.FirstSeen)
	})
	return out
}
