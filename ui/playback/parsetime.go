package playback

import (
	"fmt"
	"strings"
	"time"
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
