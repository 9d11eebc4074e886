package recordings

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/gputop-dev/gputop/recordings/format"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// Reader reads a recording: its header, then its samples in order from
// any time on. It holds one segment (five minutes of samples) in memory at
// a time, so a day-long file replays in a few megabytes. Damage costs the
// rest of the segment it is in: reading goes on at the next one, and Gaps
// says what was lost. It is not safe for concurrent use.
type Reader struct {
	path      string
	file      io.ReaderAt
	size      int64
	closer    io.Closer
	header    Header
	segments  []format.SegmentRef
	dataStart int64 // where the first segment should be
	dataEnd   int64 // where the segments' data ends
	// indexed says the file was closed cleanly and its index read.
	indexed bool
	index   format.Index
	// leadDamage is damage before the first segment found: most likely
	// the first segment's header, and the samples behind it lost.
	leadDamage error
	// headerDamage says what was wrong with the header, when its copy in
	// a segment was read instead.
	headerDamage string

	zdec      *zstd.Decoder
	comp      []byte // one segment, compressed
	data      []byte // one segment, decompressed
	dec       format.Decoder
	loaded    bool  // dec holds segment cur
	segErr    error // why segment cur's data stopped early, or what follows its frame
	segClosed bool  // an index or trailer follows segment cur's frame
	cur       int
	next      int   // the segment to load next
	seekTo    int64 // skip samples before this time (after SeekTime)
	seeking   bool
	good      time.Time // the last sample decoded whole
	ended     error     // what Read returns from now on, once the end was reported
	// hints are the snapshots passed since Open or the last SeekTime.
	hints []HintSnapshot
	// info is the source's description current with the last sample read:
	// the header's, or the last info record's.
	info timeline.SourceInfo
	// fresh says the next segment loaded is the first since Open,
	// SeekTime or damage: its carried snapshot is news.
	fresh bool

	// gaps are the damaged stretches passed since Open or the last
	// SeekTime.
	gaps []Gap
	// damage is what went wrong since the last good sample, if anything:
	// the next good sample closes its gap, which starts at damageFrom.
	damage     error
	damageAt   int64 // the start of the damaged segment
	damageFrom time.Time
	// cut says the file ends inside its last segment's data: kill -9 or a
	// full disk. indexLost says the writer closed it but its index is
	// damaged. Both are found when the last segment is read.
	cut, indexLost bool

	spanDone            bool
	spanFirst, spanLast time.Time

	// moved says the file holds its segments out of the order they were
	// written in: they are read in that order (FindSegmentsInOrder).
	moved     bool
	fileOrder []int64 // the segments' offsets in file order
	// behind counts the samples left out since Open or the last SeekTime
	// for coming at or before the one read before them (a clock stepped
	// back while recording); stepFrom and stepTo are the first such step.
	// The analysis and the store take samples in time order only: they
	// dropped them too, but silently.
	behind           int
	stepFrom, stepTo time.Time
	// crowded counts the samples left out for coming less than
	// timeline.MinInterval after the one before.
	crowded int
	// The file's keys and processes in all (totals.go).
	totals fileTotals
	last   time.Time // the last sample decoded, skipped or not
	lastOK bool
}

// Open opens a recording for reading. Its errors are one line: the file's
// own (missing, unreadable), or a *NotRecordingError, *VersionError or
// *DamagedError (a header cut short or damaged).
func Open(path string) (*Reader, error) {
	f, fi, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	r, err := newReader(f, fi.Size(), path)
	if err == nil {
		r.closer = f
		return r, nil
	}
	if cerr := f.Close(); cerr != nil {
		err = fmt.Errorf("%w (closing: %v)", err, cerr)
	}
	return nil, err
}

