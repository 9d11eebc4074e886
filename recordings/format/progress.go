package format

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// recProgress is the sample's readings of the job's progress (within 1.4;
// readers from before skip the record type).
const recProgress = 11

// progressBits are the fewest bits a progress reading takes: time, flags,
// unit.
const progressBits = 3 * 8

// Flags of a progress reading.
const (
	progressDone   = 1 << 0 // a lone value: the work done
	progressRate   = 1 << 1 // a lone value: the rate stated
	progressMark   = 1 << 2 // origin "mark"; else "job", unless progressOrigin
	progressOrigin = 1 << 3 // an origin string follows the unit
)

// appendProgress appends the record of a sample's progress readings: a
// uvarint count, then for each the varint nanoseconds since the segment's
// previous reading (the first counts from 0: Unix time), a flags byte, the
// unit, the origin where it is neither "job" nor "mark", and the done and
// rate as lone values where present.
func (e *Encoder) appendProgress(b []byte, ps []timeline.Progress) []byte {
	p := binary.AppendUvarint(e.payload[:0], uint64(len(ps)))
	for _, r := range ps {
		at := r.At.UnixNano()
		p = binary.AppendVarint(p, at-e.lastProgress)
		e.lastProgress = at
		var flags byte
		if r.Done == r.Done { // not NaN
			flags |= progressDone
		}
		if r.Rate == r.Rate {
			flags |= progressRate
		}
		switch r.Origin {
		case "job":
		case "mark":
			flags |= progressMark
		default:
			flags |= progressOrigin
		}
		p = append(p, flags)
		p = appendString(p, r.Unit)
		if flags&progressOrigin != 0 {
			p = appendString(p, r.Origin)
		}
		if flags&progressDone != 0 {
			p = appendLoneValue(p, r.Done)
		}
		if flags&progressRate != 0 {
			p = appendLoneValue(p, r.Rate)
		}
	}
	return e.record(b, recProgress, p)
}

// readProgress reads a progress record.
func (d *Decoder) readProgress(c *cursor) []timeline.Progress {
	n := c.count(3)
	if n == 0 || !d.chargeList(c, n, progressBits) {
		return nil
	}
	out := make([]timeline.Progress, n)
	for i := range out {
		d.lastProgress += c.varint()
		flags := c.byte()
		r := timeline.Progress{At: time.Unix(0, d.lastProgress), Unit: c.text(), Origin: "job",
			Done: math.NaN(), Rate: math.NaN()}
		switch {
		case flags&progressOrigin != 0:
			r.Origin = c.text()
		case flags&progressMark != 0:
			r.Origin = "mark"
		}
		if flags&progressDone != 0 {
			r.Done = readLoneValue(c)
		}
		if flags&progressRate != 0 {
			r.Rate = readLoneValue(c)
		}
		out[i] = r
	}
	return out
}
