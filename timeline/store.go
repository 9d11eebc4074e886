package timeline

import (
	"math"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline/changes"
	"github.com/gputop-dev/gputop/timeline/tiers"
)

// StoreOptions sizes a Store.
type StoreOptions struct {
	// RawSamples is how many recent samples are kept at full resolution;
	// older ones live on in the buckets. 0 keeps every sample (replay).
	RawSamples int
	// Reserve is how many samples to make room for at once, when it is
	// known (a recording's length): growing by doubling would need up to
	// twice the memory while a day of samples loads. It is a hint, capped
	// at MaxReserve: a file's claims cannot make the store allocate.
	Reserve int
	// RawValues caps what the raw tier holds, in values (samples times
	// series): past it the oldest samples live on in the buckets only.
	// 0: no cap (RawSamples alone bounds it).
	RawValues int
	// ReserveSpan is how long the samples to come span, when it is known
	// (a recording's): each bucket tier makes room for as many buckets at
	// once, up to what it keeps, where growing by doubling allocated 106
	// MB for the 32 MB a day of 8 GPUs holds. A hint too, bounded by
	// bucketReserveMax.
	ReserveSpan time.Duration
	// ReadFromFirst says every read will begin at the first sample (or
	// before it), as a report's do. While the raw samples reach back to
	// the first, every read is of them: where the samples to come
	// (Reserve) fit the raw tier, the bucket tiers are filed only if the
	// first raw sample is to be let go of after all, every sample held
	// then first (a report of a day of 8 GPUs never files them). A bucket
	// tier that has let go of its oldest bucket can then never be read (it
	// no longer holds the first sample), so its columns are let go rather
	// than filed on; its open bucket still feeds the coarser tiers. A week
	// of 8 GPUs files the 10 s tier's 6 h, not its week. Reads from later
	// on go to the coarser tiers or the raw samples.
	ReadFromFirst bool
	// Budget is what the store's history may take, in bytes (0: no
	// limit): three eighths of it the raw samples, an eighth the process
	// lists (older ones thinned past it), the rest the bucket tiers
	// (tierLayout's shares). Past its share a tier lets go of its oldest
	// (whole blocks of raw samples, the finer tiers' buckets), the
	// coarsest merges its buckets instead: a live session left running for
	// a weekend stays within it and can still show all of it, its fine
	// history reaching less far back (OldestRaw).
	Budget int
	// Recall reads back what the store has let go of, from the file the
	// session was recorded to: windows of up to an hour of 8 GPUs (a
	// minute of 64 hosts) are then drawn sample by sample however old
	// (FineSince).
	Recall Recall
}

// FileRawValues is the raw budget of a store that reads a whole file (a
// report): 64 Mi values, at most 256 MiB where none compresses, keeps a
// day of an 8-GPU node at 1 Hz at full resolution (533 series for the
// demo's, NVLink per link and the health fields; room for 128 cores), and
// bounds what a file of millions of tiny samples, honest or hostile, can
// make it hold. Past it the oldest hours are read as minute averages, and
// the report says so. A replay keeps less and reads the rest back
// (RecallRawValues).
const FileRawValues = 64 << 20

// FileRawSamples is the raw tier's ring for a whole file: 1 Mi samples, 12
// days at 1 Hz, so that a file of millions of samples of one series each
// (a 1 ms import) keeps its newest at full resolution, not 64 Mi of them.
const FileRawSamples = 1 << 20

// MaxReserve caps StoreOptions.Reserve: a week at 1 Hz. A longer
// recording grows past it as it loads.
const MaxReserve = 7 * 86400

// DefaultHistoryBudget is a live store's Budget on a machine with room for
// it: a day of 8 GPUs' history whole at full resolution, an hour of 64
// hosts' 512.
const DefaultHistoryBudget = 128 << 20

// DefaultRawSamples keeps an hour at full resolution at a 1 s interval.
const DefaultRawSamples = 3600

// FinestBucket is the width of the finest min/mean/max buckets: what a
// store that no longer holds a stretch's raw samples can still tell apart.
const FinestBucket = 10 * time.Second

