package tiers

import (
	"math"
	"sort"

	"github.com/gputop-dev/gputop/timeline/chunks"
)

// Raw keeps every derived value of recent samples, a float32 per series
// beside each sample's time: float32 holds a display value to 7 digits;
// raw counters never get here, the store's Deriver took their differences
// first. The values are kept in chunks, compactly once a block of them is
// sealed.
//
// It holds at most capacity samples, dropping the oldest; capacity 0 keeps
// everything. A Budget of bytes (0: none) lets go of whole blocks of the
// oldest beyond it. Samples are read by logical index (0 = the oldest
// held), values by physical index (Phys), good until the next sample.
type Raw struct {
	capacity int
	Budget   int
	times    // the samples'
	vals     chunks.Chunks
}

// times are a tier's times in Unix nanoseconds, oldest first: its samples'
// (Raw) or its buckets' starts (Bucket). at[skip:] are those held, read
// by logical index (0 = the oldest held); the room of those let go of is
// taken back now and then.
type times struct {
	at   []int64
	skip int
}

// Reserve makes room for n times at once, where a store knows how many
// are coming (a recording's).
func (t *times) Reserve(n int) { t.at = make([]int64, 0, n) }

// Reserved is how many times there is room for.
func (t *times) Reserved() int { return cap(t.at) }

// Len is how many samples (or buckets, the open one too) the tier holds.
func (t *times) Len() int { return len(t.at) - t.skip }

// Time is the time of the i-th sample held, or when the i-th bucket held
// starts.
func (t *times) Time(i int) int64 { return t.at[t.skip+i] }

// Oldest is the oldest time held; math.MaxInt64 if none.
func (t *times) Oldest() int64 {
	if t.Len() == 0 {
		return math.MaxInt64
	}
	return t.Time(0)
}

// Search returns the first logical index whose time is >= x.
func (t *times) Search(x int64) int {
	return sort.Search(t.Len(), func(i int) bool { return t.Time(i) >= x })
}

