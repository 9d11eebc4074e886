package prom

import "math"

// pointVals are a series' values, as runs of one value while that is the
// smaller: a GPU's health series (Xid, ECC, PCIe link, retired pages,
// remapped rows) and its limits, totals and clocks hold one value for a
// whole day, and a float64 per step of each was 56 of the 121 MB of values
// a day of 64 GPUs held. A series that changes at more than every other
// point becomes a slice of its values, as every series was before.
type pointVals struct {
	runs  []valRun  // while dense is nil
	dense []float64 // once runs would be larger
	n     int
	// hint is how many points the series is expected to have (its JSON's
	// count): the slice, if it comes to one, is allocated once at it.
	hint int
}

// valRun is value v for the points up to end (the index after its last).
type valRun struct {
	v   float64
	end int
}

// minDenseRuns is how many runs a series may have before its size decides:
// a few runs cost less than a slice at any length.
const minDenseRuns = 16

// add appends v. Values are the same by their bits: -0 and 0 are not one
// run, so each comes back as it was read.
func (p *pointVals) add(v float64) {
	p.n++
	if p.dense != nil {
		p.dense = append(p.dense, v)
		return
	}
	if k := len(p.runs); k > 0 && math.Float64bits(p.runs[k-1].v) == math.Float64bits(v) {
		p.runs[k-1].end = p.n
		return
	}
	// A run takes two float64s' room: past one run per two points, the
	// slice is the smaller.
	if len(p.runs) >= minDenseRuns && 2*len(p.runs) >= p.n {
		p.dense = p.all(max(p.hint, p.n))
		p.runs = nil
		p.dense = append(p.dense, v)
		return
	}
	p.runs = append(p.runs, valRun{v, p.n})
}

// appendVals appends q's values after p's.
func (p *pointVals) appendVals(q *pointVals) {
	if p.n == 0 {
		*p = *q
		return
	}
	p.hint = max(p.hint, p.n+q.n)
	q.each(func(v float64, n int) {
		for range n {
			p.add(v)
		}
	})
}

// all lists the values, in a slice of capacity at least size.
func (p *pointVals) all(size int) []float64 {
	out := make([]float64, 0, max(size, p.n))
	p.each(func(v float64, n int) {
		for range n {
			out = append(out, v)
		}
	})
	return out
}

// each calls f with each run of one value and its length, in order (a
// slice's values one by one).
func (p *pointVals) each(f func(v float64, n int)) {
	if p.dense != nil {
		for _, v := range p.dense {
			f(v, 1)
		}
		return
	}
	from := 0
	for _, r := range p.runs {
		f(r.v, r.end-from)
		from = r.end
	}
}

// first is the first value; p must have one.
func (p *pointVals) first() float64 {
	if p.dense != nil {
		return p.dense[0]
	}
	return p.runs[0].v
}

// at is the value of the cursor's point, c.i: a cursor moves forward only,
// so finding its run is constant time on the whole.
func (p *pointVals) at(c *timeCursor) float64 {
	if p.dense != nil {
		return p.dense[c.i]
	}
	for p.runs[c.vrun].end <= c.i {
		c.vrun++
	}
	return p.runs[c.vrun].v
}

// mark sets to NaN each run (or point) bad says is out and says how many
// points it was: the parser leaves no NaN, so a NaN is one marked.
func (p *pointVals) mark(bad func(v float64, n int) bool) int {
	marked := 0
	if p.dense != nil {
		for i, v := range p.dense {
			if bad(v, 1) {
				p.dense[i] = math.NaN()
				marked++
			}
		}
		return marked
	}
	from := 0
	for k := range p.runs {
		r := &p.runs[k]
		if bad(r.v, r.end-from) {
			r.v = math.NaN()
			marked += r.end - from
		}
		from = r.end
	}
	return marked
}

// dropMarked is the points of times and p that mark left as they were.
func (p *pointVals) dropMarked(times *pointTimes) (pointTimes, pointVals) {
	all := times.all()
	var kt pointTimes
	kv := pointVals{hint: p.n}
	i := 0
	p.each(func(v float64, n int) {
		for range n {
			if !math.IsNaN(v) {
				kt.add(all[i])
				kv.add(v)
			}
			i++
		}
	})
	return kt, kv
}