// bucket tiers: width and how many buckets each keeps before the next,
// coarser tier alone holds that time. The last one never drops anything.
// share is the eighths of StoreOptions.Budget the tier may take (the raw
// samples take three, the process lists one).
var tierLayout = []struct {
	width    time.Duration
	capacity int
	share    int
}{
	{FinestBucket, 2160, 2},     // 6 h
	{time.Minute, 2880, 1},      // 2 days
	{10 * time.Minute, 2016, 1}, // 2 weeks, then compacting
}

// Store keeps the derived history of every series: recent samples at full
// resolution, older ones as min/mean/max buckets at coarser resolutions, so
// memory stays bounded for a run of days and any window renders in time
// proportional to its width.
//
// Samples go in raw (Add derives them); everything reads by time, never by
// the wall clock. A Store belongs to one goroutine.
type Store struct {
	raw    tiers.Raw
	tiers  []*tiers.Bucket
	finest *tiers.Bucket // files every sample: tiers[0], or one retired before it
	// tiersLater says the bucket tiers have not been filed yet, the raw
	// samples reaching back to the first (ReadFromFirst, fileTiers).
	tiersLater bool
	// schema names the store's series, ids its place in rows (the
	// pipeline's, which the Judge's Deriver files by, or its own
	// Deriver's); keys are the keys of the series it has filed so far.
	schema  *Schema
	keys    []Key
	deriver Deriver
	// foreign and fromForeign map the ids of samples derived under
	// another schema to the store's.
	foreign     *Schema
	fromForeign []SeriesID
	foreignIDs  []SeriesID
	// filedIDs are the ids filing last made room for: a Deriver's plan's,
	// shared by every sample of its keys and never written (Derived.IDs),
	// so the next sample of the plan has nothing to look for.
	filedIDs []SeriesID
	// derivedOut is the upstream Deriver's tally, and derivedCounted its
	// counters behind values, from the newest sample that came derived
	// (Sample.Derived).
	derivedOut     []OutOfRange
	derivedCounted []Key
	jump           Jump        // samples left out for coming too long after the last
	recalled       [2]recalled // the last stretches read back, newest first
	added          int
	first          int64
	last           int64
	deltas         [15]int64 // recent sample spacings, for the interval estimate
	interval       int64

	markers   []Marker
	progress  []Progress
	events    []Event
	open      map[statusKey]int // index into events of each open one
	processes []processList
	// procBytes is what the process lists hold, procBudget their share of
	// the budget (0: none).
	procBytes, procBudget int
	// processIDs numbers each process (GPU, PID, start) seen, for
	// ProcessSpans (proclife.go).
	processIDs map[processID]int32
	// processInfos are the descriptions of the processes seen, by number
	// (processInfoOf); procs is the last list ProcessesAt made of them,
	// the one taken at procsAt.
	processInfos  []Process
	processInfoOf map[processInfo]int32
	procs         []Process
	procsAt       int64
	scratch       []colAcc
	owners        changes.Log[Owner] // who held each GPU as it changed (OwnersAt)
	// opts are the options the store was made with; their Recall goes
	// once reading back fails.
	opts StoreOptions
}

// NewStore returns an empty Store.
func NewStore(opts StoreOptions) *Store {
	s := &Store{
		raw:        tiers.NewRaw(opts.RawSamples),
		open:       map[statusKey]int{},
		tiersLater: opts.ReadFromFirst && opts.Reserve > 0,
		opts:       opts,
	}
	s.raw.Budget = opts.Budget * 3 / 8
	s.procBudget = opts.Budget / 8
	if n := min(opts.Reserve, MaxReserve); n > 0 {
		if opts.RawSamples > 0 {
			n = min(n, opts.RawSamples)
		}
		s.raw.Reserve(n)
	}
	for i, t := range tierLayout {
		b := tiers.NewBucket(int64(t.width), t.capacity, i == len(tierLayout)-1)
		b.Budget = opts.Budget * t.share / 8
		if opts.ReserveSpan > 0 {
			// The buckets the span touches, one more where it starts
			// within one, and one for a sample past the span's end.
			n := min(int64(opts.ReserveSpan/t.width)+2, int64(t.capacity))
			b.Reserve(int(n))
		}
		s.tiers = append(s.tiers, b)
	}
	tiers.Chain(s.tiers)
	s.finest = s.tiers[0]
	return s
}

// OutOfRange lists the values Add has left out as outside their metric's
// physical range, by display metric.
func (s *Store) OutOfRange() []OutOfRange {
	return mergeOutOfRange(s.deriver.OutOfRange(), s.derivedOut)
}

