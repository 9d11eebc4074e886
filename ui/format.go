package ui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// na is how an unknown value reads: never as a zero.
const na = units.NA

// fmtPct formats a percentage in a fixed width of 4: " 97%", "100%", " N/A".
func fmtPct(v float64) string {
	if math.IsNaN(v) {
		return " " + na
	}
	return fmt.Sprintf("%3.0f%%", clamp(v, 0, 999))
}

// The screen writes quantities as everything else does (timeline/units);
// fmtPct alone keeps a fixed width, for the columns of compact rows.

func fmtBytes(v float64) string            { return units.Bytes(v) }
func fmtMem(used, total float64) string    { return units.BytesOf(used, total) }
func fmtRate(v float64) string             { return units.Rate(v) }
func fmtWatts(v float64) string            { return units.Watts(v) }
func fmtTemp(v float64, ascii bool) string { return units.Celsius(v, ascii) }
func fmtMHz(v float64) string              { return units.MHz(v) }

// fmtValue formats a value by its metric's unit, for the detail pane.
func fmtValue(name string, v float64, ascii bool) string {
	def, _ := timeline.Lookup(name)
	switch def.Unit {
	case timeline.Percent:
		return strings.TrimSpace(fmtPct(v))
	case timeline.Bytes:
		return fmtBytes(v)
	case timeline.BytesPerSec:
		return fmtRate(v)
	case timeline.Watts:
		return fmtWatts(v)
	case timeline.Celsius:
		return fmtTemp(v, ascii)
	case timeline.MHz:
		return fmtMHz(v)
	case timeline.Seconds:
		if math.IsNaN(v) {
			return na
		}
		return fmtDuration(time.Duration(v * float64(time.Second)))
	}
	if math.IsNaN(v) {
		return na
	}
	return fmt.Sprintf("%.3g", v)
}

// fmtDuration formats a span as everything else does: "45s", "9m30s".
func fmtDuration(d time.Duration) string { return units.Duration(d) }

// fmtClock formats a cursor time; the date appears when the span needs it.
func fmtClock(t time.Time, withDate bool) string {
	if withDate {
		return t.Format("2006-01-02 15:04:05")
	}
	return t.Format("15:04:05")
}

func clamp(v, lo, hi float64) float64 {
	return math.Max(lo, math.Min(hi, v))
}

// throttleFlag names the worst active throttle reason in a few letters
// ("PWR", "HOT"), or "" if the GPU runs free.
func throttleFlag(bits float64) string {
	if math.IsNaN(bits) {
		return ""
	}
	b := int(bits)
	switch {
	case b&timeline.ThrottleThermal != 0:
		return "HOT"
	case b&timeline.ThrottlePower != 0:
		return "PWR"
	case b&(timeline.ThrottleBoardLimit|timeline.ThrottleReliability) != 0:
		return "LIM"
	case b&timeline.ThrottleSyncBoost != 0:
		return "SYN"
	}
	return ""
}
