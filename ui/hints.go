package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/units"
	"github.com/gputop-dev/gputop/ui/draw"
)

// viewHints is the hints panel: the hints of the session up to the
// cursor (what gputop report --to the cursor says) that still hold there,
// worst first, then those that ended within the last minutes, dimmed. Each
// hint takes the lines its evidence needs, wrapped: one hint in full says
// more than three cut. Where they do not all fit, the first takes what it
// needs (all but a row) and the last row names the rest, which h shows in
// full one by one.
func (m *Model) viewHints(f *frame, rows int) []string {
	if rows <= 0 {
		return nil
	}
	hints := m.an.shown
	if len(hints) == 0 {
		ln := m.newLine(m.width)
		msg := " no bottleneck hints at this time"
		if m.store.Len() > 0 && f.at.Sub(m.store.First()) < analysis.ProvisionalMin {
			msg = " a first reading after " + draw.Duration(analysis.ProvisionalMin) + " of samples; judging" + m.glyph.Ellipsis
		}
		ln.Add(msg, m.theme.Dim)
		return draw.PadBlank([]string{ln.String()}, rows)
	}
	var out []string
	i := 0
	for ; i < len(hints); i++ {
		left := rows - len(out)
		if i < len(hints)-1 {
			left-- // a row for the hints after this one
		}
		if left <= 0 {
			break
		}
		lines := m.hintLines(hints[i], f.at, i == m.hintSel-1, 0)
		if len(lines) > left {
			if i > 0 {
				break // named on the last row instead
			}
			lines = m.hintLines(hints[i], f.at, i == m.hintSel-1, left)
		}
		m.hitRows(len(out), len(lines), hitHint, i)
		out = append(out, lines...)
	}
	if i < len(hints) {
		out = append(out, m.moreHints(hints[i:]))
	}
	return draw.PadBlank(out, rows)
}

// moreHints is the row that names the hints the panel has no room for:
// "   +2 more (h shows each): gpu-imbalance GPU1, low-utilization GPU2".
func (m *Model) moreHints(rest []timeline.Hint) string {
	names := make([]string, len(rest))
	for i, h := range rest {
		names[i] = h.ID
		if g := gpuList(m.gpuNames, h.GPUs); g != "" {
			names[i] += " " + g
		}
	}
	ln := m.newLine(m.width)
	ln.Add(fmt.Sprintf("   +%d more (h shows each): ", len(rest)), m.theme.Dim)
	ln.Add(strings.Join(names, ", "), m.theme.Dim)
	return ln.String()
}

// hintLead is a hint's head: selection mark and severity, then its id,
// GPUs and standing ("so far 25s", "ended 40s ago").
func (m *Model) hintLead(h timeline.Hint, at time.Time, selected bool) (sev, name, status string) {
	mark := " "
	if selected {
		mark = m.glyph.Playing
	}
	sev = mark + m.glyph.Warn + " " + draw.PadRight(strings.ToUpper(h.Severity.String()), 9)
	name = h.ID
	if g := gpuList(m.gpuNames, h.GPUs); g != "" {
		name += " " + g
	}
	if st := hintStatus(h, at); st != "" {
		status = " " + st
	}
	return sev, name, status
}

// hintInks are the inks of a hint's head and text: by severity, all dimmed
// once it has ended.
func (m *Model) hintInks(h timeline.Hint) (sev, name, text draw.Ink) {
	sev = m.theme.Warn
	switch h.Severity {
	case timeline.Critical:
		sev = m.theme.Crit
	case timeline.Info:
		sev = m.theme.Dim
	}
	name = m.theme.Bold
	if !h.Ongoing {
		sev, name, text = m.theme.Dim, m.theme.Dim, m.theme.Dim
	}
	return sev, name, text
}

// hintIndent is where a hint's wrapped lines begin: under its id.
const hintIndent = 12

