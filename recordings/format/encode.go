package format

import (
	"encoding/binary"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Encoder turns samples into the records of one segment. It starts
// afresh at every segment (reset), so a reader can begin decoding at any
// segment: keys and probes are defined again, and the first value of each
// key and the first time are absolute.
type Encoder struct {
	keys   map[keyKind]int
	kinds  []timeline.Kind
	values []valueState
	layout []int // key ids of the previous sample's values
	// keyIDs are the key ids of the columns cols in this segment: the
	// next sample of the same columns has the same ids.
	keyIDs    []int
	cols      *timeline.Columns
	probes    map[probeDevice]int
	probeRows []int // probe ids of the previous sample's statuses
	tookStats []riceStats
	lastAt    int64
	lastStep  int64
	samples   int
	// defined is the bytes of the segment's key definitions.
	defined int
	// lastProgress is the previous progress reading's time in the
	// segment, Unix nanoseconds (progress.go).
	lastProgress int64

	ids     []int     // scratch: this sample's probe ids
	payload []byte    // scratch: the record being built
	exc     []byte    // scratch: the sample's exceptions
	bits    bitWriter // scratch: the sample's residuals
}

type keyKind struct {
	key  timeline.Key
	kind timeline.Kind
}

type probeDevice struct{ probe, device string }

// Reset starts a new segment: every key and probe is defined again, and
// values are predicted afresh.
func (e *Encoder) Reset() {
	if e.keys == nil {
		e.keys = make(map[keyKind]int)
		e.probes = make(map[probeDevice]int)
	}
	clear(e.keys)
	clear(e.probes)
	e.kinds = e.kinds[:0]
	e.values = e.values[:0]
	e.layout, e.keyIDs, e.cols = e.layout[:0], e.keyIDs[:0], nil
	e.probeRows = e.probeRows[:0]
	e.tookStats = e.tookStats[:0]
	e.lastAt, e.lastStep, e.samples, e.lastProgress, e.defined = 0, 0, 0, 0, 0
}

// RoomFor says whether the segment may define the keys and probes s
// might add, as many as it has, within MaxSegmentKeys; otherwise the
// writer starts a new segment first.
func (e *Encoder) RoomFor(s *timeline.Sample) bool {
	return len(e.kinds)+s.Len() <= MaxSegmentKeys && len(e.probes)+len(s.Probes) <= MaxSegmentKeys
}

// DefinedBytes is how many bytes of key definitions the segment holds:
// about 40 a key, so 1.4 MB in a segment of 64 hosts' samples.
func (e *Encoder) DefinedBytes() int { return e.defined }

// AppendSample appends the records of one sample to b: definitions of new
// keys and probes, its statuses, processes and markers, then the sample
// record that completes it.
func (e *Encoder) AppendSample(b []byte, s *timeline.Sample) []byte {
	if len(s.Probes) > 0 {
		b = e.appendStatuses(b, s.Probes)
	}
	if s.Processes != nil {
		b = e.appendProcesses(b, s.Processes)
	}
	if len(s.Markers) > 0 {
		b = e.appendMarkers(b, s.Markers)
	}
	if len(s.Progress) > 0 {
		b = e.appendProgress(b, s.Progress)
	}
	if s.Owners != nil {
		b = e.appendOwners(b, s.Owners)
	}
	if s.Columns != e.cols {
		b = e.findIDs(b, s.Columns)
	}

	// The time: absolute first, then the change of the step, which is 0
	// for a perfectly regular tick and a few microseconds of jitter else.
	at := s.At.UnixNano()
	var p []byte
	if e.samples == 0 {
		p = binary.AppendVarint(e.payload[:0], at)
	} else {
		step := at - e.lastAt
		p = binary.AppendVarint(e.payload[:0], step-e.lastStep)
		e.lastStep = step
	}
	e.lastAt = at
	e.samples++

	p, e.layout = appendLayout(p, e.keyIDs, e.layout)
	p = e.appendValues(p, s.Values)
	return e.record(b, RecSample, p)
}

// record appends payload p as a record of type typ, keeping p's array for
// the next record.
func (e *Encoder) record(b []byte, typ byte, p []byte) []byte {
	e.payload = p
	return AppendRecord(b, typ, p)
}

// findIDs finds the ids of cols' keys, appending to b the definitions of
// those the segment has not defined yet.
func (e *Encoder) findIDs(b []byte, cols *timeline.Columns) []byte {
	e.keyIDs, e.cols = e.keyIDs[:0], cols
	for i := range cols.Len() {
		kk := keyKind{cols.Key(i), cols.Kind(i)}
		id, ok := e.keys[kk]
		if !ok {
			id = len(e.kinds)
			e.keys[kk] = id
			e.kinds = append(e.kinds, kk.kind)
			e.values = append(e.values, valueState{})
			p := append(e.payload[:0], byte(kk.kind))
			p = appendString(p, kk.key.Name)
			p = appendString(p, kk.key.Device)
			n := len(b)
			b = e.record(b, RecKeyDef, p)
			e.defined += len(b) - n
		}
		e.keyIDs = append(e.keyIDs, id)
	}
	return b
}

// appendValues appends the sample's values: the exceptions, then the
// residuals' bits (see values.go).
func (e *Encoder) appendValues(p []byte, values []float64) []byte {
	e.exc = e.exc[:0]
	e.bits = bitWriter{b: e.bits.b[:0]}
	count, next := 0, 0
	for i, v := range values {
		id := e.keyIDs[i]
		mark := len(e.exc)
		e.exc = binary.AppendUvarint(e.exc, uint64(i-next))
		var isExc bool
		e.exc, isExc = e.values[id].encodeValue(v, e.kinds[id] == timeline.Counter, &e.bits, e.exc)
		if isExc {
			count, next = count+1, i+1
		} else {
			e.exc = e.exc[:mark]
		}
	}
	p = binary.AppendUvarint(p, uint64(count))
	p = append(p, e.exc...)
	return append(p, e.bits.bytes()...)
}

// appendLayout appends a list of ids: 0 if it is the same as prev, else
// its length + 1 and each id as the varint difference from the one after
// the previous id (so 0, 1, 2, … costs a zero byte each). It returns the
// list to compare the next one with.
func appendLayout(p []byte, ids, prev []int) ([]byte, []int) {
	if slices.Equal(ids, prev) {
		return append(p, 0), prev
	}
	p = binary.AppendUvarint(p, uint64(len(ids))+1)
	next := 0
	for _, id := range ids {
		p = binary.AppendVarint(p, int64(id-next))
		next = id + 1
	}
	return p, append(prev[:0], ids...)
}

// appendStatuses appends the probe statuses: a layout of probe ids; for
// each a uvarint state<<1 | (1 if it has an error text); the error texts
// there are; then the time each took, in microseconds, zigzag and Rice
// coded with its probe's own parameter. Heads and texts repeat from one
// tick to the next, so zstd takes them for little.
func (e *Encoder) appendStatuses(b []byte, statuses []timeline.ProbeStatus) []byte {
	e.ids = e.ids[:0]
	for _, st := range statuses {
		pd := probeDevice{st.Probe, st.Device}
		id, ok := e.probes[pd]
		if !ok {
			id = len(e.probes)
			e.probes[pd] = id
			e.tookStats = append(e.tookStats, riceStats{})
			p := appendString(e.payload[:0], st.Probe)
			p = appendString(p, st.Device)
			b = e.record(b, recProbeDef, p)
		}
		e.ids = append(e.ids, id)
	}
	var p []byte
	p, e.probeRows = appendLayout(e.payload[:0], e.ids, e.probeRows)
	for _, st := range statuses {
		head := uint64(st.State) << 1
		if st.Err != "" {
			head |= 1
		}
		p = binary.AppendUvarint(p, head)
	}
	for _, st := range statuses {
		if st.Err != "" {
			p = appendString(p, st.Err)
		}
	}
	e.bits = bitWriter{b: e.bits.b[:0]}
	for i, st := range statuses {
		stats := &e.tookStats[e.ids[i]]
		u := zigzag(int64(st.Took.Round(time.Microsecond) / time.Microsecond))
		e.bits.rice(u, stats.k())
		stats.add(u)
	}
	p = append(p, e.bits.bytes()...)
	return e.record(b, recStatus, p)
}

func (e *Encoder) appendProcesses(b []byte, procs []timeline.Process) []byte {
	p := binary.AppendUvarint(e.payload[:0], uint64(len(procs)))
	for i := range procs {
		pr := &procs[i]
		p = binary.AppendVarint(p, int64(pr.GPU))
		p = binary.AppendVarint(p, int64(pr.PID))
		p = appendString(p, pr.User)
		p = appendString(p, pr.Command)
		p = appendLoneValue(p, pr.GPUMem)
		p = appendLoneValue(p, pr.Util)
		p = appendLoneValue(p, pr.CPU)
		p = appendLoneValue(p, pr.RSS)
		var inJob byte
		if pr.InJob {
			inJob = 1
		}
		p = append(p, inJob)
	}
	p = appendProcessDetails(p, procs)
	return e.record(b, recProcesses, p)
}

func (e *Encoder) appendMarkers(b []byte, markers []timeline.Marker) []byte {
	p := binary.AppendUvarint(e.payload[:0], uint64(len(markers)))
	for _, m := range markers {
		p = binary.AppendVarint(p, m.At.UnixNano())
		p = appendString(p, m.Text)
		p = appendString(p, m.Origin)
	}
	return e.record(b, recMarkers, p)
}
