package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
)

// repTextWidth is the text report's width: an 80-column terminal.
const repTextWidth = 80

// WriteText writes the report for a terminal, in 80 columns, plain ASCII
// apart from text that came from outside (marker texts, the command line),
// which is cleaned of control characters. `gputop run` prints it to stderr
// when the job ends.
func (r *Report) WriteText(w io.Writer) error {
	var b bytes.Buffer
	t := repText{&b}
	t.line("gputop report: " + repSourceLine(r.Source))
	t.line(r.repStartLine())
	t.line(r.repSystemLine())
	if len(r.Source.Command) > 0 {
		t.wrapped("command: ", repClean(strings.Join(r.Source.Command, " ")))
	}
	for _, n := range r.Notes {
		t.wrapped("note: ", repClean(n))
	}
	r.textGPUs(t)
	r.textHost(t)
	r.textPhases(t)
	r.textMarkers(t)
	r.textHints(t)
	r.textGaps(t)
	_, err := w.Write(b.Bytes())
	return err
}

// repText writes lines into a buffer.
type repText struct{ b *bytes.Buffer }

func (t repText) line(s string) { t.b.WriteString(strings.TrimRight(s, " ") + "\n") }

func (t repText) f(format string, args ...any) { t.line(fmt.Sprintf(format, args...)) }

// wrapped writes s after a label, wrapped to the width, later lines indented
// under the first.
func (t repText) wrapped(label, s string) {
	indent := strings.Repeat(" ", len(label))
	for i, l := range repWrap(s, repTextWidth-len(label)) {
		if i == 0 {
			t.line(label + l)
		} else {
			t.line(indent + l)
		}
	}
}

func (r *Report) textGPUs(t repText) {
	t.line("")
	if len(r.GPUs) == 0 {
		t.line("GPUS  none")
		return
	}
	t.f("%3s  %-16s %5s %4s %4s %4s  %5s %4s %4s %4s  %5s", "GPU", "NAME", "UTIL", "P50", "P95", "MAX",
		"SM", "P50", "P95", "MAX", "IDLE")
	for _, g := range r.GPUs {
		u, s := g.Util, g.SMActive
		t.f("%3d  %-16s %5s %4s %4s %4s  %5s %4s %4s %4s  %5s", g.Index, repTrunc(repGPUName(g.Name), 16),
			repPct(u.Mean), repPct(u.P50), repPct(u.P95), repPct(u.Max),
			repPct(s.Mean), repPct(s.P50), repPct(s.P95), repPct(s.Max), repShare(g.IdleFraction))
	}
	t.wrapped("", fmt.Sprintf("UTIL and SM (SM active): mean, then percentiles of every sample; IDLE: time "+
		"with utilisation under %s.", repPct(r.IdleUtil)))
	t.line("")
	t.f("%3s  %-20s  %-16s  %10s", "GPU", "MEMORY PEAK", "POWER MEAN", "ENERGY")
	for _, g := range r.GPUs {
		lost := ""
		if g.Lost {
			lost = "  lost at " + repAt(g.LostAt)
		}
		t.f("%3d  %-20s  %-16s  %10s%s", g.Index, repBytesOf(g.MemUsedMax, g.MemTotal),
			repWattsOf(g.PowerMean, g.PowerLimit), repEnergy(g.Energy), lost)
	}
}

// repGPUName drops the vendor prefix every NVIDIA GPU name carries.
func repGPUName(name string) string {
	if name == "" {
		return repNA
	}
	return repClean(strings.TrimPrefix(name, "NVIDIA "))
}

