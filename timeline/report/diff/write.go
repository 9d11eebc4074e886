package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/render"
	"github.com/gputop-dev/gputop/timeline/units"
)

// label is each metric's name in the tables.
var label = map[string]string{MetricDuration: "duration", MetricBusy: "busy share", MetricUtil: "util mean",
	MetricUtilP10: "util p10", MetricUtilP90: "util p90", MetricSM: "SM activity mean", MetricPower: "power, all GPUs",
	MetricEnergy: "energy, all GPUs", MetricMemory: "memory peak"}

// formatValue writes a figure in its unit, N/A where unknown.
func formatValue(unit string, n report.Number) string {
	v := float64(n)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return units.NA
	}
	switch unit {
	case "%":
		return units.Percent(v)
	case "s":
		return units.Duration(time.Duration(math.Round(v * float64(time.Second))))
	case "W":
		return units.Watts(v)
	case "J":
		return units.Energy(v)
	case "B":
		return units.Bytes(v)
	}
	return units.Number(v)
}

// formatChange writes a change, absolute and relative: "+35.0pt
// (+56.5%)", "-1.20MJ (-10.0%)", "0", N/A where unknown.
func formatChange(m Metric) string {
	c := float64(m.Change)
	if math.IsNaN(c) || math.IsInf(c, 0) {
		return units.NA
	}
	if c == 0 {
		return "0"
	}
	sign := "+"
	if c < 0 {
		sign = "-"
	}
	abs := sign + formatValue(m.Unit, report.Number(math.Abs(c)))
	if m.Unit == "%" {
		abs = fmt.Sprintf("%s%.1fpt", sign, math.Abs(c))
	}
	if r := float64(m.Relative); !math.IsNaN(r) && !math.IsInf(r, 0) {
		abs += fmt.Sprintf(" (%+.1f%%)", 100*r)
	}
	return abs
}

// runLine says which run a side is: "ck.gtr: demo checkpoint, 8 GPUs on
// dgx-demo, 10m from 2026-11-27T03:27:19Z".
func runLine(r Run) string {
	s := fmt.Sprintf("%s: %s, %s", r.Name, r.Source, units.Count(r.GPUs, "GPU"))
	if len(r.Hosts) > 0 {
		s += " on " + strings.Join(r.Hosts, ", ")
	}
	s += ", " + formatValue("s", r.Duration)
	if r.Start != "" {
		s += " from " + r.Start
	}
	return timeline.CleanText(s)
}

// phaseName is a phase row's name: its kind, or the marker's label quoted.
func phaseName(p Phase) string {
	if p.Kind != timeline.PhaseMarked.String() {
		return p.Kind
	}
	return fmt.Sprintf("marked %q", timeline.CleanText(p.Label))
}

// hintLine says how a hint changed: "gone: periodic-stall (warning in A)".
func hintLine(h Hint) string {
	switch h.Change {
	case "gone":
		return fmt.Sprintf("gone: %s (%s in A)", h.ID, h.SeverityA)
	case "appeared":
		return fmt.Sprintf("appeared: %s (%s in B): %s", h.ID, h.SeverityB, timeline.CleanText(h.EvidenceB))
	}
	return fmt.Sprintf("changed: %s, %s in A, %s in B: %s", h.ID, h.SeverityA, h.SeverityB, timeline.CleanText(h.EvidenceB))
}

// table is one of the tables every form writes (metrics, phases, and
// owners where either run knows them): its title on the page and heading
// in the text, and its rows, in render's Table for markdown and HTML.
type table struct {
	title, text string
	render.Table
}

