package render

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/units"
)

// Formatting shared by the text and markdown reports. Every formatter shows
// an unknown (NaN) as N/A, never as 0.

const repNA = units.NA

// The report's numbers read as they do everywhere (timeline/units); these
// take the report's Number.
func repPct(n report.Number) string    { return units.Percent(float64(n)) }
func repShare(n report.Number) string  { return units.Share(float64(n)) }
func repBytes(n report.Number) string  { return units.Bytes(float64(n)) }
func repEnergy(n report.Number) string { return units.Energy(float64(n)) }

// repBytesOf is "used/total": "68.0/80.0GiB".
func repBytesOf(used, total report.Number) string {
	return units.BytesOf(float64(used), float64(total))
}

// repWattsOf is a power and its limit: "620/700W".
func repWattsOf(used, limit report.Number) string {
	return units.WattsOf(float64(used), float64(limit))
}

// repAt is a report time (seconds since the start) as a clock offset.
func repAt(n report.Number) string {
	if n.Unknown() {
		return repNA
	}
	return units.Clock(n.Duration())
}

// repDur is a length: "45s", "9m30s", "2h54m".
func repDur(d time.Duration) string { return units.Duration(d) }

// repClean makes outside text (a marker from a job's output, a command
// line) safe for a terminal: timeline.CleanText, one line, no escape
// sequences, no control characters, no bidirectional overrides.
func repClean(s string) string { return timeline.CleanText(s) }

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
func repSourceLine(src report.ReportSource) string {
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
func (r *doc) repStartLine() string {
	if r.Start == nil {
		return "no samples"
	}
	line := "start " + r.Start.Format("2006-01-02 15:04:05 MST") + ", duration " + repDur(r.Duration.Duration())
	if !r.Source.Interval.Unknown() {
		line += ", interval " + repDur(r.Source.Interval.Duration())
	}
	return line
}

// repSystemLine is the driver, CUDA and GPU count, as far as known.
func (r *doc) repSystemLine() string {
	var parts []string
	if r.Source.Driver != "" {
		parts = append(parts, "driver "+r.Source.Driver)
	}
	if r.Source.CUDA != "" {
		parts = append(parts, "CUDA "+r.Source.CUDA)
	}
	if r.multiHost() {
		parts = append(parts, units.Count(len(r.Hosts), "host"))
	}
	// MIG slices are GPUs of the session, but not of the machine.
	parts = append(parts, r.gpuNames().Split(len(r.GPUs)))
	return repClean(strings.Join(parts, ", "))
}

// repPhaseTotals sums the automatic phases by kind: "busy 3m15s (65%),
// stalled 45s (15%), idle 1m00s (20%)".
func (r *doc) repPhaseTotals() string {
	var total time.Duration
	by := map[string]time.Duration{}
	for _, p := range r.Phases {
		if p.Kind != timeline.PhaseMarked.String() {
			d := p.Duration.Duration()
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
		parts = append(parts, fmt.Sprintf("%s %s (%s)", k, repDur(d), repShare(report.Number(float64(d)/float64(total)))))
	}
	return strings.Join(parts, ", ")
}

// repGapTotal is the time all gaps cover.
func (r *doc) repGapTotal() time.Duration {
	var d time.Duration
	for _, g := range r.Gaps {
		d += (g.End - g.Start).Duration()
	}
	return d
}

// repHintHead is a hint's first line after its severity and id.
func (r *doc) repHintHead(h report.ReportHint) string {
	s := r.gpuNames().Of(h.GPUs) + ", " + repAt(h.Start) + "-" + repAt(h.End)
	if !h.Confidence.Unknown() && h.Confidence > 0 {
		s += fmt.Sprintf(", confidence %.0f%%", 100*float64(h.Confidence))
	}
	if h.Provisional {
		s += ", provisional (so far " + repDur((h.End - h.Start).Duration()) + ")"
	}
	return s
}

// repEpisodeRows is how many of a hint's episodes, the largest, the text
// and markdown forms list (the JSON has them all).
const repEpisodeRows = 5

// repEpisodes lists a hint's episodes, largest first, when there is more
// than one: "0:05:51-0:10:46 critical: GPU0-7 stall ...", and how many more
// there are. A hint of one episode has said it all already.
func repEpisodes(h report.ReportHint) []string {
	if len(h.Episodes) < 2 {
		return nil
	}
	return firstFew(len(h.Episodes), repEpisodeRows, func(i int) string {
		ep := h.Episodes[i]
		line := repAt(ep.Start) + "-" + repAt(ep.End) + " " + ep.Severity
		if ep.Provisional {
			line += " (so far)"
		}
		return line + ": " + repClean(ep.Evidence)
	})
}

// firstFew lists the first most of n items, item(i) each, and "and N
// more" for the rest: how every form cuts a long list short.
func firstFew(n, most int, item func(i int) string) []string {
	var out []string
	for i := range min(n, most) {
		out = append(out, item(i))
	}
	if n > most {
		out = append(out, fmt.Sprintf("and %d more", n-most))
	}
	return out
}

// hostRecorded says whether anything of the host or the job was sampled. A
// log of GPUs alone has no host at all, which the report says in a line
// rather than in rows of N/A: absent is not unknown.
func hostRecorded(h report.ReportHost) bool {
	return h.Cores > 0 || slices.ContainsFunc([]report.Number{h.CPU.Mean, h.IOWait.Mean, h.RAMUsedMax, h.RAMTotal,
		h.SwapUsedMax, h.JobCPU.Mean, h.JobRSSMax}, func(n report.Number) bool { return !n.Unknown() })
}

// repCores is the host's cores where known: " (32 cores)".
func repCores(h report.ReportHost) string {
	if h.Cores > 0 {
		return fmt.Sprintf(" (%d cores)", h.Cores)
	}
	return ""
}

// repHostAbsent says that the host was not recorded, and why where the
// source tells: "not recorded: imported from gpu.csv (nvidia-smi query CSV)".
func (r *doc) repHostAbsent() string {
	switch src := r.Source; {
	case src.Kind == timeline.Imported.String() && src.Origin != "":
		return "not recorded: imported from " + repClean(src.Origin)
	case src.Kind == timeline.Imported.String() || src.Recorded == timeline.Imported.String():
		return "not recorded: the recording was imported from a GPU log"
	}
	return "not recorded"
}

// repHas says which of the GPUs' figures any GPU has. A figure no GPU has
// was not recorded (an nvidia-smi log without power), and its columns go:
// a column of N/A would say unknown where the truth is absent.
type repHas struct{ sm, mem, power bool }

func (r *doc) repGPUHas() repHas {
	var has repHas
	for _, g := range r.GPUs {
		has.sm = has.sm || !g.SMActive.Mean.Unknown()
		has.mem = has.mem || !g.MemUsedMax.Unknown()
		has.power = has.power || !g.PowerMean.Unknown()
	}
	return has
}

// gpuLegend is the line under the GPU table of the markdown and HTML forms.
func (r *doc) gpuLegend(has repHas) string {
	legend := "Util and SM (SM active): mean, then percentiles of every sample."
	if !has.sm {
		legend = "Util: mean, then percentiles of every sample."
	}
	legend = fmt.Sprintf("%s Idle: time with utilisation under %s.", legend, repPct(r.IdleUtil))
	if absent := has.absent(); absent != "" {
		legend += " Not recorded for any GPU: " + absent + "."
	}
	return legend
}

// absent names what no GPU has: "SM activity, power".
func (h repHas) absent() string {
	var out []string
	for _, c := range []struct {
		has  bool
		name string
	}{{h.sm, "SM activity"}, {h.mem, "memory"}, {h.power, "power"}} {
		if !c.has {
			out = append(out, c.name)
		}
	}
	return strings.Join(out, ", ")
}

// repPhaseHas says whether any of the phases (indexes in r.Phases) has SM
// activity, and host CPU.
func (r *doc) repPhaseHas(ps []int) (sm, cpu bool) {
	for _, k := range ps {
		p := r.Phases[k]
		sm = sm || !p.SMActiveMean.Unknown()
		cpu = cpu || !p.HostCPUMean.Unknown()
	}
	return sm, cpu
}

// HintLine is one hint in one line, for a check that failed on it:
// "critical periodic-stall on GPU0-7, 0:02:18-0:10:46, confidence 85%:
// EVIDENCE", outside text cleaned of control characters.
func HintLine(rep *report.Report, h report.ReportHint) string {
	r := &doc{Report: rep}
	return h.Severity + " " + h.ID + " on " + r.repHintHead(h) + ": " + repClean(h.Evidence)
}
