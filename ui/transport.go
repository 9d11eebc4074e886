package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/playback"
)

// viewTransport is a replay's position in the whole recording:
//
//	▶ 2x ━━━━━━━━━●───────────── 12m31s of 1h02m   09:00:00 - 10:02:00
func (m *Model) viewTransport() string {
	first, last := m.store.First(), m.store.Last()
	ln := m.newLine(m.width)
	state := m.glyph.Paused
	if m.play.Motion == playback.Playing {
		state = m.glyph.Playing
	}
	ln.Add(fmt.Sprintf(" %s %gx ", state, m.play.Speed), m.theme.Bold)
	total := last.Sub(first)
	pos := m.play.Cursor.Sub(first)
	tail := fmt.Sprintf(" %s of %s  %s - %s", draw.Duration(pos), draw.Duration(total),
		draw.Clock(first, total > 20*time.Hour), draw.Clock(last, total > 20*time.Hour))
	if !m.sourceDone {
		tail += " loading" + m.glyph.Ellipsis
	}
	if m.play.Motion == playback.Paused {
		// Where a replay opens (paused at its end) space plays it from the
		// start; elsewhere from where it is.
		if !m.play.Cursor.Before(last) {
			tail += "  space plays from the start"
		} else {
			tail += "  space plays"
		}
	}
	bar := m.width - ln.Width() - len([]rune(tail)) - 1
	if bar >= 10 {
		ln.Add(m.progressBar(bar, pos, total), m.theme.Live)
	}
	ln.Add(tail, m.theme.Dim)
	return ln.String()
}

// progressBar draws a track of n columns with a knob at pos/total.
func (m *Model) progressBar(n int, pos, total time.Duration) string {
	done, knob, rest := "━", "●", "─"
	if m.ascii {
		done, knob, rest = "=", "|", "-"
	}
	at := 0
	if total > 0 {
		at = int(float64(n-1) * float64(pos) / float64(total))
	}
	at = max(0, min(n-1, at))
	return strings.Repeat(done, at) + knob + strings.Repeat(rest, n-1-at)
}
