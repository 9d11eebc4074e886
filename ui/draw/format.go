package draw

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// NA is how an unknown value reads: never as a zero.
const NA = units.NA

// Pct formats a percentage in a fixed width of 4: " 97%", "100%", " N/A".
func Pct(v float64) string {
	if math.IsNaN(v) {
		return " " + NA
	}
	return fmt.Sprintf("%3.0f%%", min(max(v, 0), 999))
}

// The screen writes quantities as everything else does (timeline/units);
// Pct alone keeps a fixed width, for the columns of compact rows.

// Bytes is a size: "65.6GiB" (units.Bytes).
func Bytes(v float64) string { return units.Bytes(v) }

// Mem is memory used of its total: "65.6/80.0GiB" (units.BytesOf).
func Mem(used, total float64) string { return units.BytesOf(used, total) }

// Rate is bytes a second (units.Rate).
func Rate(v float64) string { return units.Rate(v) }

// Watts is a power (units.Watts).
func Watts(v float64) string { return units.Watts(v) }

// Value formats a value by its metric's unit, for the detail pane; N/A
// for an unknown one, as every formatter of a unit writes it.
func Value(name string, v float64, ascii bool) string {
	if math.IsNaN(v) {
		return NA
	}
	def, _ := timeline.Lookup(name)
	switch def.Unit {
	case timeline.Percent:
		return strings.TrimSpace(Pct(v))
	case timeline.Bytes:
		return Bytes(v)
	case timeline.BytesPerSec:
		return Rate(v)
	case timeline.Watts:
		return Watts(v)
	case timeline.Celsius:
		return units.Celsius(v, ascii)
	case timeline.MHz:
		return units.MHz(v)
	case timeline.Seconds:
		return Duration(time.Duration(v * float64(time.Second)))
	}
	return fmt.Sprintf("%.3g", v)
}

// Duration formats a span as everything else does: "45s", "9m30s".
func Duration(d time.Duration) string { return units.Duration(d) }

// Clock formats a cursor time; the date appears when the span needs it.
func Clock(t time.Time, withDate bool) string {
	if withDate {
		return t.Format("2006-01-02 15:04:05")
	}
	return t.Format("15:04:05")
}

// ThrottleFlag names the worst active throttle reason in a few letters
// ("PWR", "HOT"), or "" if the GPU runs free.
func ThrottleFlag(bits float64) string {
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

// MaxKnown is the larger of a and b, ignoring NaN unless both are.
func MaxKnown(a, b float64) float64 {
	if math.IsNaN(a) || b > a {
		return b
	}
	return a
}
