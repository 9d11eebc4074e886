package format

import (
	"encoding/binary"
	"unicode/utf8"

	"github.com/gputop-dev/gputop/timeline"
)

// recOwners is the sample's GPU allocations, Sample.Owners (within 1.4;
// readers from before skip the record type). Absent where the sample has
// none read (nil); count 0 where the tier read and found no allocation.
const recOwners = 12

// ownerBits are the fewest bits an owner takes: GPU, flags.
const ownerBits = 2 * 8

// MaxOwnerText bounds each of an owner's names, in bytes: a Kubernetes
// name is at most 253 (probes/owners cuts what it reads there too). A
// writer cuts a longer one; a reader takes a longer one as damage.
const MaxOwnerText = 253

// ownerFields are an owner's names in the order the record keeps them.
func ownerFields(o *timeline.Owner) [6]*string {
	return [6]*string{&o.Pod, &o.Namespace, &o.Container, &o.Job, &o.User, &o.Partition}
}

// appendOwners appends the record of a sample's owners: a uvarint count,
// then for each the uvarint GPU, a flags byte (bit i: the i-th name of
// ownerFields follows) and those names. The list repeats from one process
// tick to the next, which zstd takes for a few bytes.
func (e *Encoder) appendOwners(b []byte, owners []timeline.Owner) []byte {
	p := binary.AppendUvarint(e.payload[:0], uint64(len(owners)))
	for i := range owners {
		o := owners[i]
		p = binary.AppendUvarint(p, uint64(o.GPU))
		fields := ownerFields(&o)
		var flags byte
		for j, f := range fields {
			if *f != "" {
				flags |= 1 << j
			}
		}
		p = append(p, flags)
		for _, f := range fields {
			if *f != "" {
				p = appendString(p, CutOwnerText(*f))
			}
		}
	}
	return e.record(b, recOwners, p)
}

// CutOwnerText cuts s to at most MaxOwnerText bytes, at a rune's start.
func CutOwnerText(s string) string {
	if len(s) <= MaxOwnerText {
		return s
	}
	n := MaxOwnerText
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// readOwners reads an owners record: an empty list is kept as one, since it
// says no GPU was allocated, where nil says nothing was read.
func (d *Decoder) readOwners(c *cursor) []timeline.Owner {
	n := c.count(2)
	if c.err != nil || !d.chargeList(c, n, ownerBits) {
		return nil
	}
	out := make([]timeline.Owner, n)
	for i := range out {
		g := c.uvarint()
		if g >= timeline.MaxGPUs {
			c.fail() // the writer refuses such a GPU
			return nil
		}
		out[i].GPU = int(g)
		flags := c.byte()
		if flags>>len(ownerFields(&out[i])) != 0 {
			c.fail()
			return nil
		}
		for j, f := range ownerFields(&out[i]) {
			if flags&(1<<j) != 0 {
				*f = d.ownerText(c)
			}
		}
	}
	if c.err != nil {
		return nil
	}
	return out
}

// ownerText reads one of an owner's names: at most MaxOwnerText bytes,
// shared with an equal one read before in the segment (the same names come
// every process tick), and stripped of control sequences (cursor.text).
func (d *Decoder) ownerText(c *cursor) string {
	if n, _ := binary.Uvarint(c.b); n > MaxOwnerText {
		c.failWith(ErrPastBounds)
		return ""
	}
	return d.sharedText(c)
}
