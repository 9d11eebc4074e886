package ui

import (
	"fmt"
	"strings"
	"time"
)

// viewTransport is a replay's position in the whole recording:
//
//	▶ 2x ━━━━━━━━━●───────────── 12m31s of 1h02m   09:00:00 - 10:02:00
func (m *Model) viewTransport() string {
	first, last := m.store.First(), m.store.Last()
	ln := m.newLine(m.width)
	state := m.glyph.paused
	if m.play.motion == playing {
		state = m.glyph.playing
	}
	ln.add(fmt.Sprintf(" %s %gx ", state, m.play.speed), m.theme.bold)
	total := last.Sub(first)
	pos := m.play.cursor.Sub(first)
	tail := fmt.Sprintf(" %s of %s  %s - %s", fmtDuration(pos), fmtDuration(total),
		fmtClock(first, total > 20*time.Hour), fmtClock(last, total > 20*time.Hour))
	if !m.sourceDone {
		tail += " loading" + m.glyph.ellipsis
	}
	if m.play.motion == paused {
		// Where a replay opens (paused at its end) space plays it from the
		// start; elsewhere from where it is.
		if !m.play.cursor.Before(last) {
			tail += "  space plays from the start"
		} else {
			tail += "  space plays"
		}
	}
	bar := m.width - ln.w - len([]rune(tail)) - 1
	if bar >= 10 {
		ln.add(m.progressBar(bar, pos, total), m.theme.live)
	}
	ln.add(tail, m.theme.dim)
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
