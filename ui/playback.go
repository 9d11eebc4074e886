package ui

import (
	"sort"
	"time"
)

// motion is what the cursor does on its own.
type motion uint8

const (
	// following pins the cursor to the newest sample: a live view.
	following motion = iota
	// playing moves the cursor forward at a speed: a replay.
	playing
	// paused holds it still; samples still arrive.
	paused
)

// zoomLevels are the window spans + and - step through; past the last comes
// the whole session.
var zoomLevels = []time.Duration{
	30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute,
	30 * time.Minute, time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
	3 * 24 * time.Hour, 7 * 24 * time.Hour,
}

// Replay speeds for < and >.
var speeds = []float64{0.25, 0.5, 1, 2, 4, 8, 16, 32, 64}

// playback is the cursor over the timeline and how it moves. Live and
// replay are the same thing here: a live view is a replay whose cursor
// follows the newest sample. All times come from samples and from tick
// messages, never from the clock.
type playback struct {
	cursor time.Time
	motion motion
	speed  float64
	// zoom indexes zoomLevels; len(zoomLevels) means the whole session.
	zoom     int
	lastTick time.Time
	// grows says the data grows in real time (live or demo), so resuming
	// goes back to the newest sample rather than playing from the past.
	grows bool
	// openWhole says a replay still shows what it opened on: all of the
	// file loaded so far, the cursor at its end (where the hints are the
	// whole file's: a postmortem starts from its verdict), paused. The
	// first key that moves the cursor or the zoom ends it.
	openWhole bool
}

// span is the width of the window in time. "The whole session" is the
// session up to the cursor, so a paused view stays still as samples arrive.
func (p *playback) span(first, last time.Time) time.Duration {
	if p.zoom < len(zoomLevels) {
		return zoomLevels[p.zoom]
	}
	if d := p.cursor.Sub(first); d > zoomLevels[0] {
		return d
	}
	return zoomLevels[0]
}

// window is the span of time the screen shows: it ends at the cursor.
func (p *playback) window(first, last time.Time) (from, to time.Time) {
	return p.cursor.Add(-p.span(first, last)), p.cursor
}

// onSamples keeps a following cursor on the newest sample.
func (p *playback) onSamples(last time.Time) {
	if p.motion == following {
		p.cursor = last
	}
}

// onTick moves a playing cursor by speed × the time since the last tick.
// It reports whether it should keep ticking.
func (p *playback) onTick(at, last time.Time, sourceDone bool) bool {
	if p.motion != playing {
		p.lastTick = time.Time{}
		return false
	}
	if !p.lastTick.IsZero() && at.After(p.lastTick) {
		p.cursor = p.cursor.Add(time.Duration(float64(at.Sub(p.lastTick)) * p.speed))
	}
	p.lastTick = at
	if !p.cursor.Before(last) {
		p.cursor = last
		switch {
		case p.grows:
			p.motion = following
			return false
		case sourceDone:
			p.motion = paused
			return false
		}
	}
	return true
}

// tickEvery is how often a playing cursor moves: one sample's worth of
// replay time, but no more than ten times a second.
func (p *playback) tickEvery(interval time.Duration) time.Duration {
	if interval <= 0 {
		interval = time.Second
	}
	d := time.Duration(float64(interval) / p.speed)
	if d < 100*time.Millisecond {
		d = 100 * time.Millisecond
	}
	return d
}

// togglePause is space. It reports whether playback needs ticks now.
func (p *playback) togglePause(first, last time.Time) bool {
	switch p.motion {
	case following, playing:
		p.motion = paused
		return false
	}
	if p.grows {
		p.motion, p.cursor = following, last
		return false
	}
	if !p.cursor.Before(last) {
		// At the end of a recording (where it opens): play it from the
		// start. The whole-file zoom grows with the cursor.
		p.cursor = first
	}
	p.motion, p.lastTick = playing, time.Time{}
	return true
}

// step moves the cursor by d (negative: back), clamped to the data. Moving
// a following cursor pauses it first: you cannot scroll a moving view.
func (p *playback) step(d time.Duration, first, last time.Time) {
	if p.motion == following {
		p.motion = paused
	}
	p.cursor = clampTime(p.cursor.Add(d), first, last)
}

// home is g: the window starts at the first sample. Zoomed out to the
// whole session, whose window always starts there, it zooms in to the
// longest window shorter than the session, at its start.
func (p *playback) home(first, last time.Time) {
	if p.motion == following {
		p.motion = paused
	}
	if p.zoom >= len(zoomLevels) {
		p.zoomIn(first, last)
	}
	p.cursor = clampTime(first.Add(p.span(first, last)), first, last)
}

// end is G: the newest sample; a live view follows again.
func (p *playback) end(last time.Time) {
	p.cursor = last
	if p.grows {
		p.motion = following
	}
}

// seek puts the cursor at t.
func (p *playback) seek(t, first, last time.Time) {
	if p.motion == following {
		p.motion = paused
	}
	p.cursor = clampTime(t, first, last)
}

// zoomIn and zoomOut step the window span; zooming out past the longest
// level that is shorter than the session shows the whole session.
func (p *playback) zoomIn(first, last time.Time) {
	if p.zoom >= len(zoomLevels) {
		session := last.Sub(first)
		p.zoom = len(zoomLevels) - 1
		for p.zoom > 0 && zoomLevels[p.zoom] >= session {
			p.zoom--
		}
		return
	}
	if p.zoom > 0 {
		p.zoom--
	}
}

func (p *playback) zoomOut(first, last time.Time) {
	if p.zoom >= len(zoomLevels) {
		return
	}
	p.zoom++
	if p.zoom < len(zoomLevels) && zoomLevels[p.zoom] >= last.Sub(first) {
		p.zoom = len(zoomLevels)
	}
}

// defaultZoom picks the longest level that gives each column at least one
// sample, so the first view shows every sample there is.
func defaultZoom(columns int, interval time.Duration) int {
	if interval <= 0 {
		interval = time.Second
	}
	want := time.Duration(columns) * interval
	z := 0
	for z+1 < len(zoomLevels) && zoomLevels[z+1] <= want {
		z++
	}
	return z
}

func (p *playback) faster() { p.speed = nextSpeed(p.speed, +1) }
func (p *playback) slower() { p.speed = nextSpeed(p.speed, -1) }

func nextSpeed(cur float64, dir int) float64 {
	i := sort.SearchFloat64s(speeds, cur) // the first speed >= cur
	if dir > 0 {
		if i < len(speeds) && speeds[i] == cur {
			i++
		}
	} else {
		i--
	}
	return speeds[max(0, min(i, len(speeds)-1))]
}

func clampTime(t, lo, hi time.Time) time.Time {
	if t.Before(lo) {
		return lo
	}
	if t.After(hi) {
		return hi
	}
	return t
}
