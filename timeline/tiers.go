package timeline

import (
	"math"
	"slices"
	"sort"
)

// rawTier keeps every derived value of recent samples, as columns of
// float32 (one per series) beside one column of times. float32 holds a
// display value to 7 digits; raw counters never get here, Derive took their
// differences first.
//
// It is a ring: when capacity is reached the oldest sample is overwritten.
// capacity 0 keeps everything (replay, where the whole file should be at
// full resolution).
type rawTier struct {
	capacity int
	head     int // physical index of the oldest sample once the ring is full
	times    []int64
	cols     [][]float32
	// pend holds the values of the newest samples, up to pendMax, a row
	// of every series each, at physical indexes pendAt on; the columns get
	// them when the rows are full (flush), a cache line each at once.
	// Written to the columns at every sample, they took a line per series
	// per sample, lines whose same offsets in their pages shared a set of
	// the cache.
	pend   []float32
	pendAt int
	pendN  int
}

// pendMax is how many samples pend holds: 64 float32s, four cache lines of
// each column written at once (16, one line, flushed a day of 8 GPUs in
// 0.21 s; 64 in 0.14 s: each column's page is found once for four lines).
const pendMax = 64

// value is series id's value at physical index p.
func (r *rawTier) value(id, p int) float32 {
	if j := p - r.pendAt; j >= 0 && j < r.pendN {
		return r.pend[j*len(r.cols)+id]
	}
	return r.cols[id][p]
}

// flush writes the pending rows into the columns.
func (r *rawTier) flush() {
	if r.pendN == 0 {
		return
	}
	w, at, n := len(r.cols), r.pendAt, r.pendN
	for id, col := range r.cols {
		if len(col) < at+n {
			col = slices.Grow(col, at+n-len(col))[:at+n]
		}
		dst := col[at : at+n]
		for j := range dst {
			dst[j] = r.pend[j*w+id]
		}
		r.cols[id] = col
	}
	r.pendN = 0
}

func (r *rawTier) len() int { return len(r.times) }

// phys maps a logical index (0 = oldest) to a physical one.
func (r *rawTier) phys(i int) int {
	if r.head == 0 {
		return i
	}
	i += r.head
	if i >= len(r.times) {
		i -= len(r.times)
	}
	return i
}

func (r *rawTier) time(i int) int64 { return r.times[r.phys(i)] }

func (r *rawTier) oldest() int64 {
	if len(r.times) == 0 {
		return math.MaxInt64
	}
	return r.time(0)
}

// fit makes the ring hold at most n samples (n >= 1), keeping the newest:
// what a budget of values allows once series are added. The kept samples
// move to the front in time order, so the ring starts over at 0.
func (r *rawTier) fit(n int) {
	if r.capacity != 0 && r.capacity <= n {
		return
	}
	r.flush()
	r.capacity = n
	if cap(r.times) <= n {
		return
	}
	// Kept in order, in slices no longer than the ring: a reservation made
	// for more samples than the budget allows is let go too.
	k := min(len(r.times), n)
	times := make([]int64, k, n)
	for i := range k {
		times[i] = r.times[r.phys(len(r.times)-k+i)]
	}
	for c, col := range r.cols {
		out := make([]float32, k, n)
		for i := range k {
			out[i] = col[r.phys(len(col)-k+i)]
		}
		r.cols[c] = out
	}
	r.times, r.head = times, 0
}

func (r *rawTier) addSeries() {
	// The pending rows are as wide as the columns were: into them first.
	r.flush()
	col := make([]float32, len(r.times), cap(r.times)) // the ring's room, or the store's reserve
	for i := range col {
		col[i] = nan32
	}
	r.cols = append(r.cols, col)
}

// add appends one sample; vals holds a value per series (NaN where absent).
func (r *rawTier) add(t int64, vals []float32) {
	copy(r.next(t), vals[:len(r.cols)])
}

