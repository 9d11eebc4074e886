package timeline

import "time"

// PhaseKind says what the job was doing in a stretch of time.
type PhaseKind uint8

const (
	// PhaseBusy: the GPUs are working.
	PhaseBusy PhaseKind = iota
	// PhaseStalled: the GPUs are idle or low while the job or the host is
	// busy (loading data, a checkpoint, CPU-side work).
	PhaseStalled
	// PhaseIdle: nothing is happening, on the GPUs or the host.
	PhaseIdle
	// PhaseMarked: a stretch between two markers, named by the first.
	PhaseMarked
)

var phaseKindNames = [...]string{"busy", "stalled", "idle", "marker"}

func (k PhaseKind) String() string { return nameOf(phaseKindNames[:], k) }

// Phase is one stretch of the timeline. Automatic phases (busy, stalled,
// idle) tile the timeline without gaps or overlaps; marker phases run from
// one marker to the next (or the end) and are labelled with its text.
type Phase struct {
	Start, End time.Time
	Kind       PhaseKind
	Label      string // the marker's text for PhaseMarked; "" otherwise
}

// Overlap is how long [aFrom, aTo] and [bFrom, bTo] share: 0 where they do
// not meet.
func Overlap(aFrom, aTo, bFrom, bTo time.Time) time.Duration {
	lo, hi := aFrom, aTo
	if bFrom.After(lo) {
		lo = bFrom
	}
	if bTo.Before(hi) {
		hi = bTo
	}
	return max(0, hi.Sub(lo))
}
