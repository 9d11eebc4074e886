package prom

import (
	"cmp"
	"container/heap"
	"slices"
)

// The samples of an import are made one per time any series has a point.
// Finding the next such time by looking at every series of every GPU took
// 93 s for 1,000 hosts of 16 GPUs whose points lay at their own times
// (16,000 times × 800,000 series). The queue keeps each series under the
// time of its next point instead: a sample takes the series of its time
// and puts each back under its next one, so an import costs its points,
// not its times × its series. Series on one grid (what Prometheus
// answers) all move from one time to the next together: one bucket, and
// no map look-up per point.

// seriesRef is one series of a result: its GPU (in Result.gpus) and its
// index among the GPU's series.
type seriesRef struct{ g, m int32 }

func compareRefs(a, b seriesRef) int { return cmp.Or(cmp.Compare(a.g, b.g), cmp.Compare(a.m, b.m)) }

// timeQueue holds every series that has points left, under the time of
// its next one.
type timeQueue struct {
	bucket  map[int64]int // time → its index in refs
	refs    [][]seriesRef // the series waiting at each time
	times   timeHeap      // the times waiting, earliest first
	free    [][]seriesRef // emptied buckets, for reuse
	spare   []int         // indexes of refs free for a new time
	lastAt  int64         // the time last put to, and its bucket
	lastIdx int
}

func (q *timeQueue) reset() {
	clear(q.bucket)
	if q.bucket == nil {
		q.bucket = map[int64]int{}
	}
	q.refs, q.times, q.free, q.spare, q.lastIdx = q.refs[:0], q.times[:0], nil, nil, -1
}

// put adds series r under time t.
func (q *timeQueue) put(t int64, r seriesRef) {
	if q.lastIdx >= 0 && t == q.lastAt {
		q.refs[q.lastIdx] = append(q.refs[q.lastIdx], r)
		return
	}
	i, ok := q.bucket[t]
	if !ok {
		var b []seriesRef
		if n := len(q.free); n > 0 {
			b, q.free = q.free[n-1][:0], q.free[:n-1]
		}
		if n := len(q.spare); n > 0 {
			i, q.spare = q.spare[n-1], q.spare[:n-1]
			q.refs[i] = b
		} else {
			i = len(q.refs)
			q.refs = append(q.refs, b)
		}
		q.bucket[t] = i
		heap.Push(&q.times, t)
	}
	q.refs[i] = append(q.refs[i], r)
	q.lastAt, q.lastIdx = t, i
}

// take removes the earliest time and returns it with its series, in GPU
// and series order; give the slice back with done once read.
func (q *timeQueue) take() (int64, []seriesRef, bool) {
	if len(q.times) == 0 {
		return 0, nil, false
	}
	t := heap.Pop(&q.times).(int64)
	i := q.bucket[t]
	delete(q.bucket, t)
	refs := q.refs[i]
	q.refs[i] = nil
	q.spare = append(q.spare, i)
	if q.lastIdx == i {
		q.lastIdx = -1
	}
	if !slices.IsSortedFunc(refs, compareRefs) {
		slices.SortFunc(refs, compareRefs)
	}
	return t, refs, true
}

// done gives back a slice take returned.
func (q *timeQueue) done(refs []seriesRef) {
	q.free = append(q.free, refs[:0])
}

// timeHeap is a min-heap of times.
type timeHeap []int64

func (h timeHeap) Len() int           { return len(h) }
func (h timeHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h timeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timeHeap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *timeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