// newReader reads the header and finds the segments: from the index if the
// file was closed cleanly, else by scanning for segment headers. A damaged
// header is read from its copy in the first segment (headercopy.go).
func newReader(ra io.ReaderAt, size int64, path string) (*Reader, error) {
	h, dataStart, damage, herr := readHeader(ra, size, path)
	if herr != nil {
		at, ok := firstSegmentAt(ra, size)
		if damage == "" || !ok {
			return nil, herr
		}
		dataStart = at
	}
	zdec, err := newDecompressor()
	if err != nil {
		return nil, err
	}
	r := &Reader{path: path, file: ra, size: size, header: h, zdec: zdec, dataStart: dataStart}
	idx, end, err := format.ReadIndex(ra, dataStart, size)
	if errors.Is(err, format.ErrNoIndex) {
		r.dataEnd = size
		r.segments, r.moved, err = format.FindSegmentsInOrder(ra, dataStart, size)
	} else if err == nil {
		r.indexed, r.index, r.segments, r.dataEnd = true, idx, idx.Segments, end
	}
	if err == nil && herr != nil {
		if r.readHeaderCopy() {
			r.headerDamage = damage
		} else {
			err = herr
		}
	}
	if err != nil {
		zdec.Close()
		return nil, err
	}
	r.checkLead()
	r.startAt(0, math.MinInt64, false)
	return r, nil
}

// checkLead checks the bytes between the header and the first segment,
// where only skippable frames of a later minor version belong.
func (r *Reader) checkLead() {
	end := r.dataEnd
	if len(r.segments) > 0 {
		end = r.segments[0].Offset
	}
	closed, err := format.OtherFrames(r.file, r.dataStart, end)
	switch {
	case (len(r.segments) > 0 || r.indexed) && (closed || err != nil):
		r.leadDamage = format.ErrBetweenSegments // the first segment's header, most likely
	case r.indexed:
	case closed:
		r.indexLost = true
	case isCut(err):
		r.cut = true // cut inside the first segment's header
	case err != nil:
		r.leadDamage = err
	}
}

// Header returns the recording's header.
func (r *Reader) Header() Header { return r.header }

// Span returns the times of the first and last samples that can be read,
// both zero if there are none. A cleanly closed file answers from its
// index; otherwise the first and last segments are decoded.
func (r *Reader) Span() (first, last time.Time) {
	if r.indexed {
		if r.index.Samples == 0 || len(r.segments) == 0 {
			return time.Time{}, time.Time{}
		}
		return time.Unix(0, r.segments[0].First), time.Unix(0, r.index.Last)
	}
	if !r.spanDone {
		r.spanDone = true
		// A reader of its own buffers, so the read position stays put.
		side := &Reader{path: r.path, file: r.file, segments: r.segments, dataEnd: r.dataEnd, zdec: r.zdec}
		for i := 0; i < len(r.segments) && r.spanFirst.IsZero(); i++ {
			r.spanFirst = side.goodIn(i, false)
		}
		for i := len(r.segments) - 1; i >= 0 && r.spanLast.IsZero(); i-- {
			r.spanLast = side.goodIn(i, true)
		}
	}
	return r.spanFirst, r.spanLast
}

// goodIn is the time of segment i's first good sample, or with last its
// last one (damage ends them); zero if it has none.
func (r *Reader) goodIn(i int, last bool) (t time.Time) {
	r.load(i)
	for {
		s, ok, err := r.dec.Next()
		if !ok || err != nil {
			return t
		}
		t = s.At
		if !last {
			return t
		}
	}
}

// SeekTime makes the next Read return the first sample at or after t. It
// starts decoding at the segment that holds t, found by its first time, so
// it reads at most one segment more than it returns. Hints and Gaps start
// again from t: the snapshot current at t, and damage that loses samples
// at or after t.
func (r *Reader) SeekTime(t time.Time) error {
	if r.file == nil {
		return errClosed
	}
	ns := clampNano(t)
	i := sort.Search(len(r.segments), func(i int) bool { return r.segments[i].First > ns }) - 1
	r.startAt(max(i, 0), ns, true)
	return nil
}

// startAt makes reading start at segment i, skipping samples before ns
// if seeking.
func (r *Reader) startAt(i int, ns int64, seeking bool) {
	r.next = i
	r.loaded, r.ended, r.seeking, r.seekTo, r.good = false, nil, seeking, ns, time.Time{}
	r.hints, r.fresh, r.info = nil, true, r.header.Info
	r.gaps, r.damage = nil, nil
	r.behind, r.crowded, r.lastOK = 0, 0, false
	if i == 0 && r.leadDamage != nil {
		r.noteDamage(r.leadDamage, r.dataStart)
	}
}

