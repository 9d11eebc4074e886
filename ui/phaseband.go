package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// viewPhaseBand is the row under the GPUs that says what the job was doing
// in each column of the sparklines above it: busy, stalled or idle, with
// the markers as ticks and their text where there is room. It uses the same
// window and column count as the sparklines, so a column here is a column
// there. Colour says the phase; without colour (NO_COLOR) letters do:
// B busy, S stalled, I idle.
func (m *Model) viewPhaseBand(f *frame) string {
	ln := m.bandRow("phase")
	cols := m.lay.spark
	if m.store.Len() == 0 || cols <= 0 {
		return ln.String()
	}
	colWidth := f.to.Sub(f.from) / time.Duration(cols)
	cells := make([]rune, cols)
	kinds := make([]int8, cols) // -1: no phase
	for i := range kinds {
		kinds[i] = -1
		cells[i] = ' '
	}
	col := func(t time.Time) int { return int(t.Sub(f.from) / max(colWidth, 1)) }
	phases := m.phasesFor(f.from, f.to, colWidth)
	for _, p := range phases {
		lo, hi := max(0, col(p.Start)), min(cols, col(p.End)+1)
		for i := lo; i < hi; i++ {
			kinds[i] = int8(p.Kind)
			cells[i] = m.phaseCell(p.Kind)
		}
		// The phase's name where it begins, if it has room to be read.
		name := []rune(p.Kind.String())
		if hi-lo >= len(name)+2 && lo+len(name) < cols {
			copy(cells[lo+1:], name)
		}
	}
	for _, mk := range m.store.Markers() {
		if mk.At.Before(f.from) || mk.At.After(f.to) {
			continue
		}
		// A marker at the cursor (where [ and ] leave it) is in the last
		// column, with the sample at the cursor.
		c := min(col(mk.At), cols-1)
		cells[c] = m.markerTick()
		// The marker's text runs right, up to the next marker.
		text := []rune(mk.Text)
		for i, r := range text {
			j := c + 1 + i
			if j >= cols || cells[j] == m.markerTick() {
				break
			}
			cells[j] = r
		}
	}
	// Paint runs of one kind in one ink: fewer escape codes, fewer bytes.
	for i := 0; i < cols; {
		j := i
		for j < cols && kinds[j] == kinds[i] {
			j++
		}
		ln.add(string(cells[i:j]), m.phaseInk(kinds[i]))
		i = j
	}
	return ln.String()
}

// bandRow starts a row that lines up with the sparklines: its label, then
// padding to the column where the sparklines begin.
func (m *Model) bandRow(label string) *line {
	ln := newLine(m.width)
	prefix := m.lay.label
	if m.lay.gpuRows > 1 {
		prefix += rowLabelWidth
		ln.pad(m.lay.label).add(padRight(label, rowLabelWidth), m.theme.dim)
	} else {
		ln.add(padRight(label, m.lay.label), m.theme.dim)
	}
	return ln.pad(prefix)
}

// phaseCell is the background of a column in a phase.
func (m *Model) phaseCell(k timeline.PhaseKind) rune {
	if m.theme.plain || m.ascii {
		return []rune("BSIM")[k]
	}
	return '▬'
}

func (m *Model) markerTick() rune {
	if m.ascii {
		return '|'
	}
	return '┃'
}

func (m *Model) phaseInk(kind int8) ink {
	switch timeline.PhaseKind(kind) {
	case timeline.PhaseBusy:
		return m.theme.ok
	case timeline.PhaseStalled:
		return m.theme.warn
	case timeline.PhaseIdle:
		return m.theme.dim
	}
	return ink{}
}

// viewHints is the hints panel: the hints active at the cursor, worst
// first, one line each. The selected one (h) shows its evidence and next
// step in the detail pane.
func (m *Model) viewHints(f *frame, rows int) []string {
	if rows <= 0 {
		return nil
	}
	hints := m.hintsAt(f.at)
	var out []string
	if len(hints) == 0 {
		ln := newLine(m.width)
		msg := " no bottleneck hints at this time"
		if m.store.Len() > 0 && f.at.Sub(m.store.First()) < 2*time.Minute {
			msg = " hints need two minutes of samples; judging" + m.glyph.ellipsis
		}
		ln.add(msg, m.theme.dim)
		return padBlank([]string{ln.String()}, rows)
	}
	for i, h := range hints {
		if len(out) == rows {
			break
		}
		if len(out) == rows-1 && len(hints)-i > 1 {
			ln := newLine(m.width)
			ln.add(" "+plural(len(hints)-i, "more hint")+": h to page through them", m.theme.dim)
			out = append(out, ln.String())
			break
		}
		out = append(out, m.hintLine(h, i == m.hintSel-1))
	}
	return padBlank(out, rows)
}