// next appends a sample of time t and returns its row of values, a value
// per series, for the caller to write in full before the next call: the
// store writes a sample's values there at once, not into a row of its own
// then copied.
func (r *rawTier) next(t int64) []float32 {
	var p int
	if r.capacity == 0 || len(r.times) < r.capacity {
		p = len(r.times)
		r.times = append(r.times, t)
	} else {
		p = r.head
		r.times[p] = t
		r.head++
		if r.head == len(r.times) {
			r.head = 0
		}
	}
	// The pending rows are at consecutive indexes: a sample elsewhere (the
	// ring wrapped) flushes them first.
	if r.pendN == pendMax || r.pendN > 0 && p != r.pendAt+r.pendN {
		r.flush()
	}
	if r.pendN == 0 {
		r.pendAt = p
		if w := len(r.cols) * pendMax; cap(r.pend) < w {
			r.pend = make([]float32, w)
		}
	}
	row := r.pend[r.pendN*len(r.cols) : (r.pendN+1)*len(r.cols)]
	r.pendN++
	return row
}

// search returns the first logical index whose time is >= t.
func (r *rawTier) search(t int64) int {
	return sort.Search(len(r.times), func(i int) bool { return r.time(i) >= t })
}

// agg is the summary of one series over one bucket. n counts the values that
// were numbers; gaps (NaN) are not averaged in.
type agg struct {
	min, max, sum float32
	n             uint32
}

func (a *agg) add(v float32) {
	if v != v { // NaN
		return
	}
	if a.n == 0 || v < a.min {
		a.min = v
	}
	if a.n == 0 || v > a.max {
		a.max = v
	}
	a.sum += v
	a.n++
}

func (a *agg) merge(b agg) {
	if b.n == 0 {
		return
	}
	if a.n == 0 || b.min < a.min {
		a.min = b.min
	}
	if a.n == 0 || b.max > a.max {
		a.max = b.max
	}
	a.sum += b.sum
	a.n += b.n
}

// bucketTier keeps min/sum/max/count per series over buckets of a fixed
// width, aligned to multiples of the width since the Unix epoch, so a bucket
// always covers the same wall-clock span whatever the first sample's time.
//
// When the coarsest tier is full it does not drop history: it merges pairs of
// buckets and doubles its width, so memory stays bounded for any length of
// session while the whole of it can still be shown.
//
// Only the finest tier files every sample; each coarser one takes the
// finer one's buckets as they close (closeOpen), so a sample of 64 hosts'
// 37,000 values is summed once, not once a tier, and the reads of a
// coarser tier's newest bucket add in what the finer one holds open (at).
type bucketTier struct {
	width    int64
	capacity int
	compacts bool // the coarsest tier: merge instead of dropping
	// finer and coarser are the tiers beside this one; nil at either end.
	finer, coarser *bucketTier
	// retired says the tier keeps no columns, only its open bucket for the
	// coarser tier (retire).
	retired bool
	head    int
	starts  []int64
	cols    [][]agg
	// open holds the newest bucket's summaries, the series side by side,
	// while it fills; its column entries (cols[id][openAt]) are written
	// when it closes. Filing into the columns themselves touched one cache
	// line per series per tier at each sample, lines a column's length
	// apart and so competing for the same few sets of the cache.
	open   []agg
	isOpen bool
	openAt int // the open bucket's physical index
}

// at is series id's summary in the bucket at physical index p.
func (b *bucketTier) at(id, p int) agg {
	if b.isOpen && p == b.openAt {
		a := b.open[id]
		if f := b.finer; f != nil && f.isOpen {
			a.merge(f.at(id, f.openAt)) // within this bucket: bucketFor opens them alike
		}
		return a
	}
	return b.cols[id][p]
}

// closeOpen writes the open bucket into the columns, every series' entry,
// and into the coarser tier's open bucket, the one that holds it.
func (b *bucketTier) closeOpen() {
	if !b.isOpen {
		return
	}
	c := b.coarser // open: it opened the bucket that holds this one first
	for id, a := range b.open {
		if !b.retired {
			b.cols[id][b.openAt] = a
		}
		if c != nil {
			c.open[id].merge(a)
		}
	}
	clear(b.open)
	b.isOpen = false
}

// retire lets the tier's columns go: from the next bucket on it keeps only
// the open one, for the coarser tier to take as it closes, which so sums
// what it would have, a store read from its first sample as any
// (StoreOptions.ReadFromFirst). It is called as a new bucket begins.
func (b *bucketTier) retire() {
	if b.finer != nil {
		b.finer.retire() // its open bucket, the last of this one's, first
	}
	b.closeOpen()
	b.retired = true
	b.cols, b.starts, b.head, b.capacity = nil, nil, 0, 1
}

