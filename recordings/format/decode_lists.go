package format

import (
	"math"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// What a segment's records list, beside its metric values (decode.go): the
// statuses, processes and markers that come before a sample record, and
// the bounds every list is held to (format.go).

// defineOnce adds a key or probe to the set of those a segment defined,
// making the set if need be. A second definition is damage (the writer
// defines each once), one past MaxSegmentKeys more than a segment holds.
func defineOnce[K comparable](set *map[K]struct{}, k K, defined int) error {
	if *set == nil {
		*set = make(map[K]struct{})
	}
	if _, twice := (*set)[k]; twice {
		return ErrCorrupt
	}
	if defined >= MaxSegmentKeys {
		return ErrPastBounds
	}
	(*set)[k] = struct{}{}
	return nil
}

func (d *Decoder) readStatuses(c *cursor) []timeline.ProbeStatus {
	d.probeRows, _ = d.readLayout(c, d.probeRows, len(d.probes))
	if d.decoded += len(d.probeRows); d.decoded > maxSegmentValues {
		c.failWith(ErrPastBounds)
	}
	if c.err != nil || len(d.probeRows) == 0 {
		return nil
	}
	out := slices.Grow(d.spareProbes[:0], len(d.probeRows))[:len(d.probeRows)]
	d.spareProbes = nil
	hasErr := d.hasErr[:0]
	for i, id := range d.probeRows {
		head := c.uvarint()
		if head>>1 > math.MaxUint8 {
			c.fail()
		}
		out[i] = timeline.ProbeStatus{Probe: d.probes[id].probe, Device: d.probes[id].device, State: timeline.ProbeState(head >> 1)}
		hasErr = append(hasErr, head&1 != 0)
	}
	d.hasErr = hasErr
	for i := range out {
		if hasErr[i] {
			out[i].Err = c.text()
		}
	}
	br := bitReader{b: c.b}
	for i, id := range d.probeRows {
		stats := &d.tookStats[id]
		u := br.rice(stats.k())
		stats.add(u)
		out[i].Took = time.Duration(unzigzag(u)) * time.Microsecond
	}
	if br.short {
		// Cut short: no bytes follow the bits to go back to.
		c.fail()
		return nil
	}
	c.b = br.rest(c.b)
	return out
}

func (d *Decoder) readProcesses(c *cursor) []timeline.Process {
	n := c.count(9) // the smallest process takes nine bytes
	if !d.chargeList(c, n, processBits) {
		return nil
	}
	out := make([]timeline.Process, n)
	for i := range out {
		out[i] = timeline.Process{
			GPU:     int(c.varint()),
			PID:     int(c.varint()),
			User:    d.sharedText(c),
			Command: d.sharedText(c),
			GPUMem:  readLoneValue(c),
			Util:    readLoneValue(c),
			CPU:     readLoneValue(c),
			RSS:     readLoneValue(c),
			InJob:   c.byte() == 1,
		}
	}
	readProcessDetails(c, out, d)
	return out
}

func (d *Decoder) readMarkers(c *cursor) []timeline.Marker {
	n := c.count(3)
	if n == 0 || !d.chargeList(c, n, markerBits) {
		return nil
	}
	out := make([]timeline.Marker, n)
	for i := range out {
		out[i] = timeline.Marker{At: time.Unix(0, c.varint()), Text: c.text(), Origin: c.text()}
	}
	return out
}

// chargeList counts a list of n elements of the given bits against the
// segment's bounds: past MaxListLen or maxSegmentListBits, it fails c.
func (d *Decoder) chargeList(c *cursor, n, bits int) bool {
	d.listBits += n * bits
	if n > MaxListLen || d.listBits > maxSegmentListBits {
		c.failWith(ErrPastBounds)
		return false
	}
	return true
}
