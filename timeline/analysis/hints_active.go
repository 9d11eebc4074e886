package analysis

import (
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// HintLookback is how far back from a moment the hints shown at that
// moment are judged: long enough for a rule's sustained windows and a
// stall's period, short enough that a fixed problem stops being shown
// within minutes.
const HintLookback = 10 * time.Minute

// ActiveHints returns the hints shown at time at: judged over the
// HintLookback before it (from the store's first sample if that is later)
// and still holding within the last two windows. The screen shows these,
// and a recording keeps each new set of them.
func ActiveHints(s *timeline.Store, info timeline.SourceInfo, at time.Time, opts HintOptions) []timeline.Hint {
	opts = opts.withDefaults()
	from := at.Add(-HintLookback)
	if first := s.First(); from.Before(first) {
		from = first
	}
	var active []timeline.Hint
	for _, h := range EvaluateHints(s, info, from, at, opts) {
		if !h.End.Before(at.Add(-2 * opts.Window)) {
			active = append(active, h)
		}
	}
	return active
}

// SameHints says whether two sets of hints name the same problems: the
// same rules on the same GPUs at the same severity, in order. Their
// evidence and times move on while a problem lasts; that is not a change.
func SameHints(a, b []timeline.Hint) bool {
	return slices.EqualFunc(a, b, func(x, y timeline.Hint) bool {
		return x.ID == y.ID && x.Severity == y.Severity && slices.Equal(x.GPUs, y.GPUs)
	})
}
