package timeline

import (
	"github.com/gputop-dev/gputop/timeline/chunks"
	"math"
	"sort"
)

// rawTier keeps every derived value of recent samples, a float32 per
// series beside each sample's time: float32 holds a display value to 7
// digits; raw counters never get here, Derive took their differences
// first. The values are kept in chunks, compactly once a block of them is
// sealed.
//
// It holds at most capacity samples, dropping the oldest; capacity 0 keeps
// everything (replay, where the whole file should be at full resolution).
// A budget of bytes (budget, 0: none) lets go of whole blocks of the
// oldest beyond it.
type rawTier struct {
	capacity int
	budget   int
	times    []int64 // times[tskip:] are the samples'
	tskip    int
	vals     chunks.Chunks
}

// rawBlockRows is how many raw samples a block holds: a series' run of
// them 256 bytes, sealed about once a minute at 1 s (a session's newest
// minute stays as it came). bucketBlockRows is a bucket tier's: its open
// rows take four words a series each, 37 MB for 64 hosts' 36,736 series at
// 64 rows, 9 MB at 16.
const (
	rawBlockRows    = 64
	bucketBlockRows = 16
)

func newRawTier(capacity int) rawTier {
	return rawTier{capacity: capacity, vals: chunks.New(1, rawBlockRows, nanBits)}
}

// nanBits is a value the store does not have.
var nanBits = math.Float32bits(nan32)

// cursor reads series id's values at physical indexes in turn.
func (r *rawTier) cursor(id int) rawCursor { return rawCursor{r.vals.Cursor(id, 0)} }

type rawCursor struct{ lane chunks.Cursor }

// value is the series' value at physical index p (phys).
func (c *rawCursor) value(p int) float32 { return math.Float32frombits(c.lane.At(p)) }

// value is series id's value at physical index p (phys).
func (r *rawTier) value(id, p int) float32 {
	var w [1]uint32
	r.vals.GetLanes(p, id, w[:])
	return math.Float32frombits(w[0])
}

func (r *rawTier) len() int { return len(r.times) - r.tskip }

// phys maps a logical index (0 = oldest) to the physical one value reads,
// good until the next sample.
func (r *rawTier) phys(i int) int { return r.vals.First() + i }

func (r *rawTier) time(i int) int64 { return r.times[r.tskip+i] }

func (r *rawTier) oldest() int64 {
	if r.len() == 0 {
		return math.MaxInt64
	}
	return r.time(0)
}

// fit makes the tier hold at most n samples (n >= 1), keeping the newest:
// what a budget of values allows once series are added.
func (r *rawTier) fit(n int) {
	if r.capacity != 0 && r.capacity <= n {
		return
	}
	r.capacity = n
	if k := r.len() - n; k > 0 {
		r.dropFront(k)
	}
	if cap(r.times) > 2*n {
		// A reservation made for more samples than the budget allows is
		// let go too.
		r.times = append(make([]int64, 0, 2*n), r.times[r.tskip:]...)
		r.tskip = 0
	}
}

// dropFront lets go of the n oldest samples.
func (r *rawTier) dropFront(n int) {
	r.vals.DropFront(n)
	r.forget(n)
}

// forget lets go of the n oldest times, the values gone. Their room is
// taken back when the times fill their slice (next).
func (r *rawTier) forget(n int) { r.tskip += n }

// next appends a sample of time t and returns its row of values, a value
// per series (width of them), every one NaN, for the caller to write
// before the next call: the store writes a sample's values there at once,
// not into a row of its own then copied.
func (r *rawTier) next(t int64, width int) []uint32 {
	if r.capacity != 0 && r.len() >= r.capacity {
		r.dropFront(r.len() - r.capacity + 1)
	}
	for r.budget > 0 && r.vals.HeldBytes() > r.budget && r.len() > rawBlockRows {
		n := r.vals.DropBlock()
		if n == 0 {
			break
		}
		r.forget(n)
	}
	if len(r.times) == cap(r.times) && r.tskip > 0 {
		r.times = append(r.times[:0], r.times[r.tskip:]...)
		r.tskip = 0
	}
	r.times = append(r.times, t)
	return r.vals.AppendRow(width)
}