// Gaps returns the damaged stretches Read has passed since Open or the
// last SeekTime(t) (those that lose samples at or after t), in order. A
// gap is known once Read returns the first good sample after it, or the
// end; the *DamagedError that Read returns at the end holds them all.
// The slice is shared, like Hints', and must not be modified.
func (r *Reader) Gaps() []Gap { return r.gaps[:len(r.gaps):len(r.gaps)] }

// Info returns the source's description current with the last sample
// Read returned: the header's Info, updated by every info record (format
// 1.2) written before that sample; after Read returns the end, the
// latest in the file. After SeekTime(t), once Read has returned the
// sample at t, it is the description current at t.
func (r *Reader) Info() timeline.SourceInfo { return r.info }

// Hints returns the hint snapshots recorded (format 1.1) among what Read
// has passed, in the order they were written; since the last SeekTime(t),
// from the snapshot current at t on. Read reads on past a sample to the
// snapshots stamped with its time, so after Read returns a sample, Hints
// holds every snapshot current with it; after Read returns the end, every
// snapshot in the file. The last one is the recorded verdict; HintsAt
// finds the one current at a time. A 1.0 file has none.
//
// The slice is shared, not copied, so a replay may ask at every frame: it
// stays as it is when the Reader reads on, and must not be modified.
func (r *Reader) Hints() []HintSnapshot { return r.hints[:len(r.hints):len(r.hints)] }

// takeHints moves the snapshots the decoder found into r.hints. While
// seeking, it keeps only the one current at the target and those after.
func (r *Reader) takeHints() {
	if len(r.dec.Hints) == 0 {
		return
	}
	r.hints = append(r.hints, r.dec.Hints...)
	clear(r.dec.Hints)
	r.dec.Hints = r.dec.Hints[:0]
	if r.seeking {
		i := len(r.hints) - 1
		for i > 0 && r.hints[i].At.UnixNano() > r.seekTo {
			i--
		}
		r.hints = r.hints[i:] // not in place: the caller may hold the slice
	}
}

