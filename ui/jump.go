package ui

import (
	"fmt"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/jump"
	"github.com/gputop-dev/gputop/ui/playback"
)

// jumpTo moves the cursor to what the person typed.
func (m *Model) jumpTo(answer string) {
	first, last := m.store.First(), m.store.Last()
	t, err := playback.ParseTime(answer, m.play.Cursor, first, last)
	if err != nil {
		m.note = err.Error()
		return
	}
	if t.Before(first) || t.After(last) {
		m.note = fmt.Sprintf("%s is outside the session (%s to %s)", draw.Clock(t, true), draw.Clock(first, true), draw.Clock(last, true))
		return
	}
	m.play.Seek(t, first, last)
}

// jumpMarker moves to the previous (dir < 0) or next marker, hint or
// stall from the cursor: `[` and `]`, where package jump says.
func (m *Model) jumpMarker(dir int) {
	targets := m.an.targets(m.store.Markers())
	if len(targets) == 0 {
		m.note = "no markers or hints yet: press m to add a marker"
		return
	}
	span, step := m.jumpSpan()
	var hintsAt func(time.Time) []timeline.Hint
	if m.an.engine != nil {
		hintsAt = m.an.engine.Hints
	}
	target, ok := jump.Next(targets, m.play.Cursor, dir, func(i int) time.Time {
		return jump.Landing(targets, i, span, step, m.store.Last(), hintsAt)
	})
	if !ok {
		m.note = "no more markers or hints that way"
		return
	}
	m.play.Seek(target, m.store.First(), m.store.Last())
}

// jumpSpan is the window a jump shows and its column: the zoom now, or,
// from a replay's opening view, the live view's the jump turns to.
func (m *Model) jumpSpan() (span, step time.Duration) {
	p := m.play
	if p.OpenWhole {
		p.Zoom = playback.DefaultZoom(m.lay.Spark, m.info.Interval)
	}
	span = p.Span(m.store.First(), m.store.Last())
	return span, m.stepOf(span)
}
