package report

import (
	"fmt"
	"github.com/gputop-dev/gputop/timeline"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Formatting shared by the text and markdown reports. Every formatter shows
// an unknown (NaN) as N/A, never as 0.

const repNA = "N/A"

func repUnknown(n Number) bool { return math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) }

// repPct is a percentage: "97%".
func repPct(n Number) string {
	if repUnknown(n) {
		return repNA
	}
	return strconv.FormatFloat(float64(n), 'f', 0, 64) + "%"
}

// repShare is a 0..1 fraction as a percentage. A share that is not quite
// none or all says so ("<1%", ">99%") rather than rounding to a claim.
func repShare(n Number) string {
	switch v := float64(n) * 100; {
	case repUnknown(n):
		return repNA
	case v > 0 && v < 0.5:
		return "<1%"
	case v >= 99.5 && v < 100:
		return ">99%"
	}
	return repPct(n * 100)
}

// repBytes is a size in GiB, or MiB under one GiB.
func repBytes(n Number) string {
	switch v := float64(n); {
	case repUnknown(n):
		return repNA
	case v >= 1<<30:
		return strconv.FormatFloat(v/(1<<30), 'f', 1, 64) + " GiB"
	default:
		return strconv.FormatFloat(v/(1<<20), 'f', 0, 64) + " MiB"
	}
}

// repOf is "used of total": "68.0 of 80.0 GiB", or the used part alone
// when the total is unknown.
func repOf(used, total Number, format func(Number) string) string {
	if repUnknown(used) || repUnknown(total) {
		return format(used)
	}
	u, t := format(used), format(total)
	if i := strings.IndexByte(u, ' '); i > 0 && strings.HasSuffix(t, u[i:]) {
		u = u[:i] // "68.0 of 80.0 GiB", not "68.0 GiB of 80.0 GiB"
	}
	return u + " of " + t
}

// repWatts is a power: "620 W".
func repWatts(n Number) string {
	if repUnknown(n) {
		return repNA
	}
	return strconv.FormatFloat(float64(n), 'f', 0, 64) + " W"
}

// repEnergy is an energy in J, kJ or MJ.
func repEnergy(n Number) string {
	v := float64(n)
	switch {
	case repUnknown(n):
		return repNA
	case math.Abs(v) >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 2, 64) + " MJ"
	case math.Abs(v) >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + " kJ"
	default:
		return strconv.FormatFloat(v, 'f', 0, 64) + " J"
	}
}

// repSeconds turns a report time in seconds into a Duration.
func repSeconds(n Number) time.Duration {
	return time.Duration(math.Round(float64(n) * float64(time.Second)))
}

// repClock is an offset from the report's start: "0:01:05", "26:00:00".
func repClock(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	s := int64(d.Round(time.Second) / time.Second)
	return fmt.Sprintf("%s%d:%02d:%02d", sign, s/3600, s/60%60, s%60)
}

// repAt is a report time (seconds since the start) as a clock offset.
func repAt(n Number) string {
	if repUnknown(n) {
		return repNA
	}
	return repClock(repSeconds(n))
}

// repDur is a length: "45s", "2m05s", "1h02m03s", "4.5s".
func repDur(d time.Duration) string {
	if d < 10*time.Second && d%time.Second != 0 {
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	}
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		return fmt.Sprintf("%dh%02dm%02ds", s/3600, s/60%60, s%60)
	}
}

