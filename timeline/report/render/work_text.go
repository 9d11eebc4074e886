package render

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/units"
)

// repNum is a figure to three significant digits, without an exponent.
func repNum(n report.Number) string {
	v := float64(n)
	switch a := math.Abs(v); {
	case n.Unknown():
		return repNA
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	case a == 0:
		return "0"
	case a >= 0.001:
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.2g", v)
}

// repRate is a rate in the job's unit: "50.0 it/s".
func repRate(n report.Number, unit string) string {
	if n.Unknown() {
		return repNA
	}
	return repNum(n) + " " + repClean(unit) + "/s"
}

// workLines are the work section's sentences, for text and markdown.
func (r *doc) workLines() []string {
	w := r.Work
	var out []string
	if p := w.Progress; p != nil {
		unit := repClean(p.Unit)
		line := "job progress: " + repRate(p.Rate, unit) + " over the run"
		if !p.Done.Unknown() {
			line += fmt.Sprintf(", %s %s done", repNum(p.Done), unit)
		}
		if !p.WarmUp.Unknown() {
			line += fmt.Sprintf("; warm-up %s (%s of the run)", repDur(p.WarmUp.Duration()), repShare(p.WarmUpShare))
		}
		out = append(out, line)
		if len(p.Levels) > 1 {
			var parts []string
			for i, l := range p.Levels {
				part := fmt.Sprintf("%s from %s", repRate(l.Rate, unit), repAt(l.Start))
				if i > 0 && p.Levels[i-1].Rate > 0 {
					part += fmt.Sprintf(" (%+.0f %%)", (float64(l.Rate)/float64(p.Levels[i-1].Rate)-1)*100)
				}
				parts = append(parts, part)
			}
			out = append(out, "rate: "+strings.Join(parts, ", then "))
		}
	}
	if w.Energy.Unknown() {
		out = append(out, "energy: "+repNA+" (no power readings)")
	} else {
		out = append(out, fmt.Sprintf("energy: %s (%s kWh) from the %s; GPU time %s", repEnergy(w.Energy), repNum(w.Energy/3.6e6),
			w.EnergySource, repGPUTime(w.GPUSeconds)))
	}
	if p := w.Progress; p != nil && !p.EnergyPerUnit.Unknown() {
		unit := repClean(p.Unit)
		out = append(out, fmt.Sprintf("per %s: %s J, %s Wh per 1k %s, %s GPU-s", unit, repNum(p.EnergyPerUnit),
			repNum(p.WhPerThousand), unit, repNum(p.GPUSecondsPerUnit)))
	}
	if c := w.Cost; c != nil {
		var parts []string
		if !c.PriceKWh.Unknown() {
			parts = append(parts, fmt.Sprintf("energy %s at %s/kWh", repNum(c.Energy), repNum(c.PriceKWh)))
		}
		if !c.PriceGPUHour.Unknown() {
			parts = append(parts, fmt.Sprintf("GPU time %s at %s/GPU-hour", repNum(c.GPUTime), repNum(c.PriceGPUHour)))
		}
		line := "cost: " + strings.Join(parts, " + ")
		if len(parts) > 1 {
			line += " = " + repNum(c.Total)
		}
		if p := w.Progress; p != nil && !p.CostPerThousand.Unknown() {
			line += fmt.Sprintf("; %s per 1k %s", repNum(p.CostPerThousand), repClean(p.Unit))
		}
		out = append(out, line)
	}
	return out
}

// repGPUTime is GPU time: "480 GPU-s", "2.5 GPU-h".
func repGPUTime(s report.Number) string {
	if s.Unknown() {
		return repNA
	}
	if s >= 3600 {
		return repNum(s/3600) + " GPU-h"
	}
	return repNum(s) + " GPU-s"
}

// workPhaseRow is one phase's row of the work table: its times and name,
// then its work figures: energy, kWh, rate, J a unit, and cost where a
// price is given.
func (r *doc) workPhaseRow(k int) []string {
	p, pw := r.Phases[k], r.Work.Phases[k]
	row := []string{fmt.Sprintf("%s-%s %s", repAt(p.Start), repAt(p.End), repPhaseName(p)), repEnergy(pw.Energy),
		repNum(pw.Energy / 3.6e6)}
	if p := r.Work.Progress; p != nil {
		row = append(row, repRate(pw.Rate, p.Unit), repNum(pw.EnergyPerUnit))
	}
	if r.Work.Cost != nil {
		row = append(row, repNum(pw.Cost))
	}
	return row
}

// workPhaseHead is the phase table's heading beyond the phase itself.
func (r *doc) workPhaseHead() []string {
	head := []string{"ENERGY", "kWh"}
	if p := r.Work.Progress; p != nil {
		head = append(head, "RATE", "J/"+Cut(repClean(p.Unit), 8, "..."))
	}
	if r.Work.Cost != nil {
		head = append(head, "COST")
	}
	return head
}

// textWork writes the work section: the job's rate, the energy, the cost,
// and each phase's.
func (r *doc) textWork(t repText) {
	t.line("")
	t.line("WORK AND ENERGY")
	for _, l := range r.workLines() {
		t.wrapped("  ", l)
	}
	if len(r.Work.GPUs) > 1 {
		var parts []string
		for _, g := range r.Work.GPUs {
			parts = append(parts, fmt.Sprintf("GPU%d %s", g.Index, repEnergy(g.Energy)))
		}
		t.wrapped("  ", "by GPU: "+strings.Join(parts, ", "))
	}
	if len(r.Phases) == 0 || len(r.Work.Phases) != len(r.Phases) {
		return
	}
	head := r.workPhaseHead()
	// The phase is cut to 25 runes and set two spaces from the figures.
	cols := []repCol{{min: 25}, {min: 9, right: true, gap: 2}}
	for range head[1:] {
		cols = append(cols, repCol{min: 9, right: true})
	}
	tab := newRepTable(cols...)
	tab.row(append([]string{"PHASE"}, head...)...)
	shown, hidden := r.workPhases()
	for _, k := range shown {
		row := r.workPhaseRow(k)
		row[0] = Cut(row[0], 25, "...")
		tab.row(row...)
	}
	for _, l := range tab.lines("  ") {
		t.line(l)
	}
	if hidden > 0 {
		t.f("  and %s more (the JSON lists them all)", units.Count(hidden, "phase"))
	}
}

// workPhases are the phases the work table lists, in time order: those the
// phase tables list (repPhaseRows), and how many it leaves out.
func (r *doc) workPhases() (shown []int, hidden int) {
	auto, marked := r.repSplitPhases()
	a, _ := r.repPhaseRows(auto)
	m, _ := r.repPhaseRows(marked)
	shown = slices.Concat(a, m)
	slices.Sort(shown)
	return shown, len(r.Phases) - len(shown)
}

// repPhaseName is a phase's label, or its kind for an automatic one.
func repPhaseName(p report.ReportPhase) string {
	if p.Label != "" {
		return repClean(p.Label)
	}
	return p.Kind
}

// mdWork writes the work section in markdown.
func (r *doc) mdWork(m mdForm) {
	m.section("Work and energy")
	m.line("")
	for _, l := range r.workLines() {
		m.line("- %s", EscapeMarkdown(l))
	}
	if len(r.Phases) == 0 || len(r.Work.Phases) != len(r.Phases) {
		return
	}
	head := r.workPhaseHead()
	t := Table{Head: append([]string{"phase"}, head...), Num: append([]bool{false}, slices.Repeat([]bool{true}, len(head))...)}
	shown, hidden := r.workPhases()
	for _, k := range shown {
		t.add(r.workPhaseRow(k)...)
	}
	m.table(t)
	if hidden > 0 {
		m.p(fmt.Sprintf("And %s more (the JSON lists them all).", units.Count(hidden, "phase")))
	}
}
