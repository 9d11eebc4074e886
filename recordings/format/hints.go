package format

import (
	"encoding/binary"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// A recording keeps what gputop said about the job while it ran (format
// 1.1, record type 7), so a postmortem reads the verdict of the gputop
// that watched the job, even if a later gputop's rules differ. Each record
// is a snapshot: the whole set of hints shown from its time on, not a
// change to the one before, so any one of them can be read alone. Since
// 1.3 a record ends with what a hint says of itself beyond that: whether
// it is a first reading, whether it still holds, and its episodes.

// HintSnapshot is the set of hints gputop showed from At on, until the
// next snapshot: what the live view listed, or, written once at the end by
// gputop record and run, the hints over the whole run.
type HintSnapshot struct {
	// At is the time of the sample the hints were current with.
	At time.Time
	// Hints is the whole set, in the order it was shown; nil when gputop
	// showed none (the set had become empty).
	Hints []timeline.Hint
}

// HintsCarried flags a hint record the writer repeated at the start of a
// segment: the snapshot still current there, so that a seek into the
// segment finds it without reading the segments before.
const HintsCarried = 1

// AppendHints appends a hint record: a flags byte (HintsCarried), varint
// Unix nanoseconds of the snapshot, uvarint count, and for each hint its
// id string, severity byte, uvarint GPU count and varint GPUs, varint
// start − at and end − start in nanoseconds (modulo 2^64), evidence and
// suggestion strings, and its confidence as a lone value. The strings
// repeat from one snapshot to the next; zstd takes a repeat for a few
// bytes (docs/recording-format.md has the measurement).
//
// Since 1.3, where any hint is provisional, ongoing or has episodes, the
// hints are followed by each one's standing and episodes (appendStanding).
// Older readers stop after the hints and never see it; without it the
// record is as 1.2 wrote it.
func (e *Encoder) AppendHints(b []byte, at int64, flags byte, hints []timeline.Hint) []byte {
	p := append(e.payload[:0], flags)
	p = binary.AppendVarint(p, at)
	p = binary.AppendUvarint(p, uint64(len(hints)))
	for i := range hints {
		h := &hints[i]
		start, end := h.Start.UnixNano(), h.End.UnixNano()
		p = appendString(p, h.ID)
		p = append(p, byte(h.Severity))
		p = binary.AppendUvarint(p, uint64(len(h.GPUs)))
		for _, g := range h.GPUs {
			p = binary.AppendVarint(p, int64(g))
		}
		p = binary.AppendVarint(p, start-at)
		p = binary.AppendVarint(p, end-start)
		p = appendString(p, h.Evidence)
		p = appendString(p, h.Suggestion)
		p = appendLoneValue(p, h.Confidence)
	}
	if slices.ContainsFunc(hints, hasStanding) {
		p = appendStanding(p, at, hints)
	}
	return e.record(b, recHint, p)
}

// hasStanding says whether a hint has anything only 1.3 keeps.
func hasStanding(h timeline.Hint) bool { return h.Provisional || h.Ongoing || len(h.Episodes) > 0 }

// Standing flags, one byte per hint and per episode.
const (
	standingProvisional = 1 << iota
	standingOngoing
)

// appendStanding appends, for each hint in order, a flags byte
// (provisional, ongoing), a uvarint episode count, and for each episode:
// varint start − at and end − start in nanoseconds, uvarint GPU count and
// varint GPUs, severity byte, evidence string, flags byte (provisional).
func appendStanding(p []byte, at int64, hints []timeline.Hint) []byte {
	for i := range hints {
		h := &hints[i]
		var flags byte
		if h.Provisional {
			flags |= standingProvisional
		}
		if h.Ongoing {
			flags |= standingOngoing
		}
		p = append(p, flags)
		p = binary.AppendUvarint(p, uint64(len(h.Episodes)))
		for _, ep := range h.Episodes {
			start := ep.Start.UnixNano()
			p = binary.AppendVarint(p, start-at)
			p = binary.AppendVarint(p, ep.End.UnixNano()-start)
			p = binary.AppendUvarint(p, uint64(len(ep.GPUs)))
			for _, g := range ep.GPUs {
				p = binary.AppendVarint(p, int64(g))
			}
			p = append(p, byte(ep.Severity))
			p = appendString(p, ep.Evidence)
			flags = 0
			if ep.Provisional {
				flags = standingProvisional
			}
			p = append(p, flags)
		}
	}
	return p
}

// readStanding reads what appendStanding wrote into the hints of snap.
func (d *Decoder) readStanding(c *cursor, at int64, hints []timeline.Hint) {
	for i := range hints {
		h := &hints[i]
		flags := c.byte()
		h.Provisional, h.Ongoing = flags&standingProvisional != 0, flags&standingOngoing != 0
		n := c.count(5) // the smallest episode takes five bytes
		if !d.chargeList(c, n, episodeBits) {
			return
		}
		if n > 0 {
			h.Episodes = make([]timeline.Episode, n)
		}
		for j := range h.Episodes {
			ep := &h.Episodes[j]
			start := at + c.varint()
			end := start + c.varint()
			ep.Start, ep.End = time.Unix(0, start), time.Unix(0, end)
			if gpus := c.count(1); gpus > 0 && d.chargeList(c, gpus, gpuBits) {
				ep.GPUs = make([]int, gpus)
				for k := range ep.GPUs {
					ep.GPUs[k] = int(c.varint())
				}
			}
			ep.Severity = timeline.Severity(c.byte())
			ep.Evidence = d.sharedText(c)
			ep.Provisional = c.byte()&standingProvisional != 0
		}
	}
}

// readHints decodes a hint record written by appendHints. Strings equal to
// ones already read in the segment share their memory, so a day of
// snapshots that repeat their suggestions costs little to hold.
func (d *Decoder) readHints(c *cursor) (snap HintSnapshot, carried bool) {
	carried = c.byte()&HintsCarried != 0
	at := c.varint()
	snap.At = time.Unix(0, at)
	n := c.count(8) // the smallest hint takes eight bytes
	if !d.chargeList(c, n, hintBits) {
		return snap, carried
	}
	if n > 0 {
		snap.Hints = make([]timeline.Hint, n)
	}
	for i := range snap.Hints {
		h := &snap.Hints[i]
		h.ID = d.sharedText(c)
		h.Severity = timeline.Severity(c.byte())
		if gpus := c.count(1); gpus > 0 && d.chargeList(c, gpus, gpuBits) {
			h.GPUs = make([]int, gpus)
			for j := range h.GPUs {
				h.GPUs[j] = int(c.varint())
			}
		}
		start := at + c.varint()
		end := start + c.varint()
		h.Start, h.End = time.Unix(0, start), time.Unix(0, end)
		h.Evidence = d.sharedText(c)
		h.Suggestion = d.sharedText(c)
		h.Confidence = readLoneValue(c)
	}
	if len(c.b) > 0 && c.err == nil {
		d.readStanding(c, at, snap.Hints)
	}
	return snap, carried
}

// sharedText reads a text (as cursor.text does), sharing the memory of an
// equal one read before in the segment: hints' evidence, and processes'
// users and command lines, which most samples repeat.
func (d *Decoder) sharedText(c *cursor) string {
	b := c.bytes(c.uvarint())
	if s, ok := d.strings[string(b)]; ok { // the lookup does not allocate
		return s
	}
	if d.strings == nil {
		d.strings = make(map[string]string)
	}
	s := timeline.CleanText(string(b)) // shown as it is: see cursor.text
	d.strings[string(b)] = s
	return s
}

// maxSharedStrings bounds the strings sharedString keeps to share.
const maxSharedStrings = 4096

// sharedString reads a string (as cursor.string does), sharing the memory
// of an equal one read before in the segment: processes' workloads, seven
// strings a process a sample, the same from sample to sample (1.5 million
// strings allocated for a day of 8 GPUs, three in five of all the report's
// allocations).
func (d *Decoder) sharedString(c *cursor) string {
	b := c.bytes(c.uvarint())
	if len(b) == 0 {
		return ""
	}
	if s, ok := d.plain[string(b)]; ok { // the lookup does not allocate
		return s
	}
	if d.plain == nil {
		d.plain = make(map[string]string)
	}
	if len(d.plain) >= maxSharedStrings {
		clear(d.plain) // a long segment, or a stream, of ever new ones
	}
	s := string(b)
	d.plain[s] = s
	return s
}
