package ui

import (
	"fmt"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/jump"
	"github.com/gputop-dev/gputop/ui/playback"
)

// goTo moves the cursor over st to what the person typed (t), or says why
// it does not.
func (c *cursor) goTo(answer string, st *timeline.Store) (why string) {
	first, last := st.First(), st.Last()
	t, err := playback.ParseTime(answer, c.Cursor, first, last)
	if err != nil {
		return err.Error()
	}
	if t.Before(first) || t.After(last) {
		return fmt.Sprintf("%s is outside the session (%s to %s)", draw.Clock(t, true), draw.Clock(first, true), draw.Clock(last, true))
	}
	c.Seek(t, first, last)
	return ""
}

// jumpBy moves to the previous (dir < 0) or next marker, hint or stall
// of targets from the cursor (`[` and `]`, where package jump says), in
// the window of spark columns that will show it; hintsAt is the analysis
// (nil: none). It says why it does not move.
func (c *cursor) jumpBy(dir int, targets []jump.Target, st *timeline.Store, spark int, interval time.Duration,
	hintsAt func(time.Time) []timeline.Hint) (why string) {
	if len(targets) == 0 {
		return "no markers or hints yet: press m to add a marker"
	}
	// The window a jump shows, and its column: the zoom now, or, from a
	// replay's opening view, the live view's the jump turns to.
	p := c.State
	if p.OpenWhole {
		p.Zoom = playback.DefaultZoom(spark, interval)
	}
	span := p.Span(st.First(), st.Last())
	step := stepOf(span, spark, st.Interval())
	target, ok := jump.Next(targets, c.Cursor, dir, func(i int) time.Time {
		return jump.Landing(targets, i, span, step, st.Last(), hintsAt)
	})
	if !ok {
		return "no more markers or hints that way"
	}
	c.Seek(target, st.First(), st.Last())
	return ""
}

// columnStep is one sparkline column (of spark) of the window now, and
// never less than one sample of st: a step always shows something new.
func (c *cursor) columnStep(st *timeline.Store, spark int) time.Duration {
	return stepOf(c.Span(st.First(), st.Last()), spark, st.Interval())
}

// stepOf is one of spark columns of a window of span, at least a sample
// (interval).
func stepOf(span time.Duration, spark int, interval time.Duration) time.Duration {
	// Never 0: a step always moves.
	return max(span/time.Duration(max(1, spark)), interval, time.Nanosecond)
}

// noteWhy shows why a key did nothing, if it says.
func (m *Model) noteWhy(why string) {
	if why != "" {
		m.note = why
	}
}