// Jump says which samples Add left out for coming more than MaxSampleGap
// after the last one kept; Dropped is 0 if none.
func (s *Store) Jump() Jump { return s.jump }

// Add derives a raw sample against the previous one and keeps it. A sample
// that is not later than the last one is dropped and Add returns false:
// history is in time order. So is one more than MaxSampleGap after the
// last one kept, and every sample after it (Jump).
func (s *Store) Add(smp *Sample) bool { return s.add(smp, nil) }

// AddFloat32 is Add of a sample derived upstream (smp.Derived) whose
// numbers the caller has written as float32 into vals, in the order of
// smp.Derived.IDs: what the store keeps of each. The numbers of
// smp.Derived are not read.
func (s *Store) AddFloat32(smp *Sample, vals []float32) bool {
	if smp.Derived == nil || len(vals) != len(smp.Derived.IDs) {
		return s.add(smp, nil) // derived here
	}
	return s.add(smp, vals)
}

// add is Add, with the values as float32 where vals is not nil
// (AddFloat32).
func (s *Store) add(smp *Sample, vals []float32) bool {
	t := smp.At.UnixNano()
	if s.added > 0 && (t <= s.last || s.jump.FarAfter(time.Unix(0, s.last), smp.At)) {
		return false
	}
	var nums []float64
	var ids []SeriesID
	if d := smp.Derived; d != nil && d.Schema != nil && (vals != nil || len(d.Numbers) == len(d.IDs)) {
		// Derived once, upstream: file what the pipeline's Judge made.
		s.derivedOut, s.derivedCounted = d.OutOfRange, d.Counted
		if vals == nil {
			nums = d.Numbers
		}
		ids = s.filing(d.Schema, d.IDs)
	} else {
		s.adopt(s.deriver.Schema())
		nums = s.deriver.Next(smp)
		ids = s.filing(s.schema, s.deriver.IDs())
	}
	// The values go straight into the raw tier's row for the sample (every
	// series NaN until written), and the bucket tiers read them there.
	if s.tiersLater && s.raw.WouldDrop() {
		s.fileTiers()
	}
	row := s.raw.Next(t, len(s.keys))
	switch {
	case vals != nil:
		for i, v := range vals {
			row[ids[i]] = math.Float32bits(v)
		}
	default:
		for i, v := range nums {
			row[ids[i]] = math.Float32bits(float32(v))
		}
	}
	if !s.tiersLater {
		s.fileTier(t, row)
	}
	if s.added == 0 {
		s.first = t
	} else {
		s.noteDelta(t - s.last)
	}
	s.last = t
	s.added++
	s.addStatuses(smp)
	for _, m := range smp.Markers {
		s.AddMarker(m)
	}
	for _, p := range smp.Progress {
		s.addProgress(p)
	}
	if smp.Processes != nil {
		s.addProcesses(t, smp.Processes)
	}
	s.owners.Add(t, smp.Owners)
	return true
}

// fileTier files a sample of time t, its row of values, in the bucket
// tiers.
func (s *Store) fileTier(t int64, row []uint32) {
	// The finest tier wraps first: once it would drop its first bucket it
	// cannot answer a read from the first sample again.
	for s.opts.ReadFromFirst && len(s.tiers) > 1 && s.tiers[0].WouldDrop(t) {
		s.tiers[0].Retire()
		s.tiers = slices.Delete(s.tiers, 0, 1)
	}
	s.finest.File(t, row)
}

// fileTiers files every raw sample held, in order, in the bucket tiers,
// which go on to file each sample as it comes: a store read from its first
// sample does so just before it lets go of the first. The tiers hold what
// they would have, had they filed each sample as it came (a series added
// since is NaN in the rows before it, which the buckets leave out).
func (s *Store) fileTiers() {
	s.tiersLater = false
	r := &s.raw
	curs := make([]tiers.RawCursor, len(s.keys))
	for id := range curs {
		curs[id] = r.Cursor(id)
	}
	row := make([]uint32, len(s.keys))
	for i := range r.Len() {
		p := r.Phys(i)
		for id := range curs {
			row[id] = math.Float32bits(curs[id].Value(p))
		}
		s.fileTier(r.Time(i), row)
	}
}

