package progress

import (
	"math"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// What the Tracker keeps of a job's readings: one every keepEvery, and the
// reading before the rate changes by changeShare or more (at most one per
// minGap), so that a recording grows by a few KB an hour and still says
// when the rate changed to within a second or two.
const (
	keepEvery   = 10 * time.Second
	minGap      = time.Second
	changeShare = 0.2
	// stallAfter is how long without a reading keeps the last one: the
	// stall then starts at it, not at the next kept reading.
	stallAfter = 3 * time.Second
	// rateWindow is how far back a count-only stream's rate of the moment
	// is taken.
	rateWindow = 2 * time.Second
	// pauseShare: a reading this many times as far from the one before as
	// that one was from its own (and minGap or more) ends a pause in the
	// output, whose both edges are kept.
	pauseShare = 4
	// maxStreams bounds the streams counted (a hostile job could print a
	// new bar on every line).
	maxStreams = 64
)

// Tracker turns the readings of one job into the timeline.Progress points
// a recording keeps. It follows the job's primary stream (the bar or kind
// of line it prints most: the training bar rather than the validation bar
// or a download), counts the work done on across bars that restart each
// epoch, and keeps a point only when it says something new. Not safe for
// concurrent use.
type Tracker struct {
	lines   map[uint64]int // readings seen per stream
	primary uint64
	unit    string
	started bool

	lastCount float64 // the primary stream's last count; NaN if none
	done      float64 // work done so far, across restarts

	kept       timeline.Progress
	hasKept    bool
	pending    timeline.Progress // the newest reading not kept
	hasPending bool
	recent     []timeline.Progress // readings of the last rateWindow or so, for count-only streams

	lastAt  time.Time     // the primary stream's last reading
	lastGap time.Duration // and the time from the one before it
}

// NewTracker returns a Tracker that has seen nothing.
func NewTracker() *Tracker { return &Tracker{lines: map[uint64]int{}, lastCount: math.NaN()} }

// Add takes a reading made at at, and returns the points to keep now
// (none, one, or the one before a change and this one).
func (t *Tracker) Add(at time.Time, r Reading, origin string) []timeline.Progress {
	if len(t.lines) >= maxStreams {
		clear(t.lines)
	}
	t.lines[r.Stream]++
	var out []timeline.Progress
	if !t.started || r.Stream != t.primary {
		if t.started && t.lines[r.Stream] <= 2*t.lines[t.primary]+10 {
			return nil // another bar, seen less often than the primary one
		}
		out = t.Flush()
		if t.started && r.Unit != t.unit {
			t.done = 0 // a new unit starts its own count
		}
		if !math.IsNaN(r.Count) {
			// The bar ran while another was followed: count its work
			// from its start.
			t.done += r.Count
		}
		t.primary, t.unit, t.started, t.lastCount = r.Stream, r.Unit, true, r.Count
		t.recent = t.recent[:0]
	}
	// The edges of a pause (a checkpoint, an evaluation) are kept, so the
	// work after it is not spread back over it.
	gap := at.Sub(t.lastAt)
	resumed := !t.lastAt.IsZero() && gap >= minGap && gap >= pauseShare*t.lastGap
	if resumed {
		out = append(out, t.Flush()...)
	}
	if !t.lastAt.IsZero() {
		t.lastGap = gap
	}
	t.lastAt = at
	p := timeline.Progress{At: at, Done: math.NaN(), Rate: r.Rate, Unit: r.Unit, Origin: origin}
	if !math.IsNaN(r.Count) {
		switch {
		case math.IsNaN(t.lastCount):
		case r.Count >= t.lastCount:
			t.done += r.Count - t.lastCount
		default:
			t.done += r.Count // a new bar: it counts from 0
		}
		t.lastCount = r.Count
		p.Done = t.done
	}
	switch {
	case resumed || t.mustKeep(p):
		t.kept, t.hasKept, t.hasPending = p, true, false
		out = append(out, p)
	case t.changedAtPending(p):
		// The pending reading is the last at the old rate: keep it, and
		// measure the new rate from it.
		out = append(out, t.pending)
		t.kept = t.pending
		t.pending = p
	default:
		t.pending, t.hasPending = p, true
	}
	t.remember(p)
	return out
}

// mustKeep says whether p is kept for itself: the first, one in a new
// unit, one keepEvery after the last kept, or a stated rate that changed.
func (t *Tracker) mustKeep(p timeline.Progress) bool {
	if !t.hasKept || p.Unit != t.kept.Unit || p.At.Sub(t.kept.At) >= keepEvery {
		return true
	}
	return math.IsNaN(p.Done) && p.At.Sub(t.kept.At) >= minGap && changed(t.kept.Rate, p.Rate)
}

// changedAtPending says whether the rate now differs from the rate since
// the last kept reading, so that the pending reading marks the change.
func (t *Tracker) changedAtPending(p timeline.Progress) bool {
	if !t.hasPending || math.IsNaN(p.Done) || math.IsNaN(t.pending.Done) || math.IsNaN(t.kept.Done) {
		return false
	}
	span := t.pending.At.Sub(t.kept.At)
	if span < minGap {
		return false
	}
	segment := (t.pending.Done - t.kept.Done) / span.Seconds()
	return changed(segment, t.rateNow(p))
}

// rateNow is the rate at p: the job's own where it states one, else the
// work done over the last rateWindow.
func (t *Tracker) rateNow(p timeline.Progress) float64 {
	if !math.IsNaN(p.Rate) {
		return p.Rate
	}
	for _, q := range t.recent {
		if span := p.At.Sub(q.At); span >= rateWindow && span < 2*keepEvery && !math.IsNaN(q.Done) {
			return (p.Done - q.Done) / span.Seconds()
		}
	}
	return math.NaN()
}

// remember keeps p among the recent readings rateNow looks back on.
func (t *Tracker) remember(p timeline.Progress) {
	drop := 0
	for drop < len(t.recent)-1 && p.At.Sub(t.recent[drop+1].At) >= rateWindow {
		drop++ // the newest reading at least rateWindow old stays first
	}
	t.recent = append(t.recent[:0], t.recent[drop:]...)
	if len(t.recent) < 256 {
		t.recent = append(t.recent, p)
	}
}

// changed says whether two rates differ by changeShare of the larger or
// more; false if either is unknown.
func changed(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return false
	}
	return math.Abs(a-b) > changeShare*math.Max(a, b)
}

// Idle returns the pending reading if none has come for stallAfter by now:
// the job has stalled, and the stall starts there.
func (t *Tracker) Idle(now time.Time) []timeline.Progress {
	if t.hasPending && now.Sub(t.pending.At) >= stallAfter {
		return t.Flush()
	}
	return nil
}

// Flush returns the pending reading, if any, as kept: at the job's end, or
// before its primary stream changes.
func (t *Tracker) Flush() []timeline.Progress {
	if !t.hasPending {
		return nil
	}
	t.kept, t.hasKept, t.hasPending = t.pending, true, false
	return []timeline.Progress{t.pending}
}
