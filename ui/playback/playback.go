package playback

import (
	"slices"
	"time"
)

// Motion is what the cursor does on its own.
type Motion uint8

const (
	// Following pins the cursor to the newest sample: a live view.
	Following Motion = iota
	// Playing moves the cursor forward at a speed: a replay.
	Playing
	// Paused holds it still; samples still arrive.
	Paused
)

// ZoomLevels are the window spans + and - step through; past the last comes
// the whole session.
var ZoomLevels = []time.Duration{
	30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute,
	30 * time.Minute, time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
	3 * 24 * time.Hour, 7 * 24 * time.Hour,
}

// Speeds are the replay speeds < and > step through.
var Speeds = []float64{0.25, 0.5, 1, 2, 4, 8, 16, 32, 64}

// State is the cursor over the timeline and how it moves. Live and
// replay are the same thing here: a live view is a replay whose cursor
// follows the newest sample. All times come from samples and from tick
// messages, never from the clock.
type State struct {
	Cursor time.Time
	Motion Motion
	Speed  float64
	// Zoom indexes ZoomLevels; len(ZoomLevels) means the whole session.
	Zoom     int
	lastTick time.Time
	// Grows says the data grows in real time (live or demo), so resuming
	// goes back to the newest sample rather than playing from the past.
	Grows bool
	// OpenWhole says a replay still shows what it opened on: all of the
	// file loaded so far, the cursor at its end (where the hints are the
	// whole file's: a postmortem starts from its verdict), paused. The
	// first key that moves the cursor or the zoom ends it.
	OpenWhole bool
}

// Span is the width of the window in time. "The whole session" is the
// session up to the cursor, so a paused view stays still as samples arrive.
func (p *State) Span(first, last time.Time) time.Duration {
	if p.Zoom < len(ZoomLevels) {
		return ZoomLevels[p.Zoom]
	}
	return max(p.Cursor.Sub(first), ZoomLevels[0])
}

// Window is the span of time the screen shows: it ends at the cursor.
func (p *State) Window(first, last time.Time) (from, to time.Time) {
	return p.Cursor.Add(-p.Span(first, last)), p.Cursor
}

// OnSamples keeps a following cursor on the newest sample.
func (p *State) OnSamples(last time.Time) {
	if p.Motion == Following {
		p.Cursor = last
	}
}

// OnTick moves a playing cursor by speed × the time since the last tick.
// It reports whether it should keep ticking.
func (p *State) OnTick(at, last time.Time, sourceDone bool) bool {
	if p.Motion != Playing {
		p.lastTick = time.Time{}
		return false
	}
	if !p.lastTick.IsZero() && at.After(p.lastTick) {
		p.Cursor = p.Cursor.Add(time.Duration(float64(at.Sub(p.lastTick)) * p.Speed))
	}
	p.lastTick = at
	if !p.Cursor.Before(last) {
		p.Cursor = last
		switch {
		case p.Grows:
			p.Motion = Following
			return false
		case sourceDone:
			p.Motion = Paused
			return false
		}
	}
	return true
}

// TickEvery is how often a playing cursor moves: one sample's worth of
// replay time, but no more than ten times a second.
func (p *State) TickEvery(interval time.Duration) time.Duration {
	if interval <= 0 {
		interval = time.Second
	}
	return max(time.Duration(float64(interval)/p.Speed), 100*time.Millisecond)
}

// TogglePause is space. It reports whether playback needs ticks now.
func (p *State) TogglePause(first, last time.Time) bool {
	switch p.Motion {
	case Following, Playing:
		p.Motion = Paused
		return false
	}
	if p.Grows {
		p.Motion, p.Cursor = Following, last
		return false
	}
	if !p.Cursor.Before(last) {
		// At the end of a recording (where it opens): play it from the
		// start. The whole-file zoom grows with the cursor.
		p.Cursor = first
	}
	p.Motion, p.lastTick = Playing, time.Time{}
	return true
}

