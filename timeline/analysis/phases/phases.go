package phases

import (
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// NoData marks a window without GPU data while classifying; the Engine's
// Phases never returns it.
const NoData timeline.PhaseKind = 255

// FillGaps gives every NoData window the kind before it (after it, for the
// leading ones). It reports false when no window has data.
func FillGaps(kinds []timeline.PhaseKind) bool {
	firstKnown := slices.IndexFunc(kinds, func(k timeline.PhaseKind) bool { return k != NoData })
	if firstKnown < 0 {
		return false
	}
	for i := range firstKnown {
		kinds[i] = kinds[firstKnown]
	}
	for i := firstKnown + 1; i < len(kinds); i++ {
		if kinds[i] == NoData {
			kinds[i] = kinds[i-1]
		}
	}
	return true
}

// FromMarkers turns markers into labelled phases: each runs from its marker
// to the next one (or to `to`), clipped to [from, to], and is labelled with
// the marker's text. The marker current at `from` (the last one before it)
// opens the first phase; markers after `to` are left out. Of several markers
// at one instant the last one names the phase.
//
// A job that names its phases (its own lines, timeline.JobOrigin) owns
// them: a marker from elsewhere (`gputop mark`, the m key) is a moment
// noted within the job's phase, not the end of it. A mark during a
// checkpoint once split it into a phase of 219 ms of its own.
func FromMarkers(markers []timeline.Marker, from, to time.Time) []timeline.Phase {
	jobNamed := slices.ContainsFunc(markers, func(m timeline.Marker) bool { return m.Origin == timeline.JobOrigin })
	// An Xid's or an alert's marker is an event, not the start of a phase
	// of the job.
	sorted := slices.DeleteFunc(slices.Clone(markers), func(m timeline.Marker) bool {
		return m.Event() || jobNamed && m.Origin != timeline.JobOrigin
	})
	slices.SortStableFunc(sorted, func(a, b timeline.Marker) int { return a.At.Compare(b.At) })
	var out []timeline.Phase
	for i, m := range sorted {
		end := to
		if i+1 < len(sorted) && sorted[i+1].At.Before(to) {
			end = sorted[i+1].At
		}
		start := m.At
		if start.Before(from) {
			start = from
		}
		if !end.After(start) {
			continue
		}
		out = append(out, timeline.Phase{Start: start, End: end, Kind: timeline.PhaseMarked, Label: m.Text})
	}
	return out
}