// Within returns the logical indexes [lo, hi) of the times from f to to,
// both included.
func (t *times) Within(f, to int64) (lo, hi int) {
	return t.Search(f), sort.Search(t.Len(), func(i int) bool { return t.Time(i) > to })
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

// NewRaw returns an empty raw tier of at most capacity samples (0: no
// limit).
func NewRaw(capacity int) Raw {
	return Raw{capacity: capacity, vals: chunks.New(1, rawBlockRows, nanBits)}
}

// SealEvery makes an empty raw tier seal its samples rows at a time (a
// power of two from 8 to chunks.MaxRows), not rawBlockRows: a series read
// across a day is found in a quarter as many blocks at 256, each a cache
// miss, where a store reads whole series (a report's).
func (r *Raw) SealEvery(rows int) {
	if r.Len() == 0 {
		r.vals = chunks.New(1, rows, nanBits)
	}
}

// Capacity is the most samples the tier holds (0: no limit).
func (r *Raw) Capacity() int { return r.capacity }

// HeldBytes is what the tier's values and times take.
func (r *Raw) HeldBytes() int { return r.vals.HeldBytes() + 8*cap(r.at) }

// nanBits is a value the store does not have.
var nanBits = math.Float32bits(nan32)

// Cursor reads series id's values at physical indexes in turn.
func (r *Raw) Cursor(id int) RawCursor { return RawCursor{r.vals.Cursor(id, 0)} }

// RawCursor reads one series' values (Raw.Cursor).
type RawCursor struct{ lane chunks.Cursor }

// Value is the series' value at physical index p (Phys).
func (c *RawCursor) Value(p int) float32 { return math.Float32frombits(c.lane.At(p)) }

// Value is series id's value at physical index p (Phys).
func (r *Raw) Value(id, p int) float32 {
	var w [1]uint32
	r.vals.GetLanes(p, id, w[:])
	return math.Float32frombits(w[0])
}

// Phys maps a logical index (0 = oldest) to the physical one value reads,
// good until the next sample.
func (r *Raw) Phys(i int) int { return r.vals.First() + i }

// Fit makes the tier hold at most n samples (n >= 1), keeping the newest:
// what a budget of values allows once series are added.
func (r *Raw) Fit(n int) {
	if r.capacity != 0 && r.capacity <= n {
		return
	}
	r.capacity = n
	if k := r.Len() - n; k > 0 {
		r.dropFront(k)
	}
	if cap(r.at) > 2*n {
		// A reservation made for more samples than the budget allows is
		// let go too.
		r.at = append(make([]int64, 0, 2*n), r.at[r.skip:]...)
		r.skip = 0
	}
}

// dropFront lets go of the n oldest samples. The room of their times is
// taken back when the times fill their slice (Next).
func (r *Raw) dropFront(n int) {
	r.vals.DropFront(n)
	r.skip += n
}

// Next appends a sample of time t and returns its row of values, a value
// per series (width of them), every one NaN, for the caller to write
// before the next call: the store writes a sample's values there at once,
// not into a row of its own then copied.
func (r *Raw) Next(t int64, width int) []uint32 {
	if r.full() {
		r.dropFront(r.Len() - r.capacity + 1)
	}
	for r.over() {
		n := r.vals.DropBlock()
		if n == 0 {
			break
		}
		r.skip += n // the times' room is taken back below
	}
	if len(r.at) == cap(r.at) && r.skip > 0 {
		r.at = append(r.at[:0], r.at[r.skip:]...)
		r.skip = 0
	}
	r.at = append(r.at, t)
	return r.vals.AppendRow(width)
}

// WouldDrop says whether the next sample (Next) would let go of the
// oldest.
func (r *Raw) WouldDrop() bool { return r.full() || r.over() }

// full says whether the tier holds its capacity of samples, and over
// whether it holds more than its Budget of bytes and a block to let go.
func (r *Raw) full() bool { return r.capacity != 0 && r.Len() >= r.capacity }
func (r *Raw) over() bool {
	return r.Budget > 0 && r.vals.HeldBytes() > r.Budget && r.Len() > rawBlockRows
}

// Agg is the summary of one series over one bucket. N counts the values that
// were numbers; gaps (NaN) are not averaged in.
type Agg struct {
	Min, Max, Sum float32
	N             uint32
}

// Add counts v in, unless it is NaN.
func (a *Agg) Add(v float32) {
	if v != v { // NaN
		return
	}
	if a.N == 0 || v < a.Min {
		a.Min = v
	}
	if a.N == 0 || v > a.Max {
		a.Max = v
	}
	a.Sum += v
	a.N++
}

// Mean is the mean of the values counted, NaN if none.
func (a Agg) Mean() float64 {
	if a.N == 0 {
		return math.NaN()
	}
	return float64(a.Sum) / float64(a.N)
}

// Merge counts b's values in.
func (a *Agg) Merge(b Agg) {
	if b.N == 0 {
		return
	}
	if a.N == 0 || b.Min < a.Min {
		a.Min = b.Min
	}
	if a.N == 0 || b.Max > a.Max {
		a.Max = b.Max
	}
	a.Sum += b.Sum
	a.N += b.N
}

// Bucket keeps min/sum/max/count per series over buckets of a fixed
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
// coarser tier's newest bucket add in what the finer one holds open (At).
type Bucket struct {
	Width    int64
	capacity int
	// Budget is the bytes the closed buckets may take (0: no limit).
	Budget   int
	compacts bool // the coarsest tier: merge instead of dropping
	// finer and coarser are the tiers beside this one; nil at either end.
	finer, coarser *Bucket
	// retired says the tier keeps no columns, only its open bucket for the
	// coarser tier (Retire).
	retired bool
	times                 // the buckets' starts, the open one last
	rows    chunks.Chunks // the closed buckets: min, max, sum, count
	// open holds the newest bucket's summaries, the series side by side,
	// while it fills; it becomes a row of the chunks when it closes.
	open   []Agg
	isOpen bool
	openAt int // the open bucket's physical index
}

// NewBucket returns an empty tier of buckets of width nanoseconds, at most
// capacity of them; the coarsest compacts instead of dropping any.
func NewBucket(width int64, capacity int, compacts bool) *Bucket {
	return &Bucket{Width: width, capacity: capacity, compacts: compacts, rows: chunks.New(4, bucketBlockRows, 0)}
}

// Chain makes each tier of bs, finest first, take the buckets of the one
// before it as they close.
func Chain(bs []*Bucket) {
	for i := 1; i < len(bs); i++ {
		bs[i].finer, bs[i-1].coarser = bs[i-1], bs[i]
	}
}

// At is series id's summary in the bucket at physical index p.
func (b *Bucket) At(id, p int) Agg {
	if b.isOpen && p == b.openAt {
		a := b.open[id]
		if f := b.finer; f != nil && f.isOpen {
			a.Merge(f.At(id, f.openAt)) // within this bucket: bucketFor opens them alike
		}
		return a
	}
	return closedAgg(&b.rows, p, id)
}

// closedAgg is series id's summary in row p of c.
func closedAgg(c *chunks.Chunks, p, id int) Agg {
	var w [4]uint32
	c.GetLanes(p, id, w[:])
	return aggOf(w[:])
}

// AggCursor reads one series' summaries (Bucket.Cursor).
type AggCursor struct {
	b     *Bucket
	id    int
	lanes [4]chunks.Cursor
}

// Cursor reads series id's summaries at physical indexes in turn.
func (b *Bucket) Cursor(id int) AggCursor {
	k := AggCursor{b: b, id: id}
	for lane := range k.lanes {
		k.lanes[lane] = b.rows.Cursor(id, lane)
	}
	return k
}

// At is the series' summary in the bucket at physical index p, the open
// one too.
func (k *AggCursor) At(p int) Agg {
	if b := k.b; b.isOpen && p == b.openAt {
		return b.At(k.id, p)
	}
	var w [4]uint32
	for lane := range w {
		w[lane] = k.lanes[lane].At(p)
	}
	return aggOf(w[:])
}

// aggOf reads a summary from its four words, as put writes them.
func aggOf(w []uint32) Agg {
	return Agg{Min: math.Float32frombits(w[0]), Max: math.Float32frombits(w[1]), Sum: math.Float32frombits(w[2]), N: w[3]}
}

// put writes a into series id's four words of a row.
func put(row []uint32, id int, a Agg) {
	w := row[4*id : 4*id+4]
	w[0], w[1], w[2], w[3] = math.Float32bits(a.Min), math.Float32bits(a.Max), math.Float32bits(a.Sum), a.N
}

// closeOpen makes the open bucket a row of the chunks, and adds it into
// the coarser tier's open bucket, the one that holds it.
func (b *Bucket) closeOpen() {
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
			c.open[id].Merge(a)
		}
	}
	clear(b.open)
	b.isOpen = false
}

