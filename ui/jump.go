package ui

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
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
// stall from the cursor: `[` and `]`. A marker is landed on where it is.
// A hint or a stall is landed on where the screen shows a hint on its GPUs
// holding (landing): the hints are judged as of the cursor, and one is
// named only once a window of it is in (30 s and more after it began), so
// the moment it begins shows none, or the last one ended. Each landing
// lies before the next target's start, so the landings keep the targets'
// order and [ retraces ].
func (m *Model) jumpMarker(dir int) {
	at := m.play.Cursor
	targets := m.jumpTargets()
	if len(targets) == 0 {
		m.note = "no markers or hints yet: press m to add a marker"
		return
	}
	span, step := m.jumpSpan()
	land := func(i int) time.Time { return m.landing(targets, i, span, step) }
	// i is the last target at or before the cursor (-1: none).
	i := sort.Search(len(targets), func(k int) bool { return targets[k].at.After(at) }) - 1
	var target time.Time
	if dir < 0 {
		if i >= 0 {
			if l := land(i); l.Before(at) {
				target = l
			} else if i > 0 {
				target = land(i - 1)
			}
		}
	} else {
		if i >= 0 {
			if l := land(i); l.After(at) {
				target = l
			}
		}
		if target.IsZero() && i+1 < len(targets) {
			target = land(i + 1)
		}
	}
	if target.IsZero() {
		m.note = "no more markers or hints that way"
		return
	}
	m.play.Seek(target, m.store.First(), m.store.Last())
}

// landing is where [ and ] put the cursor for targets[i]: a marker where
// it is; a hint or stall at the first column, within a window of its
// start and before the next target, where a hint on its GPUs holds as the
// screen judges it there, so the jump shows it active, not ended; where
// none does, its start.
func (m *Model) landing(targets []jumpTarget, i int, span, step time.Duration) time.Time {
	t := targets[i]
	if !t.hint || m.an.engine == nil {
		return t.at
	}
	end := m.store.Last()
	if e := t.at.Add(span); e.Before(end) {
		end = e
	}
	if i+1 < len(targets) && !targets[i+1].at.After(end) {
		end = targets[i+1].at.Add(-1)
	}
	for c := t.at; !c.After(end); c = c.Add(step) {
		if holds(m.an.engine.Hints(c), t.gpus) {
			return c
		}
	}
	return t.at
}

// holds says whether a hint on one of gpus (on the host, for none) still
// holds.
func holds(hs []timeline.Hint, gpus []int) bool {
	for _, h := range hs {
		if !h.Ongoing {
			continue
		}
		if len(gpus) == 0 && len(h.GPUs) == 0 {
			return true
		}
		for _, g := range h.GPUs {
			if slices.Contains(gpus, g) {
				return true
			}
		}
	}
	return false
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