// wholeReadRows is how many samples a block of a store read from its first
// sample (a report's) holds, where its first sample's series at that many
// take at most wholeReadWords while they wait to be sealed (1,024 series):
// its series are read whole, a cache miss a block. A day of 8 GPUs' report
// takes 3-6 % less CPU than at 64; the open samples of 64 hosts' 36,736
// series would take 37 MB, and stay at 64.
const wholeReadRows, wholeReadWords = 256, 1 << 18

// rawHolds says whether the raw tier holds n samples of series series.
func (s *Store) rawHolds(n, series int) bool {
	return (s.raw.Capacity() == 0 || n <= s.raw.Capacity()) && (s.opts.RawValues == 0 || n*series <= s.opts.RawValues)
}

// adopt makes schema the store's, if it has none yet: the first sample's,
// derived upstream or by the store's own Deriver.
func (s *Store) adopt(schema *Schema) {
	if s.schema == nil {
		s.schema = schema
		s.deriver.UseSchema(schema)
	}
}

// filing returns the store's ids of values derived under schema as ids,
// with a series made for each id new to the store.
func (s *Store) filing(schema *Schema, ids []SeriesID) []SeriesID {
	s.adopt(schema)
	if schema != s.schema {
		ids = s.translate(schema, ids)
	} else if len(ids) > 0 && len(ids) == len(s.filedIDs) && &ids[0] == &s.filedIDs[0] {
		return ids // a plan's, filed before: every series has its place
	}
	top := len(s.keys)
	for _, id := range ids {
		top = max(top, int(id)+1)
	}
	if schema == s.schema {
		s.filedIDs = ids // every series will have its place
	}
	if top == len(s.keys) {
		return ids
	}
	if s.opts.ReadFromFirst && len(s.keys) == 0 && top*wholeReadRows <= wholeReadWords {
		s.raw.SealEvery(wholeReadRows)
	}
	if s.tiersLater && !s.rawHolds(s.opts.Reserve, top) {
		s.fileTiers() // the samples to come will not all be held raw
	}
	// The raw tier is fitted to the budget once for all the series this
	// sample brings: fitted once per series, a first sample of 533 series
	// moved every column at each one past the budget (17 GB allocated for
	// a day of 8 GPUs). Fitting to fewer samples in steps keeps what one
	// fit to the last step keeps.
	if s.opts.RawValues > 0 {
		n := max(1, s.opts.RawValues/top)
		if s.tiersLater && s.raw.Len() > n {
			s.fileTiers()
		}
		s.raw.Fit(n)
	}
	for len(s.keys) < top {
		s.keys = append(s.keys, s.schema.Key(SeriesID(len(s.keys))))
		for _, b := range s.tiers {
			b.AddSeries()
		}
	}
	return ids
}

// translate maps ids of another schema (a sample derived by another
// Deriver than the one the store first filed from) to the store's.
func (s *Store) translate(schema *Schema, ids []SeriesID) []SeriesID {
	if s.foreign != schema {
		s.foreign, s.fromForeign = schema, s.fromForeign[:0]
	}
	out := s.foreignIDs[:0]
	for _, id := range ids {
		for int(id) >= len(s.fromForeign) {
			s.fromForeign = append(s.fromForeign, NoSeries)
		}
		if s.fromForeign[id] == NoSeries {
			s.fromForeign[id] = s.schema.Register(schema.Key(id))
		}
		out = append(out, s.fromForeign[id])
	}
	s.foreignIDs = out
	return out
}

func (s *Store) noteDelta(d int64) {
	copy(s.deltas[1:], s.deltas[:])
	s.deltas[0] = d
	var sorted [len(s.deltas)]int64
	n := 0
	for _, x := range s.deltas {
		if x > 0 {
			sorted[n] = x
			n++
		}
	}
	slices.Sort(sorted[:n]) // sort.Slice's reflection allocated at every sample
	s.interval = sorted[n/2]
}

// Len is the number of samples added.
func (s *Store) Len() int { return s.added }

// First is the time of the first sample (zero if none).
func (s *Store) First() time.Time {
	if s.added == 0 {
		return time.Time{}
	}
	return time.Unix(0, s.first)
}

// Last is the time of the newest sample (zero if none).
func (s *Store) Last() time.Time {
	if s.added == 0 {
		return time.Time{}
	}
	return time.Unix(0, s.last)
}

