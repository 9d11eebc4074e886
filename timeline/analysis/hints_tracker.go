package analysis

import (
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// HintTracker follows a session sample by sample and says what gputop
// shows about it: a recording keeps each new set as the job runs, so a file
// cut short by kill -9 still holds what gputop said up to then, and at a
// clean end the hints over the whole run, the verdict. It asks an Engine
// of its own, the same analysis the screen and the report ask.
//
// It is not safe for concurrent use.
type HintTracker struct {
	engine *Engine
	judged time.Time       // the SnapshotEvery step judged last
	shown  []timeline.Hint // the last set Changed returned
}

// SnapshotEvery is how often, in sample time, the tracker judges the hints
// again. A file keeps only the changes, and 30 s is a window, the
// shortest stretch a rule judges.
const SnapshotEvery = 30 * time.Second

// NewHintTracker returns a tracker for a session described by info.
func NewHintTracker(info timeline.SourceInfo) *HintTracker {
	return &HintTracker{engine: NewEngine(info)}
}

// Add takes the next sample.
func (t *HintTracker) Add(s *timeline.Sample) { t.engine.Add(s) }

// SetInfo takes a new description of the session (a GPU found later).
func (t *HintTracker) SetInfo(info timeline.SourceInfo) { t.engine.SetInfo(info) }

// Changed judges the hints the screen shows at the newest sample (Shown),
// at most once per SnapshotEvery of sample time, and returns them when
// they name other problems than the last set it returned (see SameHints).
func (t *HintTracker) Changed() ([]timeline.Hint, bool) {
	if t.engine.Len() == 0 {
		return nil, false
	}
	at := t.engine.Last()
	step := at.Truncate(SnapshotEvery)
	if !step.After(t.judged) {
		return nil, false
	}
	t.judged = step
	hints := Shown(t.engine.Hints(at), at)
	if SameHints(hints, t.shown) {
		return nil, false
	}
	t.shown = hints
	return hints, true
}

// Verdict is every hint over everything added: what gputop report says of
// the whole recording.
func (t *HintTracker) Verdict() []timeline.Hint {
	if t.engine.Len() == 0 {
		return nil
	}
	return t.engine.Hints(t.engine.Last())
}