// hintLine is one hint: severity, id, GPUs, and as much evidence as fits.
func (m *Model) hintLine(h timeline.Hint, selected bool) string {
	ln := newLine(m.width)
	sev := strings.ToUpper(h.Severity.String())
	k := m.theme.warn
	switch h.Severity {
	case timeline.Critical:
		k = m.theme.crit
	case timeline.Info:
		k = m.theme.dim
	}
	mark := " "
	if selected {
		mark = m.glyph.playing
	}
	ln.add(mark+m.glyph.warn+" "+padRight(sev, 9), k)
	ln.add(h.ID, m.theme.bold)
	if g := gpuList(h.GPUs); g != "" {
		ln.add(" "+g, m.theme.bold)
	}
	ln.add(": "+h.Evidence, ink{})
	return ln.String()
}

// gpuList writes GPU indexes briefly: "GPU0-7", "GPU1", "GPU0,2-7".
func gpuList(gpus []int) string {
	if len(gpus) == 0 {
		return ""
	}
	var parts []string
	for i := 0; i < len(gpus); {
		j := i
		for j+1 < len(gpus) && gpus[j+1] == gpus[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, itoa(gpus[i])+"-"+itoa(gpus[j]))
		} else {
			parts = append(parts, itoa(gpus[i]))
		}
		i = j + 1
	}
	return "GPU" + strings.Join(parts, ",")
}

// viewHintDetail shows the selected hint in full where the detail graph
// goes: its span, confidence, evidence and next step.
func (m *Model) viewHintDetail(f *frame, rows int) []string {
	hints := m.hintsAt(f.at)
	if m.hintSel > len(hints) {
		m.hintSel = 0
		return m.viewDetail(f, rows)
	}
	h := hints[m.hintSel-1]
	out := []string{m.hintLine(h, true)}
	span := fmt.Sprintf("from %s to %s (%s), confidence %.0f%%", fmtClock(h.Start, false), fmtClock(h.End, false),
		fmtDuration(h.End.Sub(h.Start)), 100*h.Confidence)
	out = append(out, m.theme.dim.paint(cutVisible("    "+span, m.width)))
	out = append(out, hanging("    evidence:  ", h.Evidence, m.width)...)
	for _, l := range hanging("    next step: ", h.Suggestion, m.width) {
		out = append(out, m.theme.bold.paint(l))
	}
	out = append(out, m.theme.dim.paint(cutVisible("    h: next hint; any hint key past the last one goes back to the graph", m.width)))
	return padBlank(out, rows)
}

// plural says "1 more hint" or "3 more hints".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func itoa(i int) string { return strconv.Itoa(i) }

// viewHintBand marks, under the phase band and in the same columns, when
// each hint active at the cursor held: the worst on top, its id where it
// begins if there is room.
func (m *Model) viewHintBand(f *frame) string {
	ln := m.bandRow("hints")
	cols := m.lay.spark
	if m.store.Len() == 0 || cols <= 0 {
		return ln.String()
	}
	colWidth := max(f.to.Sub(f.from)/time.Duration(cols), 1)
	cells := make([]rune, cols)
	sev := make([]int8, cols) // -1: no hint
	for i := range cells {
		cells[i], sev[i] = ' ', -1
	}
	span := '═'
	if m.ascii {
		span = '='
	}
	hints := m.hintsAt(f.at)
	// Paint the mildest first, so the worst ends on top.
	for i := len(hints) - 1; i >= 0; i-- {
		h := hints[i]
		lo := max(0, int(h.Start.Sub(f.from)/colWidth))
		hi := min(cols, int(h.End.Sub(f.from)/colWidth)+1)
		for c := lo; c < hi; c++ {
			cells[c], sev[c] = span, int8(h.Severity)
		}
		if id := []rune(h.ID); hi-lo >= len(id)+2 {
			copy(cells[lo+1:], id)
		}
	}
	for i := 0; i < cols; {
		j := i
		for j < cols && sev[j] == sev[i] {
			j++
		}
		ln.add(string(cells[i:j]), m.severityInk(sev[i]))
		i = j
	}
	return ln.String()
}

func (m *Model) severityInk(s int8) ink {
	switch timeline.Severity(s) {
	case timeline.Critical:
		return m.theme.crit
	case timeline.Warning:
		return m.theme.warn
	case timeline.Info:
		return m.theme.dim
	}
	return ink{}
}
