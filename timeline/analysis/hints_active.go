package analysis

import (
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// HintLookback is how long after a hint stops holding the screen still
// lists it, dimmed ("ended 40 s ago"): long enough that a hint never
// blinks out and back as a problem comes and goes, short enough that a
// problem fixed leaves the screen within minutes.
const HintLookback = 10 * time.Minute

// Shown are the hints the screen lists at t of those that Hints(t) gives:
// the ones still holding (Ongoing), and those that ended within
// HintLookback.
func Shown(hints []timeline.Hint, t time.Time) []timeline.Hint {
	var out []timeline.Hint
	for _, h := range hints {
		if h.Ongoing || !h.End.Before(t.Add(-HintLookback)) {
			out = append(out, h)
		}
	}
	return out
}

// SameHints says whether two sets of hints name the same problems: the
// same rules on the same GPUs at the same severity, in order, equally
// provisional and ongoing. Their evidence and times move on while a
// problem lasts; that is not a change.
func SameHints(a, b []timeline.Hint) bool {
	return slices.EqualFunc(a, b, func(x, y timeline.Hint) bool {
		return x.ID == y.ID && x.Severity == y.Severity && x.Provisional == y.Provisional && x.Ongoing == y.Ongoing &&
			slices.Equal(x.GPUs, y.GPUs)
	})
}
