package report

import (
	"math"
	"sort"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// repSeries is one series over the report, each value with the time it
// stands for. A value stands for the interval that ends at it (NVML's
// utilisation and every counter-derived rate are means over the time since
// the previous tick). A pause of more than twice the sampling step is a gap
// and counts for nothing, neither busy nor idle; the value after it, like
// the very first, stands for one step.
//
// Worked example at a 1 s interval: values at 0, 1, 2.5 and 10 s stand for
// 1, 1, 1.5 and 1 s; the 6.5 s between 2.5 and 9 s are a gap.
//
// Where the store has dropped raw samples (a live session longer than its
// raw tier), Each yields one bucket mean per bucket at the bucket's start;
// such a value stands for the bucket's width after it.
type repSeries struct {
	at []int64
	v  []float64
	w  []int64 // nanoseconds each value stands for; 0 for a gap (NaN)
}

// repLoad reads key from `from` to `to` into r, reusing its slices, and
// returns it. step is the sampling interval.
func repLoad(r repSeries, s *timeline.Store, key timeline.Key, from, to time.Time, step int64) repSeries {
	r.at, r.v, r.w = r.at[:0], r.v[:0], r.w[:0]
	s.EachAt(key, from, to, func(at int64, v float64) bool {
		r.at = append(r.at, at)
		r.v = append(r.v, v)
		r.w = append(r.w, 0)
		return true
	})
	r.weigh(s.OldestRaw().UnixNano(), step)
	return r
}

// weigh sets the time each value that is a number stands for (repSeries),
// from the times alone: rawFrom is where the raw samples start.
func (r repSeries) weigh(rawFrom, step int64) {
	bucket := repBucketWidth(r.at, rawFrom)
	for i, at := range r.at {
		if math.IsNaN(r.v[i]) {
			continue
		}
		if at < rawFrom {
			w := bucket
			if i+1 < len(r.at) {
				w = min(w, r.at[i+1]-at)
			}
			r.w[i] = w
			continue
		}
		w := step
		if i > 0 && r.at[i-1] >= rawFrom && at-r.at[i-1] <= 2*step {
			w = at - r.at[i-1]
		}
		r.w[i] = w
	}
}

// repGrid is the times every series of a store has from `from` to `to`
// (Each reads them from the same tier and raw samples, whatever the
// series), each with the time a number there stands for, in v in seconds:
// what a mean over the whole report needs besides the values.
func repGrid(s *timeline.Store, from, to time.Time, step int64) repSeries {
	var g repSeries
	keys := s.Keys()
	if len(keys) == 0 {
		return g
	}
	s.EachAt(keys[0], from, to, func(at int64, _ float64) bool {
		g.at = append(g.at, at)
		g.v = append(g.v, 0) // a number everywhere: every time weighed
		g.w = append(g.w, 0)
		return true
	})
	g.weigh(s.OldestRaw().UnixNano(), step)
	for i, w := range g.w {
		g.v[i] = time.Duration(w).Seconds() // once, not for every series (repWhole)
	}
	return g
}

// repWhole is the time-weighted mean and the integral over time of key
// from `from` to `to`, as repSeries.mean and integral work them out, read
// on grid (repGrid) without keeping the values; ok is false where the
// series does not have the grid's times (then load it).
func repWhole(s *timeline.Store, key timeline.Key, from, to time.Time, grid repSeries) (mean, integral float64, ok bool) {
	if !s.Has(key) {
		return math.NaN(), math.NaN(), true
	}
	var total int64
	var sum, isum float64
	have := false
	i := 0
	s.EachAt(key, from, to, func(at int64, v float64) bool {
		if i >= len(grid.at) || grid.at[i] != at {
			i = -1
			return false
		}
		if w := grid.w[i]; !math.IsNaN(v) && w > 0 {
			total += w
			sum += v * float64(w)
			isum += v * grid.v[i]
			have = true
		}
		i++
		return true
	})
	if i != len(grid.at) {
		return 0, 0, false
	}
	mean, integral = math.NaN(), math.NaN()
	if total > 0 {
		mean = sum / float64(total)
	}
	if have {
		integral = isum
	}
	return mean, integral, true
}

// repBucketWidth estimates the width of the buckets Each read before the raw
// samples: the smallest spacing between them (buckets of one tier sit on
// multiples of their width), or the spacing to the first raw sample when
// there is a single bucket.
func repBucketWidth(at []int64, rawFrom int64) int64 {
	width := int64(math.MaxInt64)
	for i := 1; i < len(at) && at[i-1] < rawFrom; i++ {
		if d := at[i] - at[i-1]; d > 0 && at[i] < rawFrom {
			width = min(width, d)
		}
	}
	if width == math.MaxInt64 && len(at) > 1 && at[0] < rawFrom {
		width = at[1] - at[0]
	}
	if width == math.MaxInt64 {
		width = int64(timeline.FinestBucket) // no spacing to go by: the finest tier's
	}
	return width
}

// ReportStats summarises a series over time: its time-weighted mean, the
// 10th, 50th, 90th and 95th percentiles (nearest rank, each value weighted
// by the time it stands for) and its maximum. Every field is NaN (null in
// JSON) when the series has no values. P10 and P90 are the tails `gputop
// diff` compares: the low tail says how far a GPU drops, not how it peaks.
type ReportStats struct {
	Mean Number `json:"mean"`
	P10  Number `json:"p10"`
	P50  Number `json:"p50"`
	P90  Number `json:"p90"`
	P95  Number `json:"p95"`
	Max  Number `json:"max"`
}

// repNaNStats is the summary of nothing.
var repNaNStats = ReportStats{Number(math.NaN()), Number(math.NaN()), Number(math.NaN()), Number(math.NaN()),
	Number(math.NaN()), Number(math.NaN())}

// stats summarises r's values with a weight, sorting them in b.sorted: a
// worker sorts each series of a day in the same memory (2.8 MB for 86,400
// values), where a copy and its radix sort's were made for each.
func (b *repBuilder) stats(r repSeries) ReportStats {
	n := len(r.v)
	if cap(b.sorted) < 2*n {
		b.sorted = make([]repWeighted, 2*n)
	}
	vals := b.sorted[:0]
	var total int64
	var sum float64
	for i := range n {
		if r.w[i] > 0 {
			vals = append(vals, repWeighted{r.v[i], r.w[i]})
			total += r.w[i]
			sum += r.v[i] * float64(r.w[i])
		}
	}
	if total == 0 {
		return repNaNStats
	}
	// Values that tie give the same rank whatever their order (sortByValue).
	sortByValue(vals, b.sorted[len(vals):cap(b.sorted)])
	rank := func(p float64) Number {
		need := p * float64(total)
		var acc int64
		for _, x := range vals {
			acc += x.w
			if float64(acc) >= need {
				return Number(x.v)
			}
		}
		return Number(vals[len(vals)-1].v)
	}
	return ReportStats{Mean: Number(sum / float64(total)), P10: rank(0.1), P50: rank(0.5), P90: rank(0.9), P95: rank(0.95),
		Max: Number(vals[len(vals)-1].v)}
}

// mean is the time-weighted mean of values i in [lo, hi), NaN if none.
func (r repSeries) mean(lo, hi int) float64 {
	var total int64
	var sum float64
	for i := lo; i < hi; i++ {
		if r.w[i] > 0 {
			total += r.w[i]
			sum += r.v[i] * float64(r.w[i])
		}
	}
	if total == 0 {
		return math.NaN()
	}
	return sum / float64(total)
}

// shareBelow is the share of the time with values that has values below
// limit: a GPU's idle fraction. NaN if no values.
func (r repSeries) shareBelow(limit float64) float64 {
	var total, below int64
	for i, v := range r.v {
		total += r.w[i]
		if r.w[i] > 0 && v < limit {
			below += r.w[i]
		}
	}
	if total == 0 {
		return math.NaN()
	}
	return float64(below) / float64(total)
}

// integral is Σ value × seconds it stands for: joules from watts. With power
// from the energy counter (samples 5 s or more apart) this is exactly the
// counter's difference over the run; from the driver's one-second average
// at 1 s it came within 0.01-0.09 % of it on a real H100 (docs/real-gpu.md).
// NaN if no values.
func (r repSeries) integral() float64 {
	var sum float64
	have := false
	for i, v := range r.v {
		if r.w[i] > 0 {
			sum += v * time.Duration(r.w[i]).Seconds()
			have = true
		}
	}
	if !have {
		return math.NaN()
	}
	return sum
}

// span returns the index range of values that belong to [start, end]: those
// after start and at or before end (each value describes the time up to it),
// and for the report's first phase also one exactly at start.
func (r repSeries) span(start, end int64, first bool) (int, int) {
	lo := sort.Search(len(r.at), func(i int) bool { return r.at[i] > start || (first && r.at[i] == start) })
	hi := sort.Search(len(r.at), func(i int) bool { return r.at[i] > end })
	return lo, hi
}

// max is the largest value of a series over the report, NaN if none.
func (b *repBuilder) max(name, dev string) Number {
	out := math.NaN()
	b.s.EachAt(timeline.Key{Name: name, Device: dev}, b.from, b.to, func(_ int64, v float64) bool {
		if !math.IsNaN(v) && (math.IsNaN(out) || v > out) {
			out = v
		}
		return true
	})
	return Number(out)
}

// repGaps lists the pauses in sampling: stretches between two samples
// further apart than twice the step (or, before the raw samples, twice the
// bucket width), as [from, to] pairs of sample times.
func repGaps(r repSeries, rawFrom, step int64) [][2]int64 {
	bucket := repBucketWidth(r.at, rawFrom)
	var out [][2]int64
	for i := 1; i < len(r.at); i++ {
		limit := 2 * step
		if r.at[i-1] < rawFrom {
			limit = 2 * bucket
		}
		if r.at[i]-r.at[i-1] > limit {
			out = append(out, [2]int64{r.at[i-1], r.at[i]})
		}
	}
	return out
}
