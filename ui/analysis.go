package ui

import (
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/ui/jump"
	"github.com/gputop-dev/gputop/ui/playback"
)

// analysisState is the screen's analysis: the process's Judge, which took
// the samples on their way here (Options.Judge: live, the one analysis
// the recording and /metrics ask too), or an Engine of the screen's own fed
// every sample as it arrives (a replay, an attach: the analysis gputop
// report runs too); and what it said for the cursor. It is brought up to
// date in Update (refresh, from settle), never in View: drawing reads it and
// changes nothing.
type analysisState struct {
	engine analyst
	// shared says engine is the process's Judge: the screen asks it and
	// never feeds it.
	shared bool

	at      time.Time // the cursor it was asked about
	samples int       // how many samples the Engine had then
	// hints are Engine.Hints(at): what gputop report --to at says. shown
	// are those the panel lists: holding, or ended within
	// analysis.HintLookback, dimmed.
	hints, shown []timeline.Hint
	// phases are every phase of the session so far: the band draws the
	// ones in its window, so zooming and scrolling never change them.
	phases []timeline.Phase

	jumpSamples int
	jumps       []jump.Target // markers, episode and stall starts, for [ and ]
	// following says the cursor followed the newest sample when it was
	// last asked about (see refresh).
	following bool
}

// BigSession is the number of GPUs from which a session followed live is
// judged every few seconds of sample time, not every sample (judgeEvery),
// and its collector paced by headroom (main's hostsGCPercent).
const BigSession = 128

// judgeEvery is how much sample time goes by between two judgements of a
// session of gpus GPUs followed live: every sample below BigSession, 5 s
// from it, 10 s from four times it (64 hosts of 8 GPUs). A judgement costs
// in proportion to the GPUs, and the hints rest on windows of 30 s and
// more, so a hint is seen at most a third of its shortest window late.
func judgeEvery(gpus int) time.Duration {
	switch {
	case gpus >= 4*BigSession:
		return 10 * time.Second
	case gpus >= BigSession:
		return 5 * time.Second
	}
	return 0
}

// analyst is what the screen asks of the analysis: an *analysis.Engine or
// an *analysis.Judge.
type analyst interface {
	Len() int
	First() time.Time
	Last() time.Time
	Hints(t time.Time) []timeline.Hint
	Phases(from, to time.Time) []timeline.Phase
}

// feed gives the screen's own Engine new samples, with the source's
// description as it stands (info: a GPU found later, a limit now known).
// A Judge has taken them already.
func (a *analysisState) feed(ss []timeline.Sample, info timeline.SourceInfo) {
	if a.shared {
		return
	}
	e, _ := a.engine.(*analysis.Engine)
	if e == nil {
		e = analysis.NewEngine(info)
		a.engine = e
	}
	e.SetInfo(info)
	for i := range ss {
		e.Add(&ss[i])
	}
}

// refresh asks the Engine again when the cursor (play's, in a session of
// gpus GPUs) has moved or samples have arrived since it last asked: a
// paused screen asks nothing.
func (a *analysisState) refresh(play *playback.State, gpus int) {
	if a.engine == nil || a.engine.Len() == 0 {
		return
	}
	at := play.Cursor
	if at.Equal(a.at) && a.engine.Len() == a.samples {
		return
	}
	// A big session followed live is judged every few seconds, not every
	// second: its judgement is most of what the viewer costs (64 hosts of
	// 8 GPUs), and its hints rest on windows of 30 s and more. Anything
	// else that moves the cursor is answered at once.
	every := judgeEvery(gpus)
	if every > 0 && a.following && play.Motion == playback.Following && at.After(a.at) && at.Sub(a.at) < every {
		return
	}
	a.following = play.Motion == playback.Following
	if a.engine.Len() != a.samples {
		a.phases = a.engine.Phases(a.engine.First(), a.engine.Last())
	}
	a.at, a.samples = at, a.engine.Len()
	a.hints = a.engine.Hints(at)
	a.shown = analysis.Shown(a.hints, at)
}

// targets are the places [ and ] go to over the whole session
// (jump.Targets) with its markers, asked for again only when samples have
// arrived since.
func (a *analysisState) targets(markers []timeline.Marker) []jump.Target {
	if a.engine == nil || (a.jumpSamples == a.engine.Len() && a.jumps != nil) {
		return a.jumps
	}
	a.jumpSamples = a.engine.Len()
	var hints []timeline.Hint
	var phases []timeline.Phase
	if a.engine.Len() > 0 {
		hints, phases = a.engine.Hints(a.engine.Last()), a.engine.Phases(a.engine.First(), a.engine.Last())
	}
	a.jumps = jump.Targets(a.jumps, markers, hints, phases)
	return a.jumps
}

// HintsShown is what the hints panel lists now: the hints that hold at the
// cursor, and those that ended within analysis.HintLookback, as the
// analysis said them.
func (m *Model) HintsShown() []timeline.Hint { return slices.Clone(m.an.shown) }
