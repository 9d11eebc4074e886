package format

import (
	"cmp"
	"errors"
	"hash/crc32"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// ErrCutShort says a segment's data ends inside a chunk: the writer was
// stopped (kill -9, a full disk) before it finished writing it.
var ErrCutShort = errors.New("cut short")

// ErrBadCheck says a chunk's bytes do not match their CRC.
var ErrBadCheck = errors.New("checksum mismatch")

// ErrNeedMore says a streaming decoder holds the start of a chunk whose
// check has not arrived yet: more data is on its way (stream.go).
var ErrNeedMore = errors.New("chunk not complete yet")

// Decoder turns a segment's decompressed records back into samples.
// It only decodes chunks whose check record matches, so a torn or damaged
// tail yields every sample before it and then an error, never garbage.
type Decoder struct {
	rest  []byte // records not yet checked
	chunk cursor // checked records not yet decoded
	// scanned is how much of rest nextChunk has read through, whole
	// records none of which is a check, and scanCRC their CRC-32C: a
	// stream's chunk that arrives in pieces is read once, not again with
	// every piece.
	scanned int
	scanCRC uint32
	keys    []keyKind
	values  []valueState
	layout  []int
	// cols name the values of d.layout; nil once a sample gives a new
	// layout, until its values are read. Columns the same as the last
	// ones are the last ones (a segment defines its keys again), so a
	// stage downstream sees one list of keys as one.
	cols      *timeline.Columns
	lastCols  *timeline.Columns
	probes    []probeDevice
	probeRows []int
	tookStats []riceStats
	lastAt    int64
	lastStep  int64
	samples   int
	// lastProgress is the previous progress reading's time (progress.go).
	lastProgress int64

	// What the segment has decoded, against the bounds of format.go: the
	// keys and probes defined (one defined twice is damage), the values
	// and statuses (decoded), and the lists' elements in bits.
	keySet   map[keyKind]struct{}
	probeSet map[probeDevice]struct{}
	decoded  int
	listBits int

	// pending collects what the records before a sample record say about it.
	pending  timeline.Sample
	attached bool
	exc      []exception // scratch: a sample's exceptions
	// spare are values handed back (Recycle) for the next sample.
	spare []float64
	// spareProbes are probe statuses handed back (RecycleProbes).
	spareProbes []timeline.ProbeStatus
	hasErr      []bool // scratch: which statuses have an error text

	// hints are the snapshots decoded since the reader last took them.
	Hints []HintSnapshot
	// keepCarried says to keep a snapshot the writer repeated at the start
	// of the segment: only when the reader did not read the segment before.
	KeepCarried bool
	strings     map[string]string // the texts read in the segment (sharedText)
	plain       map[string]string // the strings read in the segment (sharedString)
	// held is trouble met while reading ahead after a sample, for the next
	// call to return: the sample was good.
	held error
	// info is the source's description from the last info record, once
	// current: with the sample returned, or at the end of the data. The
	// reader takes it. nextInfo is one read ahead, current from the next
	// sample on.
	Info, nextInfo *timeline.SourceInfo
	// streaming says the data is still arriving (a stream, not a file):
	// records without their check yet are kept for more (feed), not a
	// cut.
	Streaming bool
}

// Reset starts the decoder on a segment's decompressed records (nil for a
// stream, whose records come through Feed).
func (d *Decoder) Reset(data []byte) {
	*d = Decoder{
		rest:        data,
		keys:        d.keys[:0],
		values:      d.values[:0],
		layout:      d.layout[:0],
		probes:      d.probes[:0],
		probeRows:   d.probeRows[:0],
		tookStats:   d.tookStats[:0],
		exc:         d.exc[:0],
		hasErr:      d.hasErr[:0],
		Hints:       d.Hints[:0],
		strings:     d.strings,
		plain:       d.plain,
		keySet:      d.keySet,
		probeSet:    d.probeSet,
		Streaming:   d.Streaming,
		spare:       d.spare,
		lastCols:    d.lastCols,
		spareProbes: d.spareProbes,
	}
	clear(d.strings)
	clear(d.plain)
	clear(d.keySet)
	clear(d.probeSet)
}

// Next returns the segment's next sample. At the end of the data it
// returns ok == false with a nil error, or with the error that stopped it
// (ErrCutShort, ErrBadCheck, ErrCorrupt).
func (d *Decoder) Next() (s timeline.Sample, ok bool, err error) {
	s, ok, err = d.read()
	if !ok && d.nextInfo != nil {
		d.Info, d.nextInfo = d.nextInfo, nil // no sample follows it here
	}
	return s, ok, err
}

func (d *Decoder) read() (s timeline.Sample, ok bool, err error) {
	if d.held != nil {
		err, d.held = d.held, nil
		return s, false, err
	}
	for {
		if len(d.chunk.b) == 0 {
			if d.attached {
				return s, false, ErrCorrupt // a chunk always ends with a sample
			}
			if err := d.nextChunk(); err != nil || len(d.chunk.b) == 0 {
				return s, false, err
			}
		}
		typ := d.chunk.byte()
		c := cursor{b: d.chunk.bytes(d.chunk.uvarint())} // the record's payload
		if d.chunk.err != nil {
			return s, false, ErrCorrupt
		}
		switch typ {
		case RecKeyDef:
			kind := timeline.Kind(c.byte())
			k := keyKind{timeline.Key{Name: c.string(), Device: c.string()}, kind}
			if err := defineOnce(&d.keySet, k, len(d.keys)); err != nil {
				return timeline.Sample{}, false, err
			}
			d.keys = append(d.keys, k)
			d.values = append(d.values, valueState{counter: kind == timeline.Counter})
		case recProbeDef:
			p := probeDevice{c.string(), c.string()}
			if err := defineOnce(&d.probeSet, p, len(d.probes)); err != nil {
				return timeline.Sample{}, false, err
			}
			d.probes = append(d.probes, p)
			d.tookStats = append(d.tookStats, riceStats{})
		case recStatus:
			d.pending.Probes = d.readStatuses(&c)
			d.attached = true
		case recProcesses:
			d.pending.Processes = d.readProcesses(&c)
			d.attached = true
		case recMarkers:
			d.pending.Markers = d.readMarkers(&c)
			d.attached = true
		case recProgress:
			d.pending.Progress = d.readProgress(&c)
			d.attached = true
		case recOwners:
			d.pending.Owners = d.readOwners(&c)
			d.attached = true
		case RecSample:
			s = d.pending
			d.pending, d.attached = timeline.Sample{}, false
			d.readSample(&c, &s)
			if c.err != nil {
				return timeline.Sample{}, false, c.err
			}
			if d.nextInfo != nil {
				d.Info, d.nextInfo = d.nextInfo, nil
			}
			d.hintsAfterSample()
			return s, true, nil
		case recHint:
			d.addHints(&c)
		case RecInfo:
			d.addInfo(&c)
		default:
			// A record type from a newer minor version: skip it.
		}
		if c.err != nil {
			return timeline.Sample{}, false, c.err
		}
	}
}

// hintsAfterSample reads the hint records right after a sample, across a
// chunk boundary if need be. The writer puts a snapshot right after the
// sample it is stamped with, so whoever holds a sample holds the hints
// current with it too. An info record may come first: it is read ahead,
// current from the next sample on. Trouble met on the way is held for the
// next call: the sample before it is good.
func (d *Decoder) hintsAfterSample() {
	for {
		if len(d.chunk.b) == 0 {
			if err := d.nextChunk(); err != nil {
				if err != ErrNeedMore { // a stream: the rest comes with its chunk
					d.held = err
				}
				return
			}
		}
		if len(d.chunk.b) == 0 || (d.chunk.b[0] != recHint && d.chunk.b[0] != RecInfo) {
			return
		}
		typ := d.chunk.byte()
		c := cursor{b: d.chunk.bytes(d.chunk.uvarint())} // the record's payload
		switch {
		case d.chunk.err != nil:
		case typ == recHint:
			d.addHints(&c)
		default:
			d.addInfo(&c)
		}
		if d.chunk.err != nil || c.err != nil {
			d.held = cmp.Or(c.err, ErrCorrupt)
			return
		}
	}
}

// addInfo decodes an info record: the description current from the next
// sample on. A record that does not parse is damage, as any record that
// passed its check and does not decode: it fails c.
func (d *Decoder) addInfo(c *cursor) {
	info, err := parseInfo(c.b)
	if err != nil {
		c.fail()
		return
	}
	d.nextInfo = &info
}

// addHints decodes a hint record into d.hints. A snapshot the writer
// carried over from the segment before is kept only by a reader that
// starts here: one that read on from there holds it already.
func (d *Decoder) addHints(c *cursor) {
	snap, carried := d.readHints(c)
	if c.err == nil && (!carried || d.KeepCarried) {
		d.Hints = append(d.Hints, snap)
	}
}

// nextChunk finds the next check record, verifies the records before it
// and makes them the current chunk. A clean end of data leaves the chunk
// empty with a nil error. It reads each record once: on a stream, a
// chunk that arrives in pieces is read on from where the last piece
// ended, with its CRC so far, so decoding stays linear in the data.
func (d *Decoder) nextChunk() error {
	from := d.scanned // d.scanCRC covers d.rest[:from]
	for d.scanned < len(d.rest) {
		scan := cursor{b: d.rest[d.scanned:]}
		typ := scan.byte()
		n := scan.uvarint()
		if n > MaxSegmentBytes {
			return ErrCorrupt // longer than any segment: no more data would complete it
		}
		payload := scan.bytes(n)
		if scan.err != nil {
			break // a record runs past the end of the data
		}
		end := len(d.rest) - len(scan.b)
		if typ != RecCheck {
			d.scanned = end
			continue
		}
		if len(payload) != 4 {
			return ErrCorrupt
		}
		start := d.scanned
		want := uint32(payload[0]) | uint32(payload[1])<<8 | uint32(payload[2])<<16 | uint32(payload[3])<<24
		if crc32.Update(d.scanCRC, Castagnoli, d.rest[from:start]) != want {
			return ErrBadCheck
		}
		d.chunk = cursor{b: d.rest[:start]}
		d.rest, d.scanned, d.scanCRC, from = d.rest[end:], 0, 0, 0
		if start == 0 {
			continue // an empty chunk: keep looking
		}
		return nil
	}
	if len(d.rest) > 0 {
		if d.Streaming {
			d.scanCRC = crc32.Update(d.scanCRC, Castagnoli, d.rest[from:d.scanned])
			return ErrNeedMore
		}
		d.rest = nil
		return ErrCutShort // records with no check after them, or cut inside one
	}
	return nil
}

// Feed appends data that arrived on a stream. Records already taken
// into the current chunk stay where they are: append copies only what is
// not yet checked when it must grow, so memory holds about one chunk.
func (d *Decoder) Feed(data []byte) {
	d.rest = append(d.rest, data...)
}

func (d *Decoder) readSample(c *cursor, s *timeline.Sample) {
	if d.samples == 0 {
		d.lastAt = c.varint()
	} else {
		d.lastStep += c.varint()
		d.lastAt += d.lastStep
	}
	d.samples++
	s.At = time.Unix(0, d.lastAt)
	var changed bool
	if d.layout, changed = d.readLayout(c, d.layout, len(d.keys)); changed {
		d.cols = nil
	}
	d.decoded += len(d.layout)
	if d.samples > MaxSegmentSamples || d.decoded > maxSegmentValues {
		c.failWith(ErrPastBounds)
	}
	if c.err != nil || len(d.layout) == 0 {
		return
	}
	if s.Values = d.readValues(c); s.Values != nil {
		s.Columns = d.columns()
	}
}

// columns are the columns of d.layout.
func (d *Decoder) columns() *timeline.Columns {
	if d.cols != nil {
		return d.cols
	}
	keys, kinds := make([]timeline.Key, len(d.layout)), make([]timeline.Kind, len(d.layout))
	for i, id := range d.layout {
		keys[i], kinds[i] = d.keys[id].key, d.keys[id].kind
	}
	d.cols = timeline.NewColumns(keys, kinds)
	if d.cols.Same(d.lastCols) {
		d.cols = d.lastCols
	}
	d.lastCols = d.cols
	return d.cols
}

// readValues reads the values of a sample whose layout is d.layout: the
// exceptions, then the residuals' bits.
func (d *Decoder) readValues(c *cursor) []float64 {
	n := c.count(2) // an exception takes at least two bytes
	exc := d.exc[:0]
	next := 0
	for range n {
		gap := c.uvarint()
		if gap >= uint64(len(d.layout)-next) {
			c.fail()
			return nil
		}
		exc = append(exc, readException(c, next+int(gap)))
		next += int(gap) + 1
	}
	d.exc = exc
	if c.err != nil {
		return nil
	}
	br := bitReader{b: c.b}
	out := slices.Grow(d.spare[:0], len(d.layout))[:len(d.layout)]
	d.spare = nil
	for i, id := range d.layout {
		st := &d.values[id]
		counter := st.counter
		var v float64
		ok := true
		if len(exc) > 0 && exc[0].index == i {
			v, ok = st.apply(exc[0], counter)
			exc = exc[1:]
		} else if st.quiet() && br.n > 0 && br.acc>>(br.n-1)&1 == 0 {
			// A residual of 0 at k = 0, one bit: as decodeValue reads it,
			// without the call (half a day's values).
			br.n--
			st.rice.addAt(0, 0)
			v = st.predicted(0, 0, counter) // st.at, unless a counter steps
		} else {
			v, ok = st.decodeValue(&br, counter)
		}
		if !ok || br.short {
			c.fail()
			return nil
		}
		out[i] = v
	}
	c.b = br.rest(c.b)
	return out
}

// Recycle hands back the values of a sample the caller is done with (no
// Deriver or store holds them): the next sample is decoded into them, not
// into new ones. A day of 8 GPUs is 400 MB of values otherwise, all of it
// garbage for the collector.
func (d *Decoder) Recycle(v []float64) {
	if cap(v) > cap(d.spare) {
		d.spare = v[:0]
	}
}

// RecycleProbes hands back the probe statuses of a sample the caller is
// done with: the next sample's are decoded into them (a day of 8 GPUs
// made 57 MB of them otherwise).
func (d *Decoder) RecycleProbes(p []timeline.ProbeStatus) {
	if cap(p) > cap(d.spareProbes) {
		d.spareProbes = p[:0]
	}
}

// readLayout reads a list of ids written by appendLayout, each below max:
// prev where it says the list is as before. It says whether it read a
// list of its own (into prev's array).
func (d *Decoder) readLayout(c *cursor, prev []int, max int) ([]int, bool) {
	n := c.uvarint()
	if n == 0 {
		return prev, false
	}
	if n-1 > uint64(len(c.b)) { // every id takes at least a byte
		c.fail()
		return prev, false
	}
	ids := prev[:0]
	next := int64(0)
	for range n - 1 {
		id := next + c.varint()
		if id < 0 || id >= int64(max) {
			c.fail()
			return ids, true
		}
		ids = append(ids, int(id))
		next = id + 1
	}
	return ids, true
}

// HeaderCopy reads the copy of the header that opens the segment the
// decoder was reset to: the first record of its first chunk, which must be
// whole and check.
func (d *Decoder) HeaderCopy() (Header, bool) {
	if err := d.nextChunk(); err != nil {
		return Header{}, false
	}
	c := d.chunk
	if c.byte() != RecHeader {
		return Header{}, false
	}
	body := c.bytes(c.uvarint())
	if c.err != nil {
		return Header{}, false
	}
	h, err := parseHeaderBody(body)
	if err != nil || h.FormatVersion.Major != FormatVersion.Major {
		return Header{}, false
	}
	return h, true
}