func (b *bucketTier) len() int { return len(b.starts) }

func (b *bucketTier) phys(i int) int {
	if b.head == 0 {
		return i
	}
	i += b.head
	if i >= len(b.starts) {
		i -= len(b.starts)
	}
	return i
}

func (b *bucketTier) start(i int) int64 { return b.starts[b.phys(i)] }

func (b *bucketTier) oldest() int64 {
	if len(b.starts) == 0 {
		return math.MaxInt64
	}
	return b.start(0)
}

// bucketReserveMax bounds the buckets a tier makes room for ahead of time,
// over all its series (StoreOptions.ReserveSpan): 4 Mi, 64 MiB, where a day
// of 8 GPUs needs 1.2 Mi in the finest tier; series past it grow as they
// fill, so a file's claims cannot make the store allocate.
const bucketReserveMax = 4 << 20

func (b *bucketTier) addSeries() {
	room := cap(b.starts)
	if (len(b.cols)+1)*room > bucketReserveMax {
		room = len(b.starts)
	}
	if !b.retired {
		b.cols = append(b.cols, make([]agg, len(b.starts), room))
	}
	b.open = append(b.open, agg{})
}

func floorTo(t, width int64) int64 {
	q := t / width
	if t < 0 && t%width != 0 {
		q--
	}
	return q * width
}

// wouldDrop says whether filing a sample of time t would let go of the
// tier's oldest bucket: a ring that is full, and t in a bucket of its own.
func (b *bucketTier) wouldDrop(t int64) bool {
	n := len(b.starts)
	return !b.compacts && n == b.capacity && n > 0 && b.starts[b.phys(n-1)] != floorTo(t, b.width)
}

// file adds a sample's values to the tier, the finest; the coarser ones
// take its buckets as they close.
func (b *bucketTier) file(t int64, vals []float32) {
	b.bucketFor(t)
	open := b.open[:len(vals)]
	for i, v := range vals {
		if v == v { // not NaN
			open[i].add(v)
		}
	}
}

// bucketFor makes the bucket of time t the open one (b.open), opening it
// if it is not: what file puts a sample of t into. Samples come in time
// order, so t is never in a bucket before the open one.
func (b *bucketTier) bucketFor(t int64) {
	start := floorTo(t, b.width)
	if b.isOpen && b.starts[b.openAt] == start {
		return
	}
	// A new bucket starts empty (closeOpen cleared open); its column
	// entries are written when it closes. The coarser tier opens the one
	// that holds it, having taken the bucket closed here.
	b.closeOpen()
	if b.coarser != nil {
		b.coarser.bucketFor(t)
	}
	b.isOpen, b.openAt = true, b.push(start)
}

// push opens a bucket and returns its physical index.
func (b *bucketTier) push(start int64) int {
	if len(b.starts) < b.capacity {
		b.starts = append(b.starts, start)
		for i := range b.cols {
			b.cols[i] = append(b.cols[i], agg{})
		}
		return len(b.starts) - 1
	}
	if b.compacts {
		b.compact()
		return b.push(floorTo(start, b.width))
	}
	p := b.head
	b.starts[p] = start
	b.head++
	if b.head == len(b.starts) {
		b.head = 0
	}
	return p
}

// compact doubles the width and merges buckets that now share a start.
func (b *bucketTier) compact() {
	b.width *= 2
	n := len(b.starts)
	w := 0
	for i := 0; i < n; i++ {
		p := b.phys(i)
		s := floorTo(b.starts[p], b.width)
		if w > 0 && b.starts[w-1] == s {
			for c := range b.cols {
				b.cols[c][w-1].merge(b.cols[c][p])
			}
			continue
		}
		// A compacting tier never wraps (head is 0), so p == i >= w: the
		// bucket is read before anything is written over it.
		b.starts[w] = s
		for c := range b.cols {
			b.cols[c][w] = b.cols[c][p]
		}
		w++
	}
	b.starts = b.starts[:w]
	for c := range b.cols {
		b.cols[c] = b.cols[c][:w]
	}
}

// search returns the first logical index whose start is >= t.
func (b *bucketTier) search(t int64) int {
	return sort.Search(len(b.starts), func(i int) bool { return b.start(i) >= t })
}

var nan32 = float32(math.NaN())