func (d *Diff) tables() []table {
	cols := func(head string) render.Table {
		return render.Table{Head: []string{head, "A", "B", "change"}, Num: []bool{false, true, true, true}}
	}
	metrics, phases := cols("metric"), cols("phase (time in)")
	for _, m := range d.Metrics {
		metrics.Rows = append(metrics.Rows, []string{label[m.Name], formatValue(m.Unit, m.A), formatValue(m.Unit, m.B), formatChange(m)})
	}
	for _, p := range d.Phases {
		if p.CountA == 0 && p.CountB == 0 && p.Kind != timeline.PhaseBusy.String() {
			continue
		}
		phases.Rows = append(phases.Rows, []string{phaseName(p), formatValue("s", p.A), formatValue("s", p.B),
			formatChange(metricOf("", "s", "", float64(p.A), float64(p.B)))})
	}
	out := []table{{"Figures", "METRIC", metrics}, {"Phases", "PHASES (time in)", phases}}
	if len(d.Owners) > 0 {
		out = append(out, table{"Owners", "OWNERS", d.ownerRows(cols("owner"))})
	}
	return out
}

// WriteText writes the diff for a terminal: the runs, the metrics, the
// phases, the hints that changed and the notes.
func (d *Diff) WriteText(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "gputop diff\nA  %s\nB  %s\n", runLine(d.A), runLine(d.B))
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, t := range d.tables() {
		// The rows of a table with groups (the owners') are indented
		// under their group's heading.
		fmt.Fprintf(&b, "\n%-20s %12s %12s  %s\n", t.text, "A", "B", "CHANGE")
		for i, r := range t.Rows {
			switch {
			case t.Group != nil && t.Group[i]:
				fmt.Fprintf(&b, "%s\n", render.Cut(timeline.CleanText(r[0]), 60, "~"))
			case t.Group != nil:
				fmt.Fprintf(&b, "  %-18s %12s %12s  %s\n", r[0], r[1], r[2], r[3])
			default:
				fmt.Fprintf(&b, "%-20s %12s %12s  %s\n", render.Cut(r[0], 20, "~"), r[1], r[2], r[3])
			}
		}
	}
	b.WriteString("\nHINTS  ")
	if len(d.Hints) == 0 {
		b.WriteString("the same in both\n")
	} else {
		b.WriteString("that changed\n")
		for _, h := range d.Hints {
			fmt.Fprintf(&b, "%s\n", hintLine(h))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteMarkdown writes the diff as GitHub-flavoured markdown, for a pull
// request: "did my fix help", in one comment.
func (d *Diff) WriteMarkdown(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "## gputop diff\n\n- **A** %s\n- **B** %s\n", render.EscapeMarkdown(runLine(d.A)), render.EscapeMarkdown(runLine(d.B)))
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "\n> Note: %s\n", render.EscapeMarkdown(n))
	}
	for _, t := range d.tables() {
		t.WriteMarkdown(&b)
	}
	b.WriteString("\n### Hints\n\n")
	if len(d.Hints) == 0 {
		b.WriteString("The same in both.\n")
	}
	for _, h := range d.Hints {
		fmt.Fprintf(&b, "- %s\n", render.EscapeMarkdown(hintLine(h)))
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteHTML writes the diff as one self-contained page, styled as the
// report's (render.PageHead); every outside text escaped.
func (d *Diff) WriteHTML(w io.Writer) error {
	var b bytes.Buffer
	e := func(s string) string { return html.EscapeString(timeline.CleanText(s)) }
	render.PageHead(&b, "gputop diff", "")
	fmt.Fprintf(&b, "<dl>\n<dt>A</dt><dd>%s</dd>\n<dt>B</dt><dd>%s</dd>\n</dl>\n", e(runLine(d.A)), e(runLine(d.B)))
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "<p class=\"legend\">Note: %s</p>\n", e(n))
	}
	for _, t := range d.tables() {
		fmt.Fprintf(&b, "<section>\n<h2>%s</h2>\n", t.title)
		t.WriteHTML(&b)
		b.WriteString("</section>\n")
	}
	b.WriteString("<section>\n<h2>Hints</h2>\n")
	if len(d.Hints) == 0 {
		b.WriteString("<p>The same in both.</p>\n")
	} else {
		b.WriteString("<ul>\n")
		for _, h := range d.Hints {
			fmt.Fprintf(&b, "<li>%s</li>\n", e(hintLine(h)))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</section>\n</main>\n</body>\n</html>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// WriteJSON writes the diff as indented JSON (docs/diff.md).
func (d *Diff) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}