// hintLines is one hint, its head and its evidence, wrapped under the id
// in at most maxLines lines (0: as many as it takes), the last fitted.
func (m *Model) hintLines(h timeline.Hint, at time.Time, selected bool, maxLines int) []string {
	sev, name, status := m.hintLead(h, at, selected)
	sevInk, nameInk, textInk := m.hintInks(h)
	head := sev + name + status + ":"
	indent := min(hintIndent, m.width/4)
	plain := m.fit.HangingWords(head, h.Evidence, m.width, indent, maxLines)
	out := make([]string, len(plain))
	for i, l := range plain {
		out[i] = textInk.Paint(l)
	}
	// Paint the head where the first line holds it whole (it always does
	// but on a screen narrower than gputop draws).
	s, n, st := m.fit.Words(sev), m.fit.Words(name), m.fit.Words(status)
	if rest, ok := strings.CutPrefix(plain[0], s+n+st+":"); ok {
		out[0] = sevInk.Paint(s) + nameInk.Paint(n) + m.theme.Dim.Paint(st) + textInk.Paint(":"+rest)
	}
	return out
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
		return "ended " + draw.Duration(at.Sub(h.End).Truncate(time.Second)) + " ago"
	case h.Provisional:
		return "so far " + draw.Duration(h.End.Sub(h.Start))
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
	// The hint itself first, whole: the panel of hints gives its rows to
	// the one opened.
	var out []inked
	for _, l := range m.hintLines(h, at, true, 0) {
		out = append(out, inked{l, draw.Ink{}})
	}
	standing := "firm"
	if st := hintStatus(h, at); st != "" {
		standing = st
	} else if h.Ongoing {
		standing = "firm, holding now"
	}
	span := fmt.Sprintf("    first seen %s, last seen %s (%s), confidence %.0f%%, %s", draw.Clock(h.Start, false),
		draw.Clock(h.End, false), draw.Duration(h.End.Sub(h.Start)), 100*h.Confidence, standing)
	for _, l := range m.fit.WrapWords(span, w, 0) {
		out = append(out, inked{l, m.theme.Dim})
	}
	for _, l := range m.fit.HangingWords("    next step: ", h.Suggestion, w, -1, 0) {
		out = append(out, inked{l, m.theme.Bold})
	}
	if len(h.Episodes) > 1 {
		out = append(out, inked{"    " + plural(len(h.Episodes), "episode") + ", largest first:", m.theme.Dim})
		for _, ep := range h.Episodes {
			lead := fmt.Sprintf("    %s-%s %s ", draw.Clock(ep.Start, false), draw.Clock(ep.End, false), ep.Severity)
			for _, l := range m.fit.HangingWords(lead, ep.Evidence, w, -1, 0) {
				out = append(out, inked{l, draw.Ink{}})
			}
		}
	}
	return out
}

// inked is a line and the ink it is drawn in.
type inked struct {
	text string
	ink  draw.Ink
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
		out = append(out, m.fit.FitRow(l.ink.Paint(l.text), m.width))
	}
	out = draw.PadBlank(out, body)
	keys := "    h next hint" + m.glyph.Sep + "esc back to the graph"
	if len(lines) > body {
		keys = fmt.Sprintf("    %s scroll (lines %d-%d of %d)%sh next hint%sesc back to the graph",
			m.keys.HintUp.Help().Key, top+1, min(len(lines), top+body), len(lines), m.glyph.Sep, m.glyph.Sep)
	}
	return append(out, m.theme.Dim.Paint(m.fit.FitWords(keys, m.width, false)))
}

// hintDetailOverflow is how many lines of the selected hint's detail do
// not fit in the detail pane: how far it can scroll.
func (m *Model) hintDetailOverflow() int {
	return max(0, len(m.hintDetail(m.play.Cursor))-max(1, m.hintRows()-1))
}

// hintRows is the room for the open hint: the hints panel's and the
// detail pane's, less the row a replay gives to its transport.
func (m *Model) hintRows() int {
	rows := m.lay.hints + m.lay.detail
	if !m.play.Grows {
		rows--
	}
	return rows
}

// plural says "1 more hint" or "3 more hints".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