// Step moves the cursor by d (negative: back), clamped to the data. Moving
// a following cursor pauses it first: you cannot scroll a moving view.
func (p *State) Step(d time.Duration, first, last time.Time) { p.Seek(p.Cursor.Add(d), first, last) }

// Home is g: the window starts at the first sample. Zoomed out to the
// whole session, whose window always starts there, it zooms in to the
// longest window shorter than the session, at its start.
func (p *State) Home(first, last time.Time) {
	if p.Zoom >= len(ZoomLevels) {
		// Shorter than the whole recording, not than the session up to
		// the cursor (ZoomIn): there is always a window to show there.
		p.Zoom = levelBelow(last.Sub(first))
	}
	p.Seek(first.Add(p.Span(first, last)), first, last)
}

// End is G: the newest sample; a live view follows again.
func (p *State) End(last time.Time) {
	p.Cursor = last
	if p.Grows {
		p.Motion = Following
	}
}

// Seek puts the cursor at t, clamped to the data, pausing a following one.
func (p *State) Seek(t, first, last time.Time) {
	if p.Motion == Following {
		p.Motion = Paused
	}
	p.Cursor = ClampTime(t, first, last)
}

// ZoomIn and ZoomOut step the window span; zooming out past the longest
// level that is shorter than the session shows the whole session. "The
// whole session" ends at the cursor (Span), so both measure against the
// session up to the cursor: + never widens the window and - never narrows
// it, wherever the cursor is in a replay.
func (p *State) ZoomIn(first, last time.Time) {
	if p.Zoom >= len(ZoomLevels) {
		p.Zoom = levelBelow(p.Span(first, last))
		return
	}
	p.Zoom = max(0, p.Zoom-1)
}

// ZoomOut is -: a longer window (see ZoomIn). Where the next level would
// show all of the session up to the cursor, it shows the whole session,
// unless that is shorter than the window now (1m40s into a replay at 5m):
// then the window stays, and ZoomOut reports false.
func (p *State) ZoomOut(first, last time.Time) bool {
	if p.Zoom >= len(ZoomLevels) {
		return true
	}
	whole := State{Cursor: p.Cursor, Zoom: len(ZoomLevels)}
	if next := p.Zoom + 1; next < len(ZoomLevels) && ZoomLevels[next] < whole.Span(first, last) {
		p.Zoom = next
		return true
	}
	if whole.Span(first, last) < p.Span(first, last) {
		return false
	}
	p.Zoom = len(ZoomLevels)
	return true
}

// levelBelow is the longest level shorter than d, or the shortest.
func levelBelow(d time.Duration) int {
	i, _ := slices.BinarySearch(ZoomLevels, d) // the first level of d or longer
	return max(0, i-1)
}

// DefaultZoom picks the longest level that gives each column at least one
// sample, so the first view shows every sample there is.
func DefaultZoom(columns int, interval time.Duration) int {
	if interval <= 0 {
		interval = time.Second
	}
	// The longest level no longer than a sample a column: shorter than
	// one nanosecond more.
	return levelBelow(time.Duration(columns)*interval + 1)
}

// Faster is >: the next replay speed up.
func (p *State) Faster() { p.Speed = nextSpeed(p.Speed, +1) }

// Slower is <: the next replay speed down.
func (p *State) Slower() { p.Speed = nextSpeed(p.Speed, -1) }

func nextSpeed(cur float64, dir int) float64 {
	i, found := slices.BinarySearch(Speeds, cur) // the first speed >= cur
	if dir <= 0 {
		i--
	} else if found {
		i++
	}
	return Speeds[max(0, min(i, len(Speeds)-1))]
}

// ClampTime is t within lo and hi.
func ClampTime(t, lo, hi time.Time) time.Time {
	if t.Before(lo) {
		return lo
	}
	if t.After(hi) {
		return hi
	}
	return t
}
