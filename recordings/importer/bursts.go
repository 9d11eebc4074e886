package importer

import (
	"math"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline/units"
)

// Grouping rows into sampling instants.
//
// A monitor writes one row per GPU per sampling pass. When rows name their
// GPU (an index, a uuid, dmon's gpu, DCGM's entity), a pass ends where a GPU
// comes round again, or where the log's time jumps by half the usual spacing
// between passes (a GPU missing from one pass must not pull the next pass's
// row into it).
//
// When rows do not name their GPU (`--query-gpu=timestamp,power.draw` on an
// 8-GPU host), nvidia-smi still writes each pass as a burst: eight rows a few
// milliseconds apart, then a pause of the whole interval. The GPU is the
// row's place in its burst. Worked example, llama8b at -lms 100:
//
//	00:34:45.155 .160 .163 .166 .168 .170 .172 .174   burst of 8: GPUs 0-7
//	00:34:45.285 .286 .286 .286 .286 .286 .286 .286   next burst, 111 ms later
//
// Sorted, the gaps between rows fall in two groups (mostly 0-5 ms inside
// bursts, 100 ms and more between them); burstShape splits them, and the
// GPU count is the most common burst size. nvidia-smi sometimes stalls
// mid-pass (0.9 s between two rows of one pass in llama8b), which splits a
// burst in two by time. So rows are numbered by their order modulo the GPU
// count, as the README of those logs says, and the numbering only restarts
// at a clean burst of exactly the GPU count after an incomplete one (a row
// lost from a pass).

// instant is rows[lo:hi] of a table: one sampling instant.
type instant struct{ lo, hi int }

// Bounds of burst detection.
const (
	// maxBurstGap bounds the typical gap between two rows of one pass:
	// nvidia-smi reads a GPU in well under this.
	maxBurstGap = 50 * time.Millisecond
	// minBurstRatio is how much wider the typical gap between bursts must
	// be than the typical gap inside them.
	minBurstRatio = 5
	// maxBurstGPUs bounds the GPU count inferred from burst sizes.
	maxBurstGPUs = 64
)

// group groups the table's rows into instants, assigning GPUs by burst
// position where the rows do not name them.
func (t *table) group() []instant {
	switch {
	case t.keyed:
		return t.groupKeyed()
	case t.timed:
		if n, gap, ok := t.burstShape(); ok && n > 1 {
			return t.groupBursts(n, gap)
		}
	default:
		t.note("no timestamp and no GPU index column: each row is read as one sample of GPU 0")
	}
	out := make([]instant, len(t.rows))
	for i := range t.rows {
		t.rows[i].gpu = 0
		out[i] = instant{i, i + 1}
	}
	return out
}

// groupKeyed ends an instant where a GPU comes round again or the run
// changes, and, in a timed log, where the time jumps by half the median
// spacing of instants.
func (t *table) groupKeyed() []instant {
	out := t.splitKeyed(math.MaxInt64)
	if t.timed && len(out) > 2 {
		starts := make([]int64, len(out))
		for i, in := range out {
			starts[i] = t.rows[in.lo].at
		}
		if m := MedianGap(starts); m > 0 {
			out = t.splitKeyed(m / 2)
		}
	}
	return out
}

func (t *table) splitKeyed(maxGap int64) []instant {
	maxGPU := 0
	for i := range t.rows {
		maxGPU = max(maxGPU, int(t.rows[i].gpu))
	}
	// seenIn[g] is 1 + the number of the instant GPU g last appeared in.
	seenIn := make([]int, maxGPU+1)
	var out []instant
	lo := 0
	for i := range t.rows {
		r := &t.rows[i]
		if i > lo {
			prev := &t.rows[i-1]
			if seenIn[r.gpu] == len(out)+1 || r.run != prev.run || (t.timed && r.at-prev.at >= maxGap) {
				out = append(out, instant{lo, i})
				lo = i
			}
		}
		seenIn[r.gpu] = len(out) + 1
	}
	if lo < len(t.rows) {
		out = append(out, instant{lo, len(t.rows)})
	}
	return out
}