func (r *Report) textHost(t repText) {
	h := r.Host
	t.line("")
	cores := ""
	if h.Cores > 0 {
		cores = fmt.Sprintf(" (%d cores)", h.Cores)
	}
	t.f("HOST  CPU mean %s, p95 %s, max %s%s; iowait mean %s", repPct(h.CPU.Mean), repPct(h.CPU.P95),
		repPct(h.CPU.Max), cores, repPct(h.IOWait.Mean))
	t.f("      RAM peak %s; swap peak %s", repBytesOf(h.RAMUsedMax, h.RAMTotal), repBytes(h.SwapUsedMax))
	if !repUnknown(h.JobCPU.Mean) {
		t.f("JOB   CPU mean %s of one core, p95 %s, max %s; RSS peak %s", repPct(h.JobCPU.Mean),
			repPct(h.JobCPU.P95), repPct(h.JobCPU.Max), repBytes(h.JobRSSMax))
	}
}

func (r *Report) textPhases(t repText) {
	t.line("")
	t.line("PHASES  " + r.repPhaseTotals())
	auto, marked := r.repSplitPhases()
	if len(auto) > 0 {
		r.textPhaseTable(t, auto)
	}
	if len(marked) > 0 {
		t.line("")
		t.line("MARKED PHASES")
		r.textPhaseTable(t, marked)
	}
}

// repSplitPhases separates the automatic phases from the marked ones.
func (r *Report) repSplitPhases() (auto, marked []ReportPhase) {
	for _, p := range r.Phases {
		if p.Kind == timeline.PhaseMarked.String() {
			marked = append(marked, p)
		} else {
			auto = append(auto, p)
		}
	}
	return auto, marked
}

// repShown is how many of n phases the text and markdown forms list: all
// of them in a Report not made by NewReport.
func (r *Report) repShown(n int) int {
	if r.phaseRows <= 0 || n <= r.phaseRows {
		return n
	}
	return r.phaseRows
}

func (r *Report) textPhaseTable(t repText, ps []ReportPhase) {
	const row = "%-8s %-9s %-7s %4s %4s  %-9s %4s  %s"
	t.f(row, "START", "LENGTH", "KIND", "UTIL", "SM", "WORST GPU", "CPU", "LABEL")
	shown := r.repShown(len(ps))
	for _, p := range ps[:shown] {
		t.f(row, repAt(p.Start), repDur(repSeconds(p.Duration)), p.Kind, repPct(p.UtilMean), repPct(p.SMActiveMean),
			repWorst(p), repPct(p.HostCPUMean), repTrunc(repClean(p.Label), 25))
	}
	if shown < len(ps) {
		t.f("... and %d more (the JSON form lists every phase)", len(ps)-shown)
	}
}

func (r *Report) textMarkers(t repText) {
	if len(r.Markers) == 0 {
		return
	}
	t.line("")
	t.line("MARKERS")
	for _, m := range r.Markers {
		origin := ""
		if m.Origin != "" {
			origin = " (" + repClean(m.Origin) + ")"
		}
		t.wrapped(fmt.Sprintf("%-9s", repAt(m.At)), repClean(m.Text)+origin)
	}
}

func (r *Report) textHints(t repText) {
	t.line("")
	if len(r.Hints) == 0 {
		t.line("HINTS  none")
		return
	}
	t.line("HINTS  worst first")
	for _, h := range r.Hints {
		t.wrapped(fmt.Sprintf("%-9s", strings.ToUpper(h.Severity)), h.ID+" on "+repHintHead(h))
		t.wrapped("         evidence:  ", repClean(h.Evidence))
		t.wrapped("         next step: ", repClean(h.Suggestion))
		for _, ep := range repEpisodes(h) {
			t.wrapped("         episode:   ", ep)
		}
	}
}

func (r *Report) textGaps(t repText) {
	if len(r.Gaps) == 0 {
		return
	}
	t.line("")
	t.wrapped("GAPS  ", r.repGapSentence())
}

// repGapList lists the first few gaps: "0:10:05-0:11:05, ...".
func (r *Report) repGapList() string {
	const most = 10
	var parts []string
	for i, g := range r.Gaps {
		if i == most {
			parts = append(parts, fmt.Sprintf("and %d more", len(r.Gaps)-most))
			break
		}
		parts = append(parts, repAt(g.Start)+"-"+repAt(g.End))
	}
	return strings.Join(parts, ", ")
}