// Retire lets the tier's columns go: from the next bucket on it keeps only
// the open one, for the coarser tier to take as it closes, which so sums
// what it would have, a store read from its first sample as any
// (timeline.StoreOptions.ReadFromFirst). It is called as a new bucket begins.
func (b *Bucket) Retire() {
	if b.finer != nil {
		b.finer.Retire() // its open bucket, the last of this one's, first
	}
	b.closeOpen()
	b.retired = true
	b.rows.Reset()
	b.at, b.skip, b.capacity = nil, 0, 1
}

// Phys maps a logical index (0 = oldest) to the physical one at reads,
// good until the next sample.
func (b *Bucket) Phys(i int) int { return b.rows.First() + i }

// HeldBytes is what the tier's closed buckets take.
func (b *Bucket) HeldBytes() int { return b.rows.HeldBytes() + 8*cap(b.at) + 16*cap(b.open) }

// over says whether the closed buckets are past the tier's budget.
func (b *Bucket) over() bool { return b.Budget > 0 && b.rows.HeldBytes() > b.Budget }

// AddSeries adds a series to the open bucket, the store having met one.
func (b *Bucket) AddSeries() { b.open = append(b.open, Agg{}) }

func floorTo(t, width int64) int64 {
	q := t / width
	if t < 0 && t%width != 0 {
		q--
	}
	return q * width
}

// WouldDrop says whether filing a sample of time t would let go of the
// tier's oldest bucket: a ring that is full, and t in a bucket of its own.
func (b *Bucket) WouldDrop(t int64) bool {
	n := b.Len()
	return !b.compacts && n == b.capacity && n > 0 && b.Time(n-1) != floorTo(t, b.Width)
}

// File adds a sample's values to the tier, the finest; the coarser ones
// take its buckets as they close.
func (b *Bucket) File(t int64, vals []uint32) {
	b.bucketFor(t)
	open := b.open[:len(vals)]
	for i, w := range vals {
		if v := math.Float32frombits(w); v == v { // not NaN
			open[i].Add(v)
		}
	}
}

// bucketFor makes the bucket of time t the open one (b.open), opening it
// if it is not: what file puts a sample of t into. Samples come in time
// order, so t is never in a bucket before the open one.
func (b *Bucket) bucketFor(t int64) {
	start := floorTo(t, b.Width)
	if b.isOpen && b.at[len(b.at)-1] == start {
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
func (b *Bucket) push(start int64) int {
	switch {
	case b.retired:
		b.at = append(b.at[:0], start)
		return b.Phys(0)
	case b.compacts:
		for b.Len() > 1 && (b.Len() >= b.capacity || b.over()) {
			b.compact()
			start = floorTo(start, b.Width)
		}
	case b.Len() >= b.capacity:
		n := b.Len() - b.capacity + 1
		b.rows.DropFront(n)
		b.forget(n)
	}
	for !b.compacts && b.over() {
		n := b.rows.DropBlock()
		if n == 0 {
			break
		}
		b.forget(n)
	}
	b.at = append(b.at, start)
	return b.Phys(b.Len() - 1)
}

// forget lets go of the n oldest starts, their buckets gone.
func (b *Bucket) forget(n int) {
	b.skip += n
	if b.skip >= 1024 && b.skip >= len(b.at)/2 {
		b.at = append(b.at[:0], b.at[b.skip:]...)
		b.skip = 0
	}
}

// compact doubles the width and merges buckets that now share a start,
// block by block into new chunks.
func (b *Bucket) compact() {
	b.Width *= 2
	old := b.rows
	n := b.Len()
	b.rows = chunks.New(4, bucketBlockRows, 0)
	starts := make([]int64, 0, cap(b.at))
	width := len(b.open)
	var row []uint32
	for i := range n {
		p := old.First() + i
		s := floorTo(b.Time(i), b.Width)
		if len(starts) > 0 && starts[len(starts)-1] == s {
			for id := range width {
				a := aggOf(row[4*id:])
				a.Merge(closedAgg(&old, p, id))
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
	b.at, b.skip = starts, 0
}

var nan32 = float32(math.NaN())
