package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/ui/draw"
)

// ParseTime reads a time the way the t key does, for replay's --start. It
// understands
//
//	14:03 or 14:03:20      a time of day, on the day the cursor is on
//	+10m, +1h30m           that long after the first sample
//	-5m                    that long before the newest sample
//	2026-11-22 14:03:20    a full date and time (or RFC 3339)
//
// Times of day and dates are in the zone the samples are shown in.
func ParseTime(s string, cursor, first, last time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	loc := cursor.Location()
	switch {
	case strings.HasPrefix(s, "+"):
		d, err := time.ParseDuration(s[1:])
		if err != nil {
			return time.Time{}, fmt.Errorf("%q: after + comes a duration like 10m or 1h30m", s)
		}
		return first.Add(d), nil
	case strings.HasPrefix(s, "-"):
		d, err := time.ParseDuration(s[1:])
		if err != nil {
			return time.Time{}, fmt.Errorf("%q: after - comes a duration like 5m", s)
		}
		return last.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	for _, layout := range []string{"15:04:05", "15:04"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			y, mo, d := cursor.In(loc).Date()
			return time.Date(y, mo, d, t.Hour(), t.Minute(), t.Second(), 0, loc), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time: try 14:03, +10m, -5m or 2026-11-22 14:03", s)
}

// jumpTo moves the cursor to what the person typed.
func (m *Model) jumpTo(answer string) {
	first, last := m.store.First(), m.store.Last()
	t, err := ParseTime(answer, m.play.cursor, first, last)
	if err != nil {
		m.note = err.Error()
		return
	}
	if t.Before(first) || t.After(last) {
		m.note = fmt.Sprintf("%s is outside the session (%s to %s)", draw.Clock(t, true), draw.Clock(first, true), draw.Clock(last, true))
		return
	}
	m.play.seek(t, first, last)
}

// jumpMarker moves to the previous (dir < 0) or next marker or hint from
// the cursor: `[` and `]`. A hint counts where it begins.
func (m *Model) jumpMarker(dir int) {
	at := m.play.cursor
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
	m.play.seek(target, m.store.First(), m.store.Last())
}
