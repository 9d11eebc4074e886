package ui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// na is how an unknown value reads: never as a zero.
const na = "N/A"

// fmtPct formats a percentage in a fixed width of 4: " 97%", "100%", " N/A".
func fmtPct(v float64) string {
	if math.IsNaN(v) {
		return " " + na
	}
	return fmt.Sprintf("%3.0f%%", clamp(v, 0, 999))
}

// fmtBytes formats bytes in binary units with three significant digits:
// "512M", "68.2G", "1.95T". Width at most 5.
func fmtBytes(v float64) string {
	if math.IsNaN(v) {
		return na
	}
	units := []string{"B", "K", "M", "G", "T", "P"}
	i := 0
	for math.Abs(v) >= 999.5 && i < len(units)-1 {
		v /= 1024
		i++
	}
	switch {
	case i == 0:
		return fmt.Sprintf("%.0f%s", v, units[i])
	case math.Abs(v) < 9.995:
		return fmt.Sprintf("%.2f%s", v, units[i])
	case math.Abs(v) < 99.95:
		return fmt.Sprintf("%.1f%s", v, units[i])
	}
	return fmt.Sprintf("%.0f%s", v, units[i])
}

// fmtMem formats used/total memory sharing the total's unit: "68.2/79.6G".
func fmtMem(used, total float64) string {
	if math.IsNaN(total) || total <= 0 {
		return fmtBytes(used)
	}
	t := fmtBytes(total)
	unit := t[len(t)-1:]
	if math.IsNaN(used) {
		return na + "/" + t
	}
	scale := math.Pow(1024, float64(strings.Index("BKMGTP", unit)))
	u := used / scale
	if u < 0.995 && used > 0 {
		// 210 GB of 2 TB reads better as "210G/1.97T" than "0.21/1.97T".
		return fmtBytes(used) + "/" + t
	}
	var us string
	switch {
	case u < 9.995:
		us = fmt.Sprintf("%.2f", u)
	case u < 99.95:
		us = fmt.Sprintf("%.1f", u)
	default:
		us = fmt.Sprintf("%.0f", u)
	}
	return us + "/" + t
}

// fmtRate formats bytes per second: "1.2G/s".
func fmtRate(v float64) string {
	if math.IsNaN(v) {
		return na
	}
	return fmtBytes(v) + "/s"
}

// fmtWatts formats power in whole watts: "652W".
func fmtWatts(v float64) string {
	if math.IsNaN(v) {
		return na
	}
	return fmt.Sprintf("%.0fW", v)
}

// fmtTemp formats a temperature: "71°C", or "71C" without Unicode.
func fmtTemp(v float64, ascii bool) string {
	if math.IsNaN(v) {
		return na
	}
	if ascii {
		return fmt.Sprintf("%.0fC", v)
	}
	return fmt.Sprintf("%.0f°C", v)
}

// fmtMHz formats a clock: "1980MHz".
func fmtMHz(v float64) string {
	if math.IsNaN(v) {
		return na
	}
	return fmt.Sprintf("%.0fMHz", v)
}

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

// fmtDuration formats a span the way a person says it: "45s", "2m", "1h30m", "3d".
func fmtDuration(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.0fs", d.Seconds())
	case d < time.Hour:
		m, s := int(d.Minutes()), int(d.Seconds())%60
		if s == 0 {
			return fmt.Sprintf("%dm", m)
		}
		return fmt.Sprintf("%dm%02ds", m, s)
	case d < 48*time.Hour:
		h, m := int(d.Hours()), int(d.Minutes())%60
		if m == 0 {
			return fmt.Sprintf("%dh", h)
		}
		return fmt.Sprintf("%dh%02dm", h, m)
	}
	return fmt.Sprintf("%.0fd", d.Hours()/24)
}

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

// throttleReasons lists the active reasons in words.
func throttleReasons(bits float64) string {
	if math.IsNaN(bits) {
		return na
	}
	var names []string
	for i, n := range timeline.ThrottleNames {
		if int(bits)&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// wrap breaks text into lines of at most w columns at spaces, keeping the
// indent of the first line on the ones that follow.
func wrap(text string, w int) []string {
	indent := len(text) - len(strings.TrimLeft(text, " "))
	words := strings.Fields(text)
	if len(words) == 0 || w <= indent+1 {
		return []string{text}
	}
	var out []string
	cur := strings.Repeat(" ", indent) + words[0]
	for _, word := range words[1:] {
		if len([]rune(cur))+1+len([]rune(word)) > w {
			out = append(out, cur)
			cur = strings.Repeat(" ", indent) + word
			continue
		}
		cur += " " + word
	}
	return append(out, cur)
}