// search returns the first logical index whose time is >= t.
func (r *rawTier) search(t int64) int {
	return sort.Search(r.len(), func(i int) bool { return r.time(i) >= t })
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
// The closed buckets are kept in chunks, four words a series (a series that
// does not change over a block of buckets costs one of each).
//
// When the coarsest tier is full, or past its budget of bytes, it does not
// drop history: it merges pairs of buckets and doubles its width, so memory
// stays bounded for any length of session while the whole of it can still
// be shown. The others drop their oldest buckets, which the coarser tiers
// hold too.
//
// Only the finest tier files each sample; each coarser one takes the
// finer one's buckets as they close (closeOpen), so a sample of 64 hosts'
// 37,000 values is summed once, not once a tier, and the reads of a
// coarser tier's newest bucket add in what the finer one holds open (at).
type bucketTier struct {
	width    int64
	capacity int
	// budget is the bytes the closed buckets may take (0: no limit).
	budget   int
	compacts bool // the coarsest tier: merge instead of dropping
	// finer and coarser are the tiers beside this one; nil at either end.
	finer, coarser *bucketTier
	// retired says the tier keeps no columns, only its open bucket for the
	// coarser tier (retire).
	retired bool
	starts  []int64 // starts[sskip:] are the buckets', the open one last
	sskip   int
	rows    chunks.Chunks // the closed buckets: min, max, sum, count
	// open holds the newest bucket's summaries, the series side by side,
	// while it fills; it becomes a row of the chunks when it closes.
	open   []agg
	isOpen bool
	openAt int // the open bucket's physical index
}

func newBucketTier(width int64, capacity int, compacts bool) *bucketTier {
	return &bucketTier{width: width, capacity: capacity, compacts: compacts, rows: chunks.New(4, bucketBlockRows, 0)}
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
	return b.closed(id, p)
}

// closed is series id's summary in the closed bucket at physical index p.
func (b *bucketTier) closed(id, p int) agg { return closedAgg(&b.rows, p, id) }

// closedAgg is series id's summary in row p of c.
func closedAgg(c *chunks.Chunks, p, id int) agg {
	var w [4]uint32
	c.GetLanes(p, id, w[:])
	return aggOf(w[:])
}

// aggCursor reads series id's summaries at physical indexes in turn.
type aggCursor struct {
	b     *bucketTier
	id    int
	lanes [4]chunks.Cursor
}

func (b *bucketTier) cursor(id int) aggCursor {
	k := aggCursor{b: b, id: id}
	for lane := range k.lanes {
		k.lanes[lane] = b.rows.Cursor(id, lane)
	}
	return k
}

// at is the series' summary in the bucket at physical index p, the open
// one too.
func (k *aggCursor) at(p int) agg {
	if b := k.b; b.isOpen && p == b.openAt {
		return b.at(k.id, p)
	}
	var w [4]uint32
	for lane := range w {
		w[lane] = k.lanes[lane].At(p)
	}
	return aggOf(w[:])
}

// aggOf reads a summary from its four words, as put writes them.
func aggOf(w []uint32) agg {
	return agg{min: math.Float32frombits(w[0]), max: math.Float32frombits(w[1]), sum: math.Float32frombits(w[2]), n: w[3]}
}

// put writes a into series id's four words of a row.
func put(row []uint32, id int, a agg) {
	w := row[4*id : 4*id+4]
	w[0], w[1], w[2], w[3] = math.Float32bits(a.min), math.Float32bits(a.max), math.Float32bits(a.sum), a.n
}

// closeOpen makes the open bucket a row of the chunks, and adds it into
// the coarser tier's open bucket, the one that holds it.
func (b *bucketTier) closeOpen() {
	if !b.isOpen {
		return
	}
	c := b.coarser // open: it opened the bucket that holds this one first
	var row []uint32
	if !b.retired {
		row = b.rows.AppendRow(len(b.open))
	}
	for id, a := range b.open {
		if row != nil {
			put(row, id, a)
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
	b.rows.Reset()
	b.starts, b.sskip, b.capacity = nil, 0, 1
}

func (b *bucketTier) len() int { return len(b.starts) - b.sskip }

// phys maps a logical index (0 = oldest) to the physical one at reads,
// good until the next sample.
func (b *bucketTier) phys(i int) int { return b.rows.First() + i }

func (b *bucketTier) start(i int) int64 { return b.starts[b.sskip+i] }

func (b *bucketTier) oldest() int64 {
	if b.len() == 0 {
		return math.MaxInt64
	}
	return b.start(0)
}

// heldBytes is what the tier's closed buckets take.
func (b *bucketTier) heldBytes() int { return b.rows.HeldBytes() + 8*cap(b.starts) + 16*cap(b.open) }

// over says whether the closed buckets are past the tier's budget.
func (b *bucketTier) over() bool { return b.budget > 0 && b.rows.HeldBytes() > b.budget }

func (b *bucketTier) addSeries() { b.open = append(b.open, agg{}) }

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
	n := b.len()
	return !b.compacts && n == b.capacity && n > 0 && b.start(n-1) != floorTo(t, b.width)
}

// file adds a sample's values to the tier, the finest; the coarser ones
// take its buckets as they close.
func (b *bucketTier) file(t int64, vals []uint32) {
	b.bucketFor(t)
	open := b.open[:len(vals)]
	for i, w := range vals {
		if v := math.Float32frombits(w); v == v { // not NaN
			open[i].add(v)
		}
	}
}

// bucketFor makes the bucket of time t the open one (b.open), opening it
// if it is not: what file puts a sample of t into. Samples come in time
// order, so t is never in a bucket before the open one.
func (b *bucketTier) bucketFor(t int64) {
	start := floorTo(t, b.width)
	if b.isOpen && b.starts[len(b.starts)-1] == start {
		return
	}
	// A new bucket starts empty (closeOpen cleared open); it becomes a row
	// when it closes. The coarser tier opens the one that holds it, having
	// taken the bucket closed here.
	b.closeOpen()
	if b.coarser != nil {
		b.coarser.bucketFor(t)
	}
	b.isOpen, b.openAt = true, b.push(start)
}

// push opens a bucket and returns its physical index. Every bucket before
// it is closed.
func (b *bucketTier) push(start int64) int {
	switch {
	case b.retired:
		b.starts = append(b.starts[:0], start)
		return b.phys(0)
	case b.compacts:
		for b.len() > 1 && (b.len() >= b.capacity || b.over()) {
			b.compact()
			start = floorTo(start, b.width)
		}
	case !b.compacts && b.len() >= b.capacity:
		b.dropFront(b.len() - b.capacity + 1)
	}
	for !b.compacts && b.over() {
		n := b.rows.DropBlock()
		if n == 0 {
			break
		}
		b.forget(n)
	}
	b.starts = append(b.starts, start)
	return b.phys(b.len() - 1)
}

// dropFront lets go of the n oldest buckets, all closed.
func (b *bucketTier) dropFront(n int) {
	b.rows.DropFront(n)
	b.forget(n)
}

// forget lets go of the n oldest starts, their buckets gone.
func (b *bucketTier) forget(n int) {
	b.sskip += n
	if b.sskip >= 1024 && b.sskip >= len(b.starts)/2 {
		b.starts = append(b.starts[:0], b.starts[b.sskip:]...)
		b.sskip = 0
	}
}

// compact doubles the width and merges buckets that now share a start,
// block by block into new chunks.
func (b *bucketTier) compact() {
	b.width *= 2
	old := b.rows
	n := b.len()
	b.rows = chunks.New(4, bucketBlockRows, 0)
	starts := make([]int64, 0, cap(b.starts))
	width := len(b.open)
	var row []uint32
	for i := range n {
		p := old.First() + i
		s := floorTo(b.start(i), b.width)
		if len(starts) > 0 && starts[len(starts)-1] == s {
			for id := range width {
				a := aggOf(row[4*id:])
				a.merge(closedAgg(&old, p, id))
				put(row, id, a)
			}
			continue
		}
		starts = append(starts, s)
		row = b.rows.AppendRow(width)
		for id := range width {
			put(row, id, closedAgg(&old, p, id))
		}
	}
	b.starts, b.sskip = starts, 0
}

// search returns the first logical index whose start is >= t.
func (b *bucketTier) search(t int64) int {
	return sort.Search(b.len(), func(i int) bool { return b.start(i) >= t })
}

var nan32 = float32(math.NaN())
