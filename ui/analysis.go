package ui

import (
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
)

// hintEvery is how much sample time passes between evaluations: hints are
// judged over minutes, so judging every second would only cost CPU.
const hintEvery = 5 * time.Second

// judged caches what the pure functions over the timeline say about the
// window on screen (phases) and about the cursor (hints), so View stays
// cheap and a paused screen draws the same thing every time.
type judged struct {
	phaseFrom, phaseTo time.Time
	phaseStep          time.Time // phaseTo rounded down to phaseStep
	phases             []timeline.Phase

	hintAt time.Time
	hints  []timeline.Hint

	jumpSamples int
	jumps       []time.Time // markers and hint starts, for [ and ]
}

// phaseStep is how often the phase band is judged again as time moves on:
// phases are classified in windows of this size (analysis.Segment aligns
// them to it), so nothing can change in between.
const phaseStep = 5 * time.Second

// phasesFor returns the automatic phases of [from, to]. It segments again
// only when the window has moved into a new 5 s step or by a column;
// meanwhile the last phase is taken to go on to the window's end.
func (m *Model) phasesFor(from, to time.Time, colWidth time.Duration) []timeline.Phase {
	a := &m.judged
	step := to.Truncate(phaseStep)
	moved := absDuration(from.Sub(a.phaseFrom)) >= max(colWidth, phaseStep) || !step.Equal(a.phaseStep)
	if a.phaseTo.IsZero() || moved || to.Before(a.phaseTo) {
		a.phaseFrom, a.phaseTo, a.phaseStep = from, to, step
		a.phases = analysis.Segment(m.store, m.info, from, to, analysis.DefaultPhaseOptions())
	}
	if n := len(a.phases); n > 0 && a.phases[n-1].End.Before(to) {
		a.phases[n-1].End = to
	}
	return a.phases
}

// hintsAt returns the hints active at the cursor: judged over the last
// minutes before it, and still holding at its end. They are judged at the
// cursor's time rounded down to hintEvery, so they are a function of the
// cursor alone: the same live, in a replay, and paused while samples arrive.
func (m *Model) hintsAt(at time.Time) []timeline.Hint {
	a := &m.judged
	judged := at.Truncate(hintEvery)
	if judged.Before(m.store.First()) {
		judged = m.store.First()
	}
	if judged.Equal(a.hintAt) && a.hints != nil {
		return a.hints
	}
	a.hintAt = judged
	a.hints = analysis.ActiveHints(m.store, m.info, judged, analysis.DefaultHintOptions())
	if a.hints == nil {
		a.hints = []timeline.Hint{}
	}
	return a.hints
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
