package phases

import (
	"container/heap"

	"github.com/gputop-dev/gputop/timeline"
)

// Run is a stretch of windows of one kind, in Unix nanoseconds.
type Run struct {
	Start, End int64
	Kind       timeline.PhaseKind
}

// Absorb merges every run shorter than minLen into its neighbours,
// shortest first (the earliest among equals), until none is left or one run
// remains. A short run between two runs of one kind joins them into one
// (busy, a 2 s dip, busy: one busy phase); otherwise the longer neighbour
// takes it (the earlier on a tie).
//
// Shortest first matters for a sawtooth: merging in time order would let the
// first tooth decide the kind of the whole stretch. A heap keeps it
// O(n log n), since a day of 5 s windows can start as 17,280 runs.
func Absorb(runs []Run, minLen int64) []Run {
	if len(runs) < 2 {
		return runs
	}
	n := len(runs)
	prev, next := make([]int, n), make([]int, n)
	alive := make([]bool, n)
	h := &phaseRunHeap{}
	for i := range runs {
		prev[i], next[i], alive[i] = i-1, i+1, true
		if runs[i].End-runs[i].Start < minLen {
			*h = append(*h, phaseHeapItem{i, runs[i].Start, runs[i].End - runs[i].Start})
		}
	}
	next[n-1] = -1
	heap.Init(h)
	left := n
	unlink := func(i int) {
		alive[i] = false
		left--
		if prev[i] >= 0 {
			next[prev[i]] = next[i]
		}
		if next[i] >= 0 {
			prev[next[i]] = prev[i]
		}
	}
	for h.Len() > 0 && left > 1 {
		it := heap.Pop(h).(phaseHeapItem)
		i := it.run
		r := runs[i]
		if !alive[i] || r.End-r.Start != it.length || r.Start != it.start {
			continue // merged away, or grown since it was pushed
		}
		l, rt := prev[i], next[i]
		var into int
		switch {
		case l >= 0 && rt >= 0 && runs[l].Kind == runs[rt].Kind:
			runs[l].End = runs[rt].End
			unlink(rt)
			into = l
		case rt < 0 || (l >= 0 && runs[l].End-runs[l].Start >= runs[rt].End-runs[rt].Start):
			runs[l].End = r.End
			into = l
		default:
			runs[rt].Start = r.Start
			into = rt
		}
		unlink(i)
		if d := runs[into].End - runs[into].Start; d < minLen {
			heap.Push(h, phaseHeapItem{into, runs[into].Start, d})
		}
	}
	// The runs left are in order: absorbing unlinks a run, never moves one.
	out := runs[:0]
	for i, r := range runs {
		if alive[i] {
			out = append(out, r)
		}
	}
	return out
}

// phaseHeapItem is a run waiting to be absorbed, with its length when it was
// pushed (a run that has grown since is stale, and skipped).
type phaseHeapItem struct {
	run           int
	start, length int64
}

// phaseRunHeap orders short runs by length, then by time.
type phaseRunHeap []phaseHeapItem

func (h phaseRunHeap) Len() int { return len(h) }
func (h phaseRunHeap) Less(a, b int) bool {
	x, y := h[a], h[b]
	return x.length < y.length || x.length == y.length && x.start < y.start
}
func (h phaseRunHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *phaseRunHeap) Push(x any)   { *h = append(*h, x.(phaseHeapItem)) }
func (h *phaseRunHeap) Pop() any {
	it := (*h)[len(*h)-1]
	*h = (*h)[:len(*h)-1]
	return it
}
