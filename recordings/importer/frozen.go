package importer

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// Frozen telemetry: a hung driver or exporter, or a stale DCGM cache, hands
// out the last readings again and again. Real readings jitter: power moves
// in its last digit from one second to the next, so every field of a GPU
// repeated to the last digit for minutes, after it varied, is not a steady
// job but no data. The import says so in a note; the frozen-telemetry hint
// (timeline/analysis/rules/frozen_telemetry.go, on frame/frozen.go) finds
// the same in the Engine's columns, live too, and keeps the stretch out of
// the other rules. This is the simple scan of the log's own rows, with the
// same thresholds:
//
//   - every reading of the GPU identical to the one before for frozenMin or
//     more, over frozenSamples samples or more;
//   - among them a power reading, which jitters: the GPU is working (util
//     at frozenWorkUtil or more, or SM activity at frozenWorkSM or more), or
//     the power has digits below the watt and the GPU is not parked at its
//     clock's idle floor (half the log's highest SM clock so far, or 700 MHz
//     if that is higher: the hints' floor). An idle GPU logged in whole
//     watts (dmon) can honestly read 21 W, 47 C, 0 % for minutes, one parked
//     at its idle clock 42.06 W at 135 MHz (regad's V100s), and a GPU without
//     power readings cannot be told apart from a steady one;
//   - the readings varied before: they changed in at least half of the
//     samples of the frozenMin before (four or more), so a mock or a demo
//     whose values never move is not a freeze.
const (
	frozenMin      = 2 * time.Minute
	frozenSamples  = 8
	frozenWorkUtil = 10 // the hints' IdleUtil
	frozenWorkSM   = 5  // the hints' IdleSM
	// maxFrozenNotes bounds the notes: a whole node frozen at once is one
	// note per GPU, and more than this says the same again.
	maxFrozenNotes = 16
)

// frozenScan follows one GPU's rows in time order.
type frozenScan struct {
	last *row
	// The run of identical readings the last row belongs to.
	start, end int64 // its first row's time, and its last one's
	rows       int   // rows in it
	livelyRun  bool  // the readings varied in the frozenMin before it
	jitters    bool  // its readings include one that would move if live
	// recent are the rows' times over the last frozenMin, and whether each
	// changed from the one before (from head on); n and changed count them.
	recent     []frozenStep
	head       int
	n, changed int
}

// slide drops the rows more than frozenMin before at from recent.
func (s *frozenScan) slide(at int64) {
	for s.head < len(s.recent) && time.Duration(at-s.recent[s.head].at) > frozenMin {
		s.n--
		if s.recent[s.head].changed {
			s.changed--
		}
		s.head++
	}
	if s.head > 1024 && 2*s.head > len(s.recent) {
		s.recent = append(s.recent[:0], s.recent[s.head:]...)
		s.head = 0
	}
}

// push adds a row to recent.
func (s *frozenScan) push(at int64, changed bool) {
	s.recent = append(s.recent, frozenStep{at, changed})
	s.n++
	if changed {
		s.changed++
	}
}

// lively says whether the readings changed in at least half of the (four
// or more) rows of the frozenMin before the row being read.
func (s *frozenScan) lively() bool { return s.n >= 4 && 2*s.changed >= s.n }

type frozenStep struct {
	at      int64
	changed bool
}

// frozenNotes scans each GPU's rows, in the order of the samples kept, for
// frozen stretches, and says where each is.
func (t *table) frozenNotes(insts []instant, order []int, times []int64) []string {
	scans := map[int16]*frozenScan{}
	maxClock := 0.0 // the log's highest SM clock so far, for the idle floor
	var found []string
	more := 0
	report := func(gpu int16, s *frozenScan, until int64) {
		if !s.livelyRun || !s.jitters || s.rows < frozenSamples || time.Duration(until-s.start) < frozenMin {
			return
		}
		if len(found) == maxFrozenNotes {
			more++
			return
		}
		at := time.Unix(0, s.start).UTC()
		found = append(found, fmt.Sprintf("GPU%d's readings froze at %s for %s: every field repeated to the last digit; treated as no data",
			gpu, at.Format(frozenClock(times, order)), units.Duration(time.Duration(until-s.start))))
	}
	for _, i := range order {
		at := times[i]
		for k := insts[i].lo; k < insts[i].hi; k++ {
			r := &t.rows[k]
			s := scans[r.gpu]
			if s == nil {
				s = &frozenScan{}
				scans[r.gpu] = s
			}
			if c := t.smClock(r); c > maxClock {
				maxClock = c
			}
			first := s.last == nil
			same := !first && t.sameReadings(s.last, r)
			s.slide(at)
			if !same {
				if !first {
					report(r.gpu, s, at)
				}
				s.start, s.rows = at, 0
				s.livelyRun, s.jitters = s.lively(), t.jitters(r, 0.5*max(1400, maxClock))
			}
			s.last, s.end = r, at
			s.rows++
			s.push(at, !same && !first)
		}
	}
	for gpu, s := range scans {
		report(gpu, s, s.end)
	}
	if more > 0 {
		found = append(found, fmt.Sprintf("and %s more frozen", units.Count(more, "stretch")))
	}
	return found
}

// frozenClock is how a note gives a time: the time of day, with the date
// when the log spans more than one.
func frozenClock(times []int64, order []int) string {
	first, last := time.Unix(0, times[order[0]]).UTC(), time.Unix(0, times[order[len(order)-1]]).UTC()
	if first.YearDay() == last.YearDay() && first.Year() == last.Year() {
		return time.TimeOnly
	}
	return time.DateTime
}

// sameReadings says whether two rows of a GPU read the same, to the last
// digit: the same metrics, each the same value or both unknown.
func (t *table) sameReadings(a, b *row) bool {
	if a.layout != b.layout {
		return false
	}
	_, va := t.metrics(a)
	_, vb := t.metrics(b)
	return slices.EqualFunc(va, vb, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
}

// jitters says whether a row's readings include one that a live GPU never
// holds still: a power reading while working, or one with digits below
// the watt unless the SM clock is at or below floor (parked).
func (t *table) jitters(r *row, floor float64) bool {
	names, vals := t.metrics(r)
	power, working, parked := math.NaN(), false, false
	for j, name := range names {
		switch name {
		case timeline.GPUClockSM:
			parked = vals[j] <= floor
		case timeline.GPUPower:
			power = vals[j]
		case timeline.GPUUtil:
			working = working || vals[j] >= frozenWorkUtil
		case timeline.GPUSMActive:
			working = working || vals[j] >= frozenWorkSM
		}
	}
	return !math.IsNaN(power) && (working || !parked && power != math.Trunc(power))
}

// smClock is a row's SM clock; NaN where it has none.
func (t *table) smClock(r *row) float64 {
	names, vals := t.metrics(r)
	if j := slices.Index(names, timeline.GPUClockSM); j >= 0 {
		return vals[j]
	}
	return math.NaN()
}
