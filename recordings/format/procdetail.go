package format

import (
	"encoding/binary"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// A process record's details: each process's start and workload (its
// container, pod, Slurm job or session), added within format 1.4 as bytes
// at the end of the record's payload, after the last process. Readers
// from before stop after the processes and never see them; a list
// where no process has either is written as before, byte for byte.
//
// For each process, in the record's order: a uvarint of flags (bit 0 a
// start follows, bit 1 a workload follows); the start as varint Unix
// nanoseconds; the workload as seven strings: runtime, container, pod,
// QoS class, Slurm job, Slurm step, session.
const (
	detailStarted  = 1 << 0
	detailWorkload = 1 << 1
)

// hasProcessDetail says whether a process has anything the details carry.
func hasProcessDetail(p timeline.Process) bool {
	return !p.Started.IsZero() || !p.Workload.IsZero()
}

// appendProcessDetails writes the details of procs, if any process has
// some.
func appendProcessDetails(p []byte, procs []timeline.Process) []byte {
	if !slices.ContainsFunc(procs, hasProcessDetail) {
		return p
	}
	for i := range procs {
		pr := &procs[i]
		var flags uint64
		if !pr.Started.IsZero() {
			flags |= detailStarted
		}
		if !pr.Workload.IsZero() {
			flags |= detailWorkload
		}
		p = binary.AppendUvarint(p, flags)
		if flags&detailStarted != 0 {
			p = binary.AppendVarint(p, pr.Started.UnixNano())
		}
		if flags&detailWorkload != 0 {
			w := pr.Workload
			for _, s := range [...]string{w.Runtime, w.Container, w.Pod, w.QoS, w.Job, w.Step, w.Session} {
				p = appendString(p, s)
			}
		}
	}
	return p
}

// readProcessDetails reads the details after a record's processes into
// procs. Details that do not read whole are dropped: the processes stand
// without them. Its strings are shared by d (Decoder.sharedString). d is
// no func value: c passed to one escaped, and each record's cursor was
// made on the heap (a day of 8 GPUs: 16 MB, a quarter of the report's
// allocations).
func readProcessDetails(c *cursor, procs []timeline.Process, d *Decoder) {
	if len(c.b) == 0 || c.err != nil {
		return
	}
	type detail struct {
		started  time.Time
		workload *timeline.Workload
	}
	details := make([]detail, len(procs))
	for i := range details {
		flags := c.uvarint()
		if flags&detailStarted != 0 {
			details[i].started = time.Unix(0, c.varint())
		}
		if flags&detailWorkload != 0 {
			w := &timeline.Workload{}
			details[i].workload = w
			for _, s := range [...]*string{&w.Runtime, &w.Container, &w.Pod, &w.QoS, &w.Job, &w.Step, &w.Session} {
				*s = d.sharedString(c)
			}
		}
		if c.err != nil {
			return
		}
	}
	for i := range procs {
		procs[i].Started, procs[i].Workload = details[i].started, details[i].workload
	}
}
