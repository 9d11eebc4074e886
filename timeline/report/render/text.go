package render

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report"
)

// repTextWidth is the text report's width: an 80-column terminal.
const repTextWidth = 80

// Text writes the report for a terminal, in 80 columns, plain ASCII
// apart from text that came from outside (marker texts, the command line),
// which is cleaned of control characters. `gputop run` prints it to stderr
// when the job ends.
func Text(w io.Writer, rep *report.Report) error {
	r := &doc{Report: rep}
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
	r.textHosts(t)
	r.textGPUs(t)
	r.textHealth(t)
	r.textHost(t)
	r.textPhases(t)
	r.textWork(t)
	r.textMarkers(t)
	r.textProcesses(t)
	r.textOwners(t)
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
	for _, l := range repWrap(s, repTextWidth-len(label)) {
		t.line(label + l)
		label = indent
	}
}

func (r *doc) textGPUs(t repText) {
	t.line("")
	if len(r.GPUs) == 0 {
		t.line("GPUS  none")
		return
	}
	has := r.repGPUHas()
	head := fmt.Sprintf("%3s  %-16s %5s %4s %4s %4s", "GPU", "NAME", "UTIL", "P50", "P95", "MAX")
	if has.sm {
		head += fmt.Sprintf("  %5s %4s %4s %4s", "SM", "P50", "P95", "MAX")
	}
	t.line(head + fmt.Sprintf("  %5s", "IDLE"))
	for k, g := range r.GPUs {
		if head := r.hostHeading(k); head != "" {
			t.line(head)
		}
		u, s := g.Util, g.SMActive
		row := fmt.Sprintf("%3d  %-16s %5s %4s %4s %4s", repGPUIndex(g), Cut(repGPULabel(g), 16, "..."),
			repPct(u.Mean), repPct(u.P50), repPct(u.P95), repPct(u.Max))
		if has.sm {
			row += fmt.Sprintf("  %5s %4s %4s %4s", repPct(s.Mean), repPct(s.P50), repPct(s.P95), repPct(s.Max))
		}
		row += fmt.Sprintf("  %5s", repShare(g.IdleFraction))
		if g.Lost {
			// Its figures end where it did: without the flag a GPU gone at
			// 2:10 reads as the busiest of the node.
			row += "  LOST"
		}
		t.line(row)
	}
	legend := "UTIL and SM (SM active): mean, then percentiles of every sample"
	if !has.sm {
		legend = "UTIL: mean, then percentiles of every sample"
	}
	legend = fmt.Sprintf("%s; IDLE: time with utilisation under %s.", legend, repPct(r.IdleUtil))
	if lost := r.repLostText(); lost != "" {
		legend += " LOST: the GPU stopped answering (" + lost + "); its figures end there."
	}
	t.wrapped("", legend)
	if has.mem || has.power || slices.ContainsFunc(r.GPUs, func(g report.ReportGPU) bool { return g.Lost }) {
		t.line("")
		head := fmt.Sprintf("%3s", "GPU")
		if has.mem {
			head += fmt.Sprintf("  %-20s", "MEMORY PEAK")
		}
		if has.power {
			head += fmt.Sprintf("  %-16s  %10s", "POWER MEAN", "ENERGY")
		}
		t.line(head)
		for k, g := range r.GPUs {
			if head := r.hostHeading(k); head != "" {
				t.line(head)
			}
			row := fmt.Sprintf("%3d", repGPUIndex(g))
			if has.mem {
				row += fmt.Sprintf("  %-20s", repBytesOf(g.MemUsedMax, g.MemTotal))
			}
			if has.power {
				row += fmt.Sprintf("  %-16s  %10s", repWattsOf(g.PowerMean, g.PowerLimit), repEnergy(g.Energy))
			}
			if g.Lost {
				row += "  lost at " + repAt(g.LostAt)
			}
			t.line(row)
		}
	}
	if absent := has.absent(); absent != "" {
		t.wrapped("", "Not recorded for any GPU: "+absent+".")
	}
}

// repLostText lists the GPUs lost and when: "GPU1 at 0:02:10".
func (r *doc) repLostText() string {
	var parts []string
	for _, g := range r.GPUs {
		if g.Lost {
			parts = append(parts, fmt.Sprintf("GPU%d at %s", g.Index, repAt(g.LostAt)))
		}
	}
	return strings.Join(parts, ", ")
}

// repGPUName drops the vendor prefix every NVIDIA GPU name carries.
// repGPULabel is a GPU's NAME in the tables: its model, or for a MIG
// instance its parent and profile ("GPU0 MIG 1g.10gb"), which say more
// than the model it shares with its parent.
func repGPULabel(g report.ReportGPU) string {
	if g.MIGProfile != "" && g.MIGParent != nil {
		return fmt.Sprintf("GPU%d MIG %s", *g.MIGParent, repClean(g.MIGProfile))
	}
	return repGPUName(g.Name)
}

func repGPUName(name string) string {
	if name == "" {
		return repNA
	}
	return repClean(strings.TrimPrefix(name, "NVIDIA "))
}

