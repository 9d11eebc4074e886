package analysis

import (
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// HintTracker follows a session sample by sample and says what gputop
// shows about it: a recording keeps each new set as the job runs, so a file
// cut short by kill -9 still holds what gputop said up to then, and at a
// clean end the hints over the whole run, the verdict.
//
// It keeps its own store of what it was given. It is not safe for
// concurrent use.
type HintTracker struct {
	info  timeline.SourceInfo
	store *timeline.Store

	judged time.Time       // the SnapshotEvery step judged last
	shown  []timeline.Hint // the last set Changed returned
}

// SnapshotEvery is how often, in sample time, the tracker judges the hints
// again. The screen judges every 5 s; a file keeps only the changes, and
// 30 s is a window, the shortest stretch a rule judges.
const SnapshotEvery = 30 * time.Second

// trackerRawSamples keeps a day at full resolution: the hints of a longer
// run are judged from coarser buckets for what is older, and memory stays
// bounded.
const trackerRawSamples = 86400

// NewHintTracker returns a tracker for a session described by info.
func NewHintTracker(info timeline.SourceInfo) *HintTracker {
	return &HintTracker{info: info, store: timeline.NewStore(timeline.StoreOptions{RawSamples: trackerRawSamples})}
}

// Add takes the next sample.
func (t *HintTracker) Add(s *timeline.Sample) { t.store.Add(s) }

// Changed judges the hints shown at the newest sample, at most once per
// SnapshotEvery of sample time, and returns them when they name other
// problems than the last set it returned (see SameHints).
func (t *HintTracker) Changed() ([]timeline.Hint, bool) {
	if t.store.Len() == 0 {
		return nil, false
	}
	at := t.store.Last()
	step := at.Truncate(SnapshotEvery)
	if !step.After(t.judged) {
		return nil, false
	}
	t.judged = step
	hints := ActiveHints(t.store, t.info, at, DefaultHintOptions())
	if SameHints(hints, t.shown) {
		return nil, false
	}
	t.shown = hints
	return hints, true
}

// Verdict judges everything added: the hints over the whole run.
func (t *HintTracker) Verdict() []timeline.Hint {
	if t.store.Len() == 0 {
		return nil
	}
	return EvaluateHints(t.store, t.info, t.store.First(), t.store.Last(), DefaultHintOptions())
}

// SetInfo takes a new description of the session (a GPU found later).
func (t *HintTracker) SetInfo(info timeline.SourceInfo) { t.info = info }