// Interval is the typical time between samples (the median of the last few).
func (s *Store) Interval() time.Duration { return time.Duration(s.interval) }

// Has says whether the store has ever seen a series.
func (s *Store) Has(k Key) bool {
	_, ok := s.ID(k)
	return ok
}

// GPUIndexes lists, in order, the NVML indexes of the GPUs info names and
// of every GPU the store has series for (a GPU a recording found later).
func GPUIndexes(s *Store, info SourceInfo) []int {
	var out []int
	for _, g := range info.GPUs {
		out = append(out, g.Index)
	}
	for _, k := range s.Keys() {
		if i, ok := ParseGPUDevice(k.Device); ok {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Keys lists every series seen, in order of first appearance.
func (s *Store) Keys() []Key { return s.keys }

// Agg is one column of a series: the least, mean and greatest value of the
// samples it covers. All three are NaN for a gap.
type Agg struct {
	Min, Mean, Max float64
}

// Empty says whether the column is a gap.
func (a Agg) Empty() bool { return math.IsNaN(a.Mean) }

var emptyAgg = Agg{math.NaN(), math.NaN(), math.NaN()}

type colAcc struct {
	a    tiers.Agg
	last int64 // time the newest value in the column stops being current
}

// Series fills dst with key's values from `from` to `to`, one column per
// element, each column covering an equal share of the span. Columns line up
// with anything else drawn over the same span with the same width (the phase
// band, markers), which is why it resamples itself instead of letting a
// plotting library interpolate.
//
// It reads the coarsest tier whose buckets are no wider than a column and
// still hold `from`, so the work is proportional to len(dst). A sample
// covers the time until the next one: columns narrower than the sampling
// interval repeat the last value instead of showing holes, while a pause in
// sampling longer than twice the interval stays a gap.
func (s *Store) Series(key Key, from, to time.Time, dst []Agg) {
	id, _ := s.ID(key)
	s.SeriesOf(id, from, to, dst)
}

// SeriesOf is Series of the series id (Store.ID): a screen that draws the
// same series every frame looks its key up once.
func (s *Store) SeriesOf(sid SeriesID, from, to time.Time, dst []Agg) {
	for i := range dst {
		dst[i] = emptyAgg
	}
	id := int(sid)
	f, t := from.UnixNano(), to.UnixNano()
	if id < 0 || id >= len(s.keys) || len(dst) == 0 || t <= f || s.added == 0 {
		return
	}
	if cap(s.scratch) < len(dst) {
		s.scratch = make([]colAcc, len(dst))
	}
	acc := s.scratch[:len(dst)]
	clear(acc)
	width := float64(t-f) / float64(len(dst))
	col := func(at int64) int { return min(int(float64(at-f)/width), len(acc)-1) }
	var seed colAcc
	tier, src := s.pickTier(f, t, width), s
	if tier < 0 {
		if src = s.fineFor(f, t); src == nil {
			src, tier = s, s.pickTier(f, t, width) // none read back: the buckets
		}
	}
	if tier < 0 {
		hold := s.rawHold()
		r := &src.raw
		cur := r.Cursor(id)
		i := r.Search(f)
		if i > 0 {
			seed.a.Add(cur.Value(r.Phys(i - 1)))
			seed.last = r.Time(i-1) + hold
		}
		for ; i < r.Len(); i++ {
			at := r.Time(i)
			if at >= t {
				break
			}
			c := &acc[col(at)]
			c.a.Add(cur.Value(r.Phys(i)))
			c.last = at + hold
		}
	} else {
		b := s.tiers[tier]
		cur := b.Cursor(id)
		hold := b.Width * 3 / 2
		// Buckets count in the column that holds their middle.
		i := b.Search(f - b.Width/2)
		if i > 0 {
			seed.a = cur.At(b.Phys(i - 1))
			seed.last = b.Time(i-1) + b.Width + hold
		}
		for ; i < b.Len(); i++ {
			start := b.Time(i)
			mid := start + b.Width/2
			if mid >= t {
				break
			}
			a := cur.At(b.Phys(i))
			from := col(mid)
			if float64(b.Width) > width {
				// Buckets wider than the columns (a budget made the
				// coarsest tier so): each counts in every column it
				// covers, the first too.
				from = col(max(start, f))
			}
			for k := from; k <= col(mid); k++ {
				acc[k].a.Merge(a)
				acc[k].last = start + b.Width + hold
			}
		}
	}
	carry := seed
	for i := range acc {
		colStart := f + int64(float64(i)*width)
		if acc[i].a.N == 0 {
			if carry.a.N == 0 || carry.last < colStart {
				continue
			}
			acc[i] = carry
		} else {
			carry = acc[i]
		}
		a := acc[i].a
		dst[i] = Agg{Min: float64(a.Min), Mean: float64(a.Sum) / float64(a.N), Max: float64(a.Max)}
	}
}

// rawHold is how long a raw value stays current: twice the interval, so
// jitter does not punch holes but a stalled sampler does.
func (s *Store) rawHold() int64 {
	if s.interval <= 0 {
		return int64(2 * time.Second)
	}
	return 2 * s.interval
}

// pickTier chooses where Series reads: -1 for raw (or a stretch read
// back), else a bucket tier. It wants the coarsest tier no wider than a
// column that still holds `from`; failing that, the finest one that does.
func (s *Store) pickTier(from, to int64, colWidth float64) int {
	start := max(from, s.first)
	holds := func(oldest int64) bool { return oldest <= start }
	best := -2
	if holds(s.raw.Oldest()) || s.canRecall(from, to) {
		best = -1
	}
	for i, b := range s.tiers {
		if float64(b.Width) > colWidth {
			break
		}
		if holds(b.Oldest()) {
			best = i
		}
	}
	if best != -2 {
		return best
	}
	return s.olderTier(start)
}

// OldestRaw is the time of the oldest sample still held at full resolution.
func (s *Store) OldestRaw() time.Time {
	if s.raw.Len() == 0 {
		return time.Time{}
	}
	return time.Unix(0, s.raw.Oldest())
}

// Each calls fn with every raw value of key from `from` to `to` (inclusive),
// in time order, until fn returns false. Gaps (NaN) are included: a rule
// that counts time must see them. Where raw samples are gone it reads the
// finest buckets instead, one mean per bucket at the bucket's start.
func (s *Store) Each(key Key, from, to time.Time, fn func(at time.Time, v float64) bool) {
	s.EachAt(key, from, to, func(at int64, v float64) bool { return fn(time.Unix(0, at), v) })
}

// olderTier is the bucket tier that reads from f on where the raw tier
// does not reach back to f (EachAt, LastAt) or no tier as narrow as a
// column does (pickTier): the finest that reaches back to f, or failing
// that the coarsest, which reaches furthest.
func (s *Store) olderTier(f int64) int {
	for i, b := range s.tiers {
		if b.Oldest() <= f {
			return i
		}
	}
	return len(s.tiers) - 1
}

// EachAt is Each with each time in Unix nanoseconds: a reader of whole
// series (a report reads a day of 8 GPUs' in millions of values) makes no
// time.Time of each.
func (s *Store) EachAt(key Key, from, to time.Time, fn func(at int64, v float64) bool) {
	id, ok := s.ID(key)
	if !ok || s.added == 0 {
		return
	}
	b, blo, bhi, lo, hi := s.within(from.UnixNano(), to.UnixNano())
	if blo < bhi {
		cur := b.Cursor(int(id))
		for i := blo; i < bhi; i++ {
			if !fn(b.Time(i), cur.At(b.Phys(i)).Mean()) {
				return
			}
		}
	}
	r := &s.raw
	cur := r.Cursor(int(id))
	for i := lo; i < hi; i++ {
		if !fn(r.Time(i), float64(cur.Value(r.Phys(i)))) {
			return
		}
	}
}

// within is what EachAt and LastAt read from f to t, in time order: where
// the raw samples do not reach back to f, the buckets of olderTier before
// the oldest raw sample, b's [blo, bhi) (their means); then the raw
// samples, [lo, hi).
func (s *Store) within(f, t int64) (b *tiers.Bucket, blo, bhi, lo, hi int) {
	if oldest := s.raw.Oldest(); f < oldest {
		b = s.tiers[s.olderTier(f)]
		blo, bhi = b.Within(f, min(t, oldest-1))
	}
	lo, hi = s.raw.Within(f, t)
	return b, blo, bhi, lo, hi
}
