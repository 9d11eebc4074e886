package transport

import (
	"fmt"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/playback"
)

// State is what the row shows: the recording's first and last sample
// loaded, the cursor, how it moves and how fast, and whether more of the
// file is still loading.
type State struct {
	First, Last, Cursor time.Time
	Motion              playback.Motion
	Speed               float64
	Loading             bool
}

// View is a replay's position in the whole recording:
//
//	▶ 2x ━━━━━━━━━●───────────── 12m31s of 1h02m   09:00:00 - 10:02:00
func View(pen draw.Pen, s State) string {
	ln := pen.NewLine(pen.Width)
	state := pen.Glyph.Paused
	if s.Motion == playback.Playing {
		state = pen.Glyph.Playing
	}
	ln.Add(fmt.Sprintf(" %s %gx ", state, s.Speed), pen.Theme.Bold)
	total := s.Last.Sub(s.First)
	pos := s.Cursor.Sub(s.First)
	tail := fmt.Sprintf(" %s of %s  %s - %s", draw.Duration(pos), draw.Duration(total),
		draw.Clock(s.First, total > 20*time.Hour), draw.Clock(s.Last, total > 20*time.Hour))
	if s.Loading {
		tail += " loading" + pen.Glyph.Ellipsis
	}
	if s.Motion == playback.Paused {
		// Where a replay opens (paused at its end) space plays it from the
		// start; elsewhere from where it is.
		if !s.Cursor.Before(s.Last) {
			tail += "  space plays from the start"
		} else {
			tail += "  space plays"
		}
	}
	bar := pen.Width - ln.Width() - len([]rune(tail)) - 1
	if bar >= 10 {
		ln.Add(track(bar, pos, total, pen.ASCII), pen.Theme.Live)
	}
	ln.Add(tail, pen.Theme.Dim)
	return ln.String()
}

// track draws n columns with a knob at pos/total.
func track(n int, pos, total time.Duration, ascii bool) string {
	done, knob, rest := "━", "●", "─"
	if ascii {
		done, knob, rest = "=", "|", "-"
	}
	at := 0
	if total > 0 {
		at = int(float64(n-1) * float64(pos) / float64(total))
	}
	at = max(0, min(n-1, at))
	return strings.Repeat(done, at) + knob + strings.Repeat(rest, n-1-at)
}