// clampNano is t in Unix nanoseconds, saturated outside 1678-2262.
func clampNano(t time.Time) int64 {
	switch {
	case t.Before(time.Unix(0, math.MinInt64)):
		return math.MinInt64
	case t.After(time.Unix(0, math.MaxInt64)):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// Read returns the next sample. Damage (a changed byte, a bad segment
// header) costs the good samples after it in its segment; Read goes on
// with the next segment and notes the gap. At the end it returns io.EOF
// for a cleanly closed, undamaged file, and otherwise once a
// *DamagedError (gaps, a file cut short or not closed, damage up to the
// end), then io.EOF.
func (r *Reader) Read() (timeline.Sample, error) {
	for {
		if r.ended != nil {
			return timeline.Sample{}, r.ended
		}
		if r.file == nil {
			return timeline.Sample{}, errClosed
		}
		if !r.loaded {
			if r.next >= len(r.segments) {
				r.ended = io.EOF // after the end, reported once: finish's error, or io.EOF
				return timeline.Sample{}, cmp.Or(r.finish(), io.EOF)
			}
			r.load(r.next)
			r.totals.keysSeen = 0 // a segment defines its keys anew
			r.dec.KeepCarried, r.fresh = r.fresh, false
			r.next++
		}
		s, ok, err := r.dec.Next()
		r.takeHints()
		if r.dec.Info != nil {
			r.info, r.dec.Info = *r.dec.Info, nil
		}
		if ok && r.lastOK && !s.At.After(r.last) {
			if r.behind == 0 {
				r.stepFrom, r.stepTo = r.last, s.At
			}
			r.behind++
			continue
		}
		if ok && r.lastOK && s.At.Sub(r.last) < timeline.MinInterval {
			// Closer than any source samples: 30 million samples a
			// microsecond apart (482 KB) took a report 79 s.
			r.crowded++
			continue
		}
		if ok {
			r.totals.bound(&s, &r.dec)
			r.last, r.lastOK = s.At, true
			if r.damage != nil {
				r.closeGap(s.At)
			}
			r.good = s.At
			if r.seeking && s.At.UnixNano() < r.seekTo {
				continue
			}
			r.seeking = false
			return s, nil
		}
		r.loaded = false
		if err == nil || (errors.Is(err, format.ErrCutShort) && r.segErr != nil) {
			err = r.segErr // the records stop where decompressing did
		}
		last := r.lastInFile(r.cur)
		switch {
		case err == nil:
			r.indexLost = r.indexLost || (last && r.segClosed && !r.indexed)
		case last && !r.indexed && isCut(err):
			r.cut = true
		default:
			r.noteDamage(err, r.segments[r.cur].Offset)
		}
	}
}

// lastInFile says whether segment i is the last in the file, where a
// crash cuts one short: the last read, unless the file had them out of
// order.
func (r *Reader) lastInFile(i int) bool { return r.endOf(i) == r.dataEnd }

// endOf is where segment i's bytes end: where the next in the file starts
// (the next read, unless the file had them out of order), or where the
// segments' data does.
func (r *Reader) endOf(i int) int64 {
	if r.fileOrder == nil {
		r.fileOrder = make([]int64, len(r.segments))
		for k, s := range r.segments {
			r.fileOrder[k] = s.Offset
		}
		slices.Sort(r.fileOrder)
	}
	k, _ := slices.BinarySearch(r.fileOrder, r.segments[i].Offset)
	if k+1 < len(r.fileOrder) {
		return r.fileOrder[k+1]
	}
	return r.dataEnd
}

// isCut says whether err is data ending early: at the end of a file, what
// kill -9 or a full disk leaves.
func isCut(err error) bool {
	return errors.Is(err, format.ErrCutShort) || errors.Is(err, io.ErrUnexpectedEOF)
}

// noteDamage opens a gap at the last good sample, unless one is open: the
// damage that opened it goes on. The next segment's carried snapshot is
// news, since the snapshots written in between are lost.
func (r *Reader) noteDamage(err error, at int64) {
	if r.damage == nil {
		r.damage, r.damageAt, r.damageFrom = err, at, r.good
	}
	r.fresh = true
}

// closeGap closes the open gap at the first good sample after it. While
// seeking, a gap that ends before the target loses nothing asked for.
func (r *Reader) closeGap(to time.Time) {
	if !r.seeking || to.UnixNano() >= r.seekTo {
		r.gaps = append(r.gaps, Gap{From: r.damageFrom, To: to})
	}
	r.damage = nil
}

// finish says how reading ended: nil for a clean end, else the
// *DamagedError with every gap and what is wrong at the end.
func (r *Reader) finish() error {
	e := &DamagedError{Path: r.path, Good: r.good, Interval: r.header.Info.Interval, Header: r.headerDamage}
	switch {
	case r.damage != nil:
		r.gaps = append(r.gaps, Gap{From: r.damageFrom})
		e.Reason, e.Offset = "damaged ("+damageText(r.damage)+")", r.damageAt
		r.damage = nil
	case r.indexed:
	case r.cut:
		e.Reason = "cut short"
	case r.indexLost:
		e.Reason = "index damaged"
	default:
		e.Reason = "not closed (gputop stopped before closing it)"
	}
	if r.moved {
		e.Order = append(e.Order, "segments out of order in the file: read in the order written")
	}
	if r.behind > 0 {
		e.Order = append(e.Order, fmt.Sprintf("%s at or before the one before left out (the clock went back: %s came after %s)",
			units.Count(r.behind, "sample"), r.stepTo.UTC().Format(time.DateTime), r.stepFrom.UTC().Format(time.DateTime)))
	}
	e.Order = append(e.Order, r.totals.notes()...)
	if r.crowded > 0 {
		e.Order = append(e.Order, fmt.Sprintf("%s less than %v after the one before left out", units.Count(r.crowded, "sample"), timeline.MinInterval))
	}
	if e.Reason == "" && len(r.gaps) == 0 && e.Header == "" && len(e.Order) == 0 {
		return nil
	}
	e.Gaps = slices.Clone(r.gaps)
	if len(r.segments) > 0 { // the first sample's day is the last good one's
		e.clock = time.Unix(0, r.segments[0].First).Format(time.DateOnly) == r.good.Format(time.DateOnly)
	}
	return e
}

// damageText says in a few words what damage was found.
func damageText(err error) string {
	if isCut(err) {
		return "data ends early"
	}
	return err.Error()
}

// Close closes the file.
func (r *Reader) Close() error {
	if r.file == nil {
		return nil
	}
	r.file = nil
	if r.zdec != nil {
		r.zdec.Close()
	}
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}
