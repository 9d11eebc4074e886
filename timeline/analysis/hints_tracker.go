package analysis

import (
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// HintTracker follows a session sample by sample and says what gputop
// shows about it: a recording keeps each new set as the job runs, so a file
// cut short by kill -9 still holds what gputop said up to then, and at a
// clean end the hints over the whole run, the verdict. It asks the same
// analysis the screen and the report ask: the process's Judge
// (Judge.Tracker), which has taken the samples already.
//
// It is not safe for concurrent use.
type HintTracker struct {
	judge  *Judge
	at     time.Time       // the newest sample added
	judged time.Time       // the SnapshotEvery step judged last
	shown  []timeline.Hint // the last set Changed returned
}

// SnapshotEvery is how often, in sample time, the tracker judges the hints
// again. A file keeps only the changes, and 30 s is a window, the
// shortest stretch a rule judges.
const SnapshotEvery = 30 * time.Second

// Tracker returns a tracker of the samples j takes: its Add only notes
// which sample a recording has reached, since j judged it already. Each
// recording has one of its own, so each file gets its first snapshot.
func (j *Judge) Tracker() *HintTracker { return &HintTracker{judge: j} }

// Add notes the next sample.
func (t *HintTracker) Add(s *timeline.Sample) {
	if s.At.After(t.at) {
		t.at = s.At
	}
}

// SetInfo takes a new description of the session (a GPU found later):
// the Judge has it already.
func (t *HintTracker) SetInfo(timeline.SourceInfo) {}

// Changed judges the hints the screen shows at the newest sample added
// (Shown), at most once per SnapshotEvery of sample time, and returns them
// when they name other problems than the last set it returned (see
// SameHints).
func (t *HintTracker) Changed() ([]timeline.Hint, bool) {
	if t.at.IsZero() {
		return nil, false
	}
	step := t.at.Truncate(SnapshotEvery)
	if !step.After(t.judged) {
		return nil, false
	}
	t.judged = step
	hints := Shown(t.judge.Hints(t.at), t.at)
	if SameHints(hints, t.shown) {
		return nil, false
	}
	t.shown = hints
	return hints, true
}

// Verdict is every hint over everything up to the newest sample added:
// what gputop report says of the whole recording (for a Judge's tracker
// whose recording started late, what the screen said at its end).
func (t *HintTracker) Verdict() []timeline.Hint {
	if t.at.IsZero() {
		return nil
	}
	return t.judge.Hints(t.at)
}
