package ui

import (
	"fmt"
	"time"

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

// jumpMarker moves to the previous (dir < 0) or next marker or hint from
// the cursor: `[` and `]`. A hint counts where it begins.
func (m *Model) jumpMarker(dir int) {
	at := m.play.Cursor
	targets := m.jumpTargets()
	var target time.Time
	if dir < 0 {
		for i := len(targets) - 1; i >= 0; i-- {
			if targets[i].Before(at) {
				target = targets[i]
				break
			}
		}
	} else {
		for _, t := range targets {
			if t.After(at) {
				target = t
				break
			}
		}
	}
	if target.IsZero() {
		if len(targets) == 0 {
			m.note = "no markers or hints yet: press m to add a marker"
		} else {
			m.note = "no more markers or hints that way"
		}
		return
	}
	m.play.Seek(target, m.store.First(), m.store.Last())
}