func (r *doc) textHost(t repText) {
	h := r.Host
	if !hostRecorded(h) && r.multiHost() {
		return // each host's is in the hosts section
	}
	t.line("")
	if !hostRecorded(h) {
		t.wrapped("HOST  ", r.repHostAbsent())
		return
	}
	t.f("HOST  CPU mean %s, p95 %s, max %s%s; iowait mean %s", repPct(h.CPU.Mean), repPct(h.CPU.P95),
		repPct(h.CPU.Max), repCores(h), repPct(h.IOWait.Mean))
	t.f("      RAM peak %s; swap peak %s", repBytesOf(h.RAMUsedMax, h.RAMTotal), repBytes(h.SwapUsedMax))
	if !h.JobCPU.Mean.Unknown() {
		t.f("JOB   CPU mean %s of one core, p95 %s, max %s; RSS peak %s", repPct(h.JobCPU.Mean),
			repPct(h.JobCPU.P95), repPct(h.JobCPU.Max), repBytes(h.JobRSSMax))
	}
}

func (r *doc) textPhases(t repText) {
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

// repSplitPhases separates the automatic phases from the marked ones: their
// indexes in r.Phases, in time order.
func (r *doc) repSplitPhases() (auto, marked []int) {
	for k, p := range r.Phases {
		if p.Kind == timeline.PhaseMarked.String() {
			marked = append(marked, k)
		} else {
			auto = append(auto, k)
		}
	}
	return auto, marked
}

// repPhaseRows picks the phases of one table (their indexes in r.Phases,
// repSplitPhases') the text and markdown forms list: all of them when they
// fit (or in a Report not made by NewReport), else the longest, in time
// order, and a line that sums up the rest by kind, so a day of phases reads
// in a screenful.
func (r *doc) repPhaseRows(ps []int) (shown []int, rest string) {
	if r.PhaseRows <= 0 || len(ps) <= r.PhaseRows {
		return ps, ""
	}
	order := slices.Clone(ps)
	// Longest first; of equal length the earlier.
	sort.SliceStable(order, func(a, b int) bool { return r.Phases[order[a]].Duration > r.Phases[order[b]].Duration })
	shown = order[:r.PhaseRows]
	sort.Ints(shown)
	by := map[string]time.Duration{}
	for _, k := range order[r.PhaseRows:] {
		by[r.Phases[k].Kind] += r.Phases[k].Duration.Duration()
	}
	var sums []string
	for _, k := range []timeline.PhaseKind{timeline.PhaseBusy, timeline.PhaseStalled, timeline.PhaseIdle} {
		if d, ok := by[k.String()]; ok {
			sums = append(sums, repDur(d)+" "+k.String())
		}
	}
	if d, ok := by[timeline.PhaseMarked.String()]; ok {
		sums = append(sums, repDur(d)+" in all")
	}
	return shown, fmt.Sprintf("and %d more phases: %s; --phases all lists every one", len(ps)-len(shown),
		strings.Join(sums, ", "))
}

// phaseCols keeps of a phase table's columns (start, length, kind, util,
// SM, worst GPU, host CPU, label) those its phases have: SM and host CPU
// only where some phase has them (repPhaseHas).
func phaseCols[T any](cols []T, sm, cpu bool) []T {
	var out []T
	for i, c := range cols {
		if i == 4 && !sm || i == 6 && !cpu {
			continue
		}
		out = append(out, c)
	}
	return out
}

func (r *doc) textPhaseTable(t repText, ps []int) {
	sm, cpu := r.repPhaseHas(ps)
	figure := repCol{min: 4, right: true, gap: 1}
	tab := newRepTable(phaseCols([]repCol{{min: 8}, {min: 9, gap: 1}, {min: 7, gap: 1}, figure, figure, {gap: 2}, figure,
		{gap: 2}}, sm, cpu)...)
	row := func(cells ...string) { tab.row(phaseCols(cells, sm, cpu)...) }
	row("START", "LENGTH", "KIND", "UTIL", "SM", "WORST GPU", "CPU", "LABEL")
	shown, rest := r.repPhaseRows(ps)
	for _, k := range shown {
		p := r.Phases[k]
		row(repAt(p.Start), repDur(p.Duration.Duration()), p.Kind, repPct(p.UtilMean), repPct(p.SMActiveMean),
			r.repWorstName(p), repPct(p.HostCPUMean), Cut(repClean(p.Label), 25, "..."))
	}
	for _, l := range tab.lines("") {
		t.line(l)
	}
	if rest != "" {
		t.wrapped("... ", rest)
	}
}

func (r *doc) textMarkers(t repText) {
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

func (r *doc) textHints(t repText) {
	t.line("")
	if len(r.Hints) == 0 {
		t.line("HINTS  none")
		return
	}
	t.line("HINTS  worst first")
	for _, h := range r.Hints {
		t.wrapped(fmt.Sprintf("%-9s", strings.ToUpper(h.Severity)), h.ID+" on "+r.repHintHead(h))
		t.wrapped("         evidence:  ", repClean(h.Evidence))
		t.wrapped("         next step: ", repClean(h.Suggestion))
		for _, ep := range repEpisodes(h) {
			t.wrapped("         episode:   ", ep)
		}
	}
}

func (r *doc) textGaps(t repText) {
	if len(r.Gaps) == 0 {
		return
	}
	t.line("")
	t.wrapped("GAPS  ", r.repGapSentence())
}