// burstShape finds the gap that separates bursts and the GPU count, the most
// common burst size; ok is false when the rows are not in bursts.
//
// The gaps between consecutive rows, on a log scale, are split in two
// classes with the least spread within each (Otsu's method): inside bursts
// and between them. A few stalled passes put odd gaps in either class
// without moving the split. The rows are in bursts when the typical gap
// between bursts is minBurstRatio times the typical gap inside them, and
// that is under maxBurstGap.
func (t *table) burstShape() (gpus int, gap int64, ok bool) {
	const floor = int64(500 * time.Microsecond) // timestamps have ms resolution
	gaps := make([]int64, 0, len(t.rows))
	for i := 1; i < len(t.rows); i++ {
		if d := t.rows[i].at - t.rows[i-1].at; t.rows[i].run == t.rows[i-1].run && d >= 0 {
			gaps = append(gaps, max(d, floor))
		}
	}
	if len(gaps) < 3 {
		return 0, 0, false
	}
	slices.Sort(gaps)
	k := otsuSplit(gaps)
	if k < 0 {
		return 0, 0, false
	}
	inside, between := gaps[k/2], gaps[k+1+(len(gaps)-k-1)/2]
	if inside > int64(maxBurstGap) || float64(between) < minBurstRatio*float64(inside) {
		return 0, 0, false
	}
	gap = int64(math.Sqrt(float64(inside) * float64(between)))
	sizes := map[int]int{}
	for _, s := range t.segments(gap) {
		sizes[s.hi-s.lo]++
	}
	for size, count := range sizes {
		if count > sizes[gpus] || (count == sizes[gpus] && size < gpus) {
			gpus = size
		}
	}
	if gpus > maxBurstGPUs || 2*gpus*sizes[gpus] < len(t.rows) {
		return 0, 0, false
	}
	return gpus, gap, true
}

// otsuSplit returns the k that best splits sorted gaps into gaps[:k+1] and
// gaps[k+1:] on a log scale, with at least a third of the gaps below (half
// of them lie inside bursts with 2 GPUs, a little less when passes stall)
// and 1/65 above (64 GPUs); -1 when no split qualifies.
func otsuSplit(gaps []int64) int {
	n := len(gaps)
	sum, sumSq := make([]float64, n+1), make([]float64, n+1)
	for i, g := range gaps {
		l := math.Log(float64(g))
		sum[i+1], sumSq[i+1] = sum[i]+l, sumSq[i]+l*l
	}
	spread := func(lo, hi int) float64 { // n × variance of the logs in [lo, hi)
		s, m := sum[hi]-sum[lo], float64(hi-lo)
		return sumSq[hi] - sumSq[lo] - s*s/m
	}
	best, bestK := math.Inf(1), -1
	for k := max(n/3-1, 0); n-k-1 >= max(n/(maxBurstGPUs+1), 1); k++ {
		if v := spread(0, k+1) + spread(k+1, n); v < best {
			best, bestK = v, k
		}
	}
	return bestK
}

// segments splits the rows where consecutive rows are more than gap apart,
// or a new run starts.
func (t *table) segments(gap int64) []instant {
	var out []instant
	lo := 0
	for i := 1; i <= len(t.rows); i++ {
		if i == len(t.rows) || t.rows[i].run != t.rows[i-1].run || t.rows[i].at-t.rows[i-1].at > gap {
			out = append(out, instant{lo, i})
			lo = i
		}
	}
	return out
}

// groupBursts numbers rows by their order modulo n, restarting at a clean
// burst of n rows after an incomplete one, and at each run.
func (t *table) groupBursts(n int, gap int64) []instant {
	segs := t.segments(gap)
	var out []instant
	incomplete := 0
	lo, pos := 0, 0
	closeBurst := func(hi int) {
		if hi > lo {
			out = append(out, instant{lo, hi})
			if hi-lo < n {
				incomplete++
			}
		}
		lo, pos = hi, 0
	}
	for si, s := range segs {
		size := s.hi - s.lo
		newRun := si == 0 || t.rows[s.lo].run != t.rows[segs[si-1].lo].run
		if newRun || (pos != 0 && size == n) {
			closeBurst(s.lo)
		}
		// A log cut mid-pass starts with the tail of a burst: its last GPUs.
		nextClean := si+1 < len(segs) && segs[si+1].hi-segs[si+1].lo == n
		if newRun && size < n && nextClean {
			pos = n - size
		}
		for i := s.lo; i < s.hi; i++ {
			if pos == n {
				closeBurst(i)
			}
			t.rows[i].gpu = int16(pos)
			pos++
		}
	}
	closeBurst(len(t.rows))
	t.note("no GPU index column: %s told apart by their row's place in each sampling burst", units.Count(n, "GPU"))
	if incomplete > 0 {
		t.note("%s had fewer than %s: their missing GPUs have no values there", units.Count(incomplete, "sampling burst"), units.Count(n, "row"))
	}
	return out
}

// MedianGap returns the middle of the gaps between consecutive values of
// xs (the upper middle for an even count): the typical spacing of a
// series of times. 0 for fewer than two values.
func MedianGap(xs []int64) int64 {
	if len(xs) < 2 {
		return 0
	}
	gaps := make([]int64, len(xs)-1)
	for i := range gaps {
		gaps[i] = xs[i+1] - xs[i]
	}
	slices.Sort(gaps)
	return gaps[len(gaps)/2]
}