// repGPUList names GPUs, runs collapsed: "GPU1-7", "GPU0, GPU2", "host".
func repGPUList(gpus []int) string {
	if len(gpus) == 0 {
		return "host"
	}
	var parts []string
	for i := 0; i < len(gpus); {
		j := i
		for j+1 < len(gpus) && gpus[j+1] == gpus[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, fmt.Sprintf("GPU%d", gpus[i]))
		case j == i+1:
			parts = append(parts, fmt.Sprintf("GPU%d", gpus[i]), fmt.Sprintf("GPU%d", gpus[j]))
		default:
			parts = append(parts, fmt.Sprintf("GPU%d-%d", gpus[i], gpus[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// repClean makes outside text (a marker from a job's output, a command
// line) safe for a terminal: valid UTF-8, whitespace as plain spaces, no
// control characters (a line cannot move the cursor or recolour the screen)
// and no bidirectional overrides (it cannot reorder what is shown).
func repClean(s string) string {
	s = strings.ToValidUTF8(s, "?")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' ||
			(r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069'):
			return '?'
		}
		return r
	}, s)
}

// repTrunc shortens s to at most n runes, ending in "..." when cut.
func repTrunc(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 3 {
		return string(r[:n])
	}
	return string(r[:n-3]) + "..."
}

// repWrap breaks s into lines of at most width runes at spaces; a word
// longer than a line is cut.
func repWrap(s string, width int) []string {
	var lines []string
	var cur []rune
	for _, word := range strings.Fields(s) {
		w := []rune(word)
		for len(w) > width {
			if len(cur) > 0 {
				lines = append(lines, string(cur))
				cur = nil
			}
			lines = append(lines, string(w[:width]))
			w = w[width:]
		}
		switch {
		case len(cur) == 0:
			cur = w
		case len(cur)+1+len(w) <= width:
			cur = append(append(cur, ' '), w...)
		default:
			lines = append(lines, string(cur))
			cur = w
		}
	}
	if len(cur) > 0 {
		lines = append(lines, string(cur))
	}
	return lines
}

// repSourceLine is the report's title: "DEMO checkpoint on node-a".
func repSourceLine(src ReportSource) string {
	var b strings.Builder
	b.WriteString(strings.ToUpper(src.Kind))
	switch src.Kind {
	case timeline.Demo.String():
		b.WriteString(" " + src.Scenario)
	case timeline.Replay.String():
		fmt.Fprintf(&b, " %s (recorded %s", src.Origin, src.Recorded)
		if src.Scenario != "" {
			b.WriteString(" " + src.Scenario)
		}
		b.WriteString(")")
	case timeline.Imported.String():
		b.WriteString(" " + src.Origin)
	}
	if src.Host != "" {
		b.WriteString(" on " + src.Host)
	}
	return repClean(strings.TrimSpace(b.String()))
}

// repStartLine is when and how long: "start 2026-11-22 09:00:00 UTC,
// duration 5m00s, interval 1s".
func (r *Report) repStartLine() string {
	if r.Start == nil {
		return "no samples"
	}
	line := "start " + r.Start.Format("2006-01-02 15:04:05 MST") + ", duration " + repDur(repSeconds(r.Duration))
	if !repUnknown(r.Source.Interval) {
		line += ", interval " + repDur(repSeconds(r.Source.Interval))
	}
	return line
}

// repSystemLine is the driver, CUDA and GPU count, as far as known.
func (r *Report) repSystemLine() string {
	var parts []string
	if r.Source.Driver != "" {
		parts = append(parts, "driver "+r.Source.Driver)
	}
	if r.Source.CUDA != "" {
		parts = append(parts, "CUDA "+r.Source.CUDA)
	}
	switch len(r.GPUs) {
	case 1:
		parts = append(parts, "1 GPU")
	default:
		parts = append(parts, fmt.Sprintf("%d GPUs", len(r.GPUs)))
	}
	return repClean(strings.Join(parts, ", "))
}

// repPhaseTotals sums the automatic phases by kind: "busy 3m15s (65%),
// stalled 45s (15%), idle 1m00s (20%)".
func (r *Report) repPhaseTotals() string {
	var total time.Duration
	by := map[string]time.Duration{}
	for _, p := range r.Phases {
		if p.Kind != timeline.PhaseMarked.String() {
			d := repSeconds(p.Duration)
			by[p.Kind] += d
			total += d
		}
	}
	if total == 0 {
		return "none"
	}
	var parts []string
	for _, k := range []timeline.PhaseKind{timeline.PhaseBusy, timeline.PhaseStalled, timeline.PhaseIdle} {
		d := by[k.String()]
		parts = append(parts, fmt.Sprintf("%s %s (%s)", k, repDur(d), repShare(Number(float64(d)/float64(total)))))
	}
	return strings.Join(parts, ", ")
}

// repWorst is a phase's worst GPU: "GPU0 3%", or "" with fewer than two.
func repWorst(p ReportPhase) string {
	if p.WorstGPU == nil {
		return ""
	}
	return fmt.Sprintf("GPU%d %s", *p.WorstGPU, repPct(p.WorstUtilMean))
}

// repGapTotal is the time all gaps cover.
func (r *Report) repGapTotal() time.Duration {
	var d time.Duration
	for _, g := range r.Gaps {
		d += repSeconds(g.End - g.Start)
	}
	return d
}

// repHintHead is a hint's first line after its severity and id.
func repHintHead(h ReportHint) string {
	s := repGPUList(h.GPUs) + ", " + repAt(h.Start) + "-" + repAt(h.End)
	if !repUnknown(h.Confidence) && h.Confidence > 0 {
		s += fmt.Sprintf(", confidence %.0f%%", 100*float64(h.Confidence))
	}
	return s
}
