package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rivo/uniseg"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/units"
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
	kinds := m.phaseColumns(f, cols)
	// One string a column: a wide character (CJK, most emoji) in a marker
	// takes two, the second left empty, so the band stays in step with
	// the sparklines above it whatever the markers say.
	cells := make([]string, cols)
	taken := make([]bool, cols) // a tick or a phase's name is there
	for i, k := range kinds {
		cells[i] = " "
		if k >= 0 {
			cells[i] = m.phaseCell(timeline.PhaseKind(k))
		}
	}
	colWidth := f.to.Sub(f.from) / time.Duration(cols)
	type tick struct {
		col  int
		text string
	}
	var ticks []tick
	for _, mk := range m.store.Markers() {
		if mk.At.Before(f.from) || mk.At.After(f.to) {
			continue
		}
		// A marker at the cursor (where [ and ] leave it) is in the last
		// column, with the sample at the cursor.
		c := min(int(mk.At.Sub(f.from)/max(colWidth, 1)), cols-1)
		cells[c], taken[c] = m.markerTick(), true
		ticks = append(ticks, tick{c, mk.Text})
	}
	// Then each phase's name where its run of columns has room between
	// the ticks, and last each marker's text in the room that is left:
	// every marker keeps its tick and every phase its name, and a marker's
	// text shows where it hides neither.
	for i := 0; i < cols; {
		j := i
		for j < cols && kinds[j] == kinds[i] {
			j++
		}
		if kinds[i] >= 0 {
			m.placeLabel(cells, taken, i, j, timeline.PhaseKind(kinds[i]).String())
		}
		i = j
	}
	for _, t := range ticks {
		m.placeText(cells, taken, t.col+1, oneLine(t.text))
	}
	// Paint runs of one kind in one ink: fewer escape codes, fewer bytes.
	for i := 0; i < cols; {
		j := i
		for j < cols && kinds[j] == kinds[i] {
			j++
		}
		ln.addCells(strings.Join(cells[i:j], ""), j-i, m.phaseInk(kinds[i]))
		i = j
	}
	return ln.String()
}

// placeLabel writes a phase's name into the first stretch of its run
// [from, to) that is free and has a column of room each side. In a stretch
// that starts at a marker's tick the name goes to the stretch's end, to
// leave the marker's text its room.
func (m *Model) placeLabel(cells []string, taken []bool, from, to int, name string) {
	need := len(name) + 2
	for i := from; i+need <= to; {
		j := i
		for j < to && !taken[j] {
			j++
		}
		if j-i >= need {
			at := i + 1
			if i > 0 && cells[i-1] == m.markerTick() {
				at = j - need + 1
			}
			for n, r := range name {
				cells[at+n], taken[at+n] = string(r), true
			}
			return
		}
		i = j + 1
	}
}

// placeText writes a marker's text from column at until it would cover a
// tick or a phase's name, or the band ends. Text that does not fit whole
// ends in an ellipsis, so that a cut is never taken for the whole, and a
// wide character is never cut in half.
func (m *Model) placeText(cells []string, taken []bool, at int, text string) {
	end := at
	for end < len(cells) && !taken[end] {
		end++
	}
	if end-at < 2 {
		return
	}
	background := slices.Clone(cells[at:end])
	var starts []int // the column of each grapheme placed
	c := at
	for g := uniseg.NewGraphemes(text); g.Next(); {
		w, str := g.Width(), g.Str()
		if w == 0 {
			continue
		}
		if m.ascii && (w > 1 || str[0] >= utf8.RuneSelf) {
			w, str = 1, "?"
		}
		if c+w > end {
			// Take back whole graphemes until the ellipsis has a column.
			for c > end-1 {
				c = starts[len(starts)-1]
				starts = starts[:len(starts)-1]
			}
			copy(cells[c:end], background[c-at:])
			cells[c] = m.glyph.ellipsis
			return
		}
		starts = append(starts, c)
		cells[c] = str
		for i := 1; i < w; i++ {
			cells[c+i] = ""
		}
		c += w
	}
}

