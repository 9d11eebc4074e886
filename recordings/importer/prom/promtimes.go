package prom

import (
	"cmp"
	"slices"
)

// pointTimes are a series' times (Unix ms) as runs of evenly spaced ones.
// Prometheus answers query_range on a grid (start + k × step), so a day of
// a series is one run, or a few around its gaps: 24 bytes where a slice of
// times would take 46 KB, which is most of an import's memory at 64 GPUs.
type pointTimes struct {
	runs []timeRun
	n    int
}

// timeRun is the times start + i × step for i < n.
type timeRun struct {
	start, step int64
	n           int
}

func (r *timeRun) last() int64 { return r.start + int64(r.n-1)*r.step }

// add appends t.
func (p *pointTimes) add(t int64) {
	p.n++
	if k := len(p.runs); k > 0 {
		r := &p.runs[k-1]
		switch {
		case r.n == 1 && t > r.start:
			r.step, r.n = t-r.start, 2
			return
		case r.n > 1 && t == r.start+int64(r.n)*r.step:
			r.n++
			return
		}
	}
	p.runs = append(p.runs, timeRun{start: t, n: 1})
}

// appendTimes appends q's times after p's.
func (p *pointTimes) appendTimes(q *pointTimes) {
	for _, r := range q.runs {
		head := min(r.n, 2)
		for i := range head {
			p.add(r.start + int64(i)*r.step)
		}
		// The last run now has r's step: the rest extend it.
		p.runs[len(p.runs)-1].n += r.n - head
		p.n += r.n - head
	}
}

// increasing says whether every time is after the one before.
func (p *pointTimes) increasing() bool {
	for i := range p.runs {
		if (p.runs[i].n > 1 && p.runs[i].step <= 0) || (i > 0 && p.runs[i].start <= p.runs[i-1].last()) {
			return false // a run that does not rise, or starts by the last one's end
		}
	}
	return true
}

// all lists the times.
func (p *pointTimes) all() []int64 {
	out := make([]int64, 0, p.n)
	for _, r := range p.runs {
		for i := range r.n {
			out = append(out, r.start+int64(i)*r.step)
		}
	}
	return out
}

// timeCursor walks a pointTimes: i is the point's number (its value's
// index), run and off where it is among the runs, vrun the run of its
// value among pointVals' runs.
type timeCursor struct{ i, run, off, vrun int }

// at is the time of the cursor's point; ok is false past the last.
func (p *pointTimes) at(c *timeCursor) (int64, bool) {
	if c.run >= len(p.runs) {
		return 0, false
	}
	r := &p.runs[c.run]
	return r.start + int64(c.off)*r.step, true
}

// step moves the cursor to the next point.
func (p *pointTimes) step(c *timeCursor) {
	c.i++
	c.off++
	if c.off == p.runs[c.run].n {
		c.run++
		c.off = 0
	}
}

// sortedTimes puts times and vals in time order, keeps the first point of
// each time, and returns them as pointTimes with the points dropped.
func sortedTimes(times []int64, vals []float64) (pointTimes, pointVals, int) {
	idx := make([]int, len(times))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(times[a], times[b]) })
	var out pointTimes
	nv := pointVals{hint: len(vals)}
	dropped := 0
	for k, j := range idx {
		if k > 0 && times[j] == times[idx[k-1]] {
			dropped++
			continue
		}
		out.add(times[j])
		nv.add(vals[j])
	}
	return out, nv, dropped
}