// phaseColumns is the kind of phase each column of the window shows: the
// one that covers most of the column's time (-1 where none does, before
// the session began). The phases are the session's, computed once; that a
// phase narrower than a column gives way to its neighbour here is a matter
// of drawing, so zooming never changes which phases exist.
func (m *Model) phaseColumns(f *frame, cols int) []int8 {
	kinds := make([]int8, cols)
	cover := make([]time.Duration, cols)
	for i := range kinds {
		kinds[i] = -1
	}
	width := f.to.Sub(f.from) / time.Duration(cols)
	if width <= 0 {
		return kinds
	}
	phases := m.an.phases
	// The first phase that ends after the window starts.
	k, _ := slices.BinarySearchFunc(phases, f.from, func(p timeline.Phase, t time.Time) int {
		if p.End.After(t) {
			return 1
		}
		return -1
	})
	for ; k < len(phases) && phases[k].Start.Before(f.to); k++ {
		p := phases[k]
		lo := max(0, int(p.Start.Sub(f.from)/width))
		hi := min(cols-1, int(p.End.Sub(f.from)/width))
		for c := lo; c <= hi; c++ {
			cs := f.from.Add(time.Duration(c) * width)
			ce := cs.Add(width)
			d := minTime(ce, p.End).Sub(maxTime(cs, p.Start))
			if d > cover[c] {
				kinds[c], cover[c] = int8(p.Kind), d
			}
		}
	}
	return kinds
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
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
func (m *Model) phaseCell(k timeline.PhaseKind) string {
	if m.theme.plain || m.ascii {
		return string("BSIM"[k])
	}
	return "▬"
}

func (m *Model) markerTick() string {
	if m.ascii {
		return "|"
	}
	return "┃"
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

// viewHints is the hints panel: the hints of the session up to the
// cursor (what gputop report --to the cursor says) that still hold there,
// worst first, then those that ended within the last minutes, dimmed, one
// line each. The selected one (h) shows in full in the detail pane.
func (m *Model) viewHints(f *frame, rows int) []string {
	if rows <= 0 {
		return nil
	}
	hints := m.an.shown
	var out []string
	if len(hints) == 0 {
		ln := newLine(m.width)
		msg := " no bottleneck hints at this time"
		if m.store.Len() > 0 && f.at.Sub(m.store.First()) < analysis.ProvisionalMin {
			msg = " a first reading after " + fmtDuration(analysis.ProvisionalMin) + " of samples; judging" + m.glyph.ellipsis
		}
		ln.add(msg, m.theme.dim)
		return padBlank([]string{ln.String()}, rows)
	}
	for i, h := range hints[:min(rows, len(hints))] {
		more := ""
		if i == rows-1 && len(hints) > rows {
			// The last row says what does not fit, and how to see it.
			more = fmt.Sprintf(" +%d more (h)", len(hints)-rows)
		}
		out = append(out, m.hintLine(h, f.at, i == m.hintSel-1, more))
	}
	return padBlank(out, rows)
}

// hintLine is one hint: severity, id, GPUs, whether it is a first reading
// or has ended, and as much evidence as fits. An ended hint is dimmed.
func (m *Model) hintLine(h timeline.Hint, at time.Time, selected bool, more string) string {
	ln := newLine(m.width - utf8.RuneCountInString(more))
	sev := strings.ToUpper(h.Severity.String())
	k := m.theme.warn
	switch h.Severity {
	case timeline.Critical:
		k = m.theme.crit
	case timeline.Info:
		k = m.theme.dim
	}
	name, text := m.theme.bold, ink{}
	if !h.Ongoing {
		k, name, text = m.theme.dim, m.theme.dim, m.theme.dim
	}
	mark := " "
	if selected {
		mark = m.glyph.playing
	}
	ln.add(mark+m.glyph.warn+" "+padRight(sev, 9), k)
	ln.add(h.ID, name)
	if g := gpuList(m.gpuNames, h.GPUs); g != "" {
		ln.add(" "+g, name)
	}
	if st := hintStatus(h, at); st != "" {
		ln.add(" "+st, m.theme.dim)
	}
	ln.add(": "+h.Evidence, text)
	if more != "" {
		ln.limit = m.width
		ln.pad(m.width-utf8.RuneCountInString(more)).add(more, m.theme.dim)
	}
	return ln.String()
}

// gpuList writes GPU indexes briefly: "GPU0-7", "GPU1", "GPU0,2-7", or
// by host, "node3 GPU0-7"; "" for a hint about the host.
func gpuList(names units.GPUNames, gpus []int) string {
	if len(gpus) == 0 {
		return ""
	}
	return names.Of(gpus)
}

// hintStatus says what kind of reading a hint is at the cursor: "so far
// 25s" for a first reading, "ended 40s ago" for one that no longer holds;
// nothing for a firm one that holds.
func hintStatus(h timeline.Hint, at time.Time) string {
	switch {
	case !h.Ongoing:
		return "ended " + fmtDuration(at.Sub(h.End).Truncate(time.Second)) + " ago"
	case h.Provisional:
		return "so far " + fmtDuration(h.End.Sub(h.Start))
	}
	return ""
}

// hintDetail is the selected hint in full, as lines with their ink: its
// span and standing, evidence, next step, and every episode, largest
// first. The detail pane shows as many as fit from hintTop on.
func (m *Model) hintDetail(at time.Time) []inked {
	if m.hintSel < 1 || m.hintSel > len(m.an.shown) {
		return nil
	}
	h := m.an.shown[m.hintSel-1]
	w := m.width
	var out []inked
	if m.hintSel > m.lay.hints {
		// Not in the panel above: say which hint this is.
		out = append(out, inked{m.hintLine(h, at, true, ""), ink{}})
	}
	standing := "firm"
	if st := hintStatus(h, at); st != "" {
		standing = st
	} else if h.Ongoing {
		standing = "firm, holding now"
	}
	span := fmt.Sprintf("    first seen %s, last seen %s (%s), confidence %.0f%%, %s", fmtClock(h.Start, false),
		fmtClock(h.End, false), fmtDuration(h.End.Sub(h.Start)), 100*h.Confidence, standing)
	for _, l := range wrap(span, w) {
		out = append(out, inked{l, m.theme.dim})
	}
	for _, l := range hanging("    evidence:  ", h.Evidence, w) {
		out = append(out, inked{l, ink{}})
	}
	for _, l := range hanging("    next step: ", h.Suggestion, w) {
		out = append(out, inked{l, m.theme.bold})
	}
	if len(h.Episodes) > 1 {
		out = append(out, inked{"    " + plural(len(h.Episodes), "episode") + ", largest first:", m.theme.dim})
		for _, ep := range h.Episodes {
			lead := fmt.Sprintf("    %s-%s %s ", fmtClock(ep.Start, false), fmtClock(ep.End, false), ep.Severity)
			for _, l := range hanging(lead, ep.Evidence, w) {
				out = append(out, inked{l, ink{}})
			}
		}
	}
	return out
}

// inked is a line and the ink it is drawn in.
type inked struct {
	text string
	ink  ink
}

// viewHintDetail shows the selected hint in full where the detail graph
// goes, scrolled to hintTop, with the keys that move through it on its
// last row.
func (m *Model) viewHintDetail(f *frame, rows int) []string {
	lines := m.hintDetail(f.at)
	if lines == nil {
		return m.viewDetail(f, rows)
	}
	body := max(1, rows-1)
	top := min(m.hintTop, max(0, len(lines)-body))
	var out []string
	for _, l := range lines[top:min(len(lines), top+body)] {
		out = append(out, l.ink.paint(cutVisible(l.text, m.width)))
	}
	out = padBlank(out, body)
	keys := "    h next hint" + m.glyph.sep + "esc back to the graph"
	if len(lines) > body {
		keys = fmt.Sprintf("    %s scroll (lines %d-%d of %d)%sh next hint%sesc back to the graph",
			m.keys.hintUp.Help().Key, top+1, min(len(lines), top+body), len(lines), m.glyph.sep, m.glyph.sep)
	}
	return append(out, m.theme.dim.paint(cutVisible(keys, m.width)))
}

// hintDetailOverflow is how many lines of the selected hint's detail do
// not fit in the detail pane: how far it can scroll.
func (m *Model) hintDetailOverflow() int {
	return max(0, len(m.hintDetail(m.play.cursor))-max(1, m.hintRows()-1))
}

// hintRows is the room for the open hint: the detail pane, less the row a
// replay gives to its transport.
func (m *Model) hintRows() int {
	if !m.play.grows {
		return m.lay.detail - 1
	}
	return m.lay.detail
}

// plural says "1 more hint" or "3 more hints".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// viewHintBand marks, under the phase band and in the same columns, when
// each episode of each hint listed held: the worst on top, its id where it
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
	hints := m.an.shown
	// Paint the mildest first, so the worst ends on top.
	for i := len(hints) - 1; i >= 0; i-- {
		h := hints[i]
		for _, ep := range h.Episodes {
			if !ep.End.After(f.from) || ep.Start.After(f.to) {
				continue
			}
			lo := max(0, int(ep.Start.Sub(f.from)/colWidth))
			hi := min(cols, int(ep.End.Sub(f.from)/colWidth)+1)
			for c := lo; c < hi; c++ {
				cells[c], sev[c] = span, int8(ep.Severity)
			}
			if id := []rune(h.ID); hi-lo >= len(id)+2 {
				copy(cells[lo+1:], id)
			}
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
