package hints

import (
	"fmt"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/units"
	"github.com/gputop-dev/gputop/ui/draw"
)

// Panel is the hints panel and the open hint's detail: the hints listed
// at the cursor, worst first (analysis.Shown), and which is open.
type Panel struct {
	draw.Pen
	Hints []timeline.Hint
	// Names writes GPU indexes as the hints and the report do.
	Names units.GPUNames
	// At is the cursor.
	At time.Time
	// Sel is the hint opened: 0 for none, i+1 for Hints[i].
	Sel int
}

// View is the hints panel: the hints of the session up to the
// cursor (what gputop report --to the cursor says) that still hold there,
// worst first, then those that ended within the last minutes, dimmed. Each
// hint takes the lines its evidence needs, wrapped: one hint in full says
// more than three cut. Where they do not all fit, the first takes what it
// needs (all but a row) and the last row names the rest, which h shows in
// full one by one. judging says the analysis has yet to make its first
// reading. hit, for the mouse, is told each row that shows a hint and
// which (Hints[i]).
func (p *Panel) View(rows int, judging bool, hit func(row, i int)) []string {
	if rows <= 0 {
		return nil
	}
	hints := p.Hints
	if len(hints) == 0 {
		ln := p.NewLine(p.Width)
		msg := " no bottleneck hints at this time"
		if judging {
			msg = " a first reading after " + draw.Duration(analysis.ProvisionalMin) + " of samples; judging" + p.Glyph.Ellipsis
		}
		ln.Add(msg, p.Theme.Dim)
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
		lines := p.hintLines(hints[i], i == p.Sel-1, 0)
		if len(lines) > left {
			if i > 0 {
				break // named on the last row instead
			}
			lines = p.hintLines(hints[i], i == p.Sel-1, left)
		}
		for r := range lines {
			hit(len(out)+r, i)
		}
		out = append(out, lines...)
	}
	if i < len(hints) {
		out = append(out, p.moreHints(hints[i:]))
	}
	return draw.PadBlank(out, rows)
}

// moreHints is the row that names the hints the panel has no room for:
// "   +2 more (h shows each): gpu-imbalance GPU1, low-utilization GPU2".
func (p *Panel) moreHints(rest []timeline.Hint) string {
	names := make([]string, len(rest))
	for i, h := range rest {
		names[i] = p.hintName(h)
	}
	ln := p.NewLine(p.Width)
	ln.Add(fmt.Sprintf("   +%d more (h shows each): ", len(rest)), p.Theme.Dim)
	ln.Add(strings.Join(names, ", "), p.Theme.Dim)
	return ln.String()
}

// hintLead is a hint's head: selection mark and severity, then its id,
// GPUs and standing ("so far 25s", "ended 40s ago").
func (p *Panel) hintLead(h timeline.Hint, selected bool) (sev, name, status string) {
	mark := " "
	if selected {
		mark = p.Glyph.Playing
	}
	sev = mark + p.Glyph.Warn + " " + draw.PadRight(strings.ToUpper(h.Severity.String()), 9)
	name = p.hintName(h)
	if st := hintStatus(h, p.At); st != "" {
		status = " " + st
	}
	return sev, name, status
}

// hintIndent is where a hint's wrapped lines begin: under its id.
const hintIndent = 12

// hintLines is one hint, its head and its evidence, wrapped under the id
// in at most maxLines lines (0: as many as it takes), the last fitted.
func (p *Panel) hintLines(h timeline.Hint, selected bool, maxLines int) []string {
	sev, name, status := p.hintLead(h, selected)
	// Inked by severity, all dimmed once it has ended.
	sevInk, nameInk, textInk := p.Theme.Severity(h.Severity), p.Theme.Bold, draw.Ink{}
	if !h.Ongoing {
		sevInk, nameInk, textInk = p.Theme.Dim, p.Theme.Dim, p.Theme.Dim
	}
	head := sev + name + status + ":"
	indent := min(hintIndent, p.Width/4)
	plain := p.Fit.HangingWords(head, h.Evidence, p.Width, indent, maxLines)
	out := make([]string, len(plain))
	for i, l := range plain {
		out[i] = textInk.Paint(l)
	}
	// Paint the head where the first line holds it whole (it always does
	// but on a screen narrower than gputop draws).
	s, n, st := p.Fit.Words(sev), p.Fit.Words(name), p.Fit.Words(status)
	if rest, ok := strings.CutPrefix(plain[0], s+n+st+":"); ok {
		out[0] = sevInk.Paint(s) + nameInk.Paint(n) + p.Theme.Dim.Paint(st) + textInk.Paint(":"+rest)
	}
	return out
}

// hintName is a hint's id and its GPUs, written briefly: "gpu-imbalance
// GPU0,2-7", or by host, "... node3 GPU0-7"; the id alone for a hint
// about the host.
func (p *Panel) hintName(h timeline.Hint) string {
	if len(h.GPUs) == 0 {
		return h.ID
	}
	return h.ID + " " + p.Names.Of(h.GPUs)
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

// Detail is the selected hint in full, as lines with their ink: its
// span and standing, evidence, next step, and every episode, largest
// first. The detail pane shows as many as fit from where it is scrolled.
func (p *Panel) Detail() []Inked {
	if p.Sel < 1 || p.Sel > len(p.Hints) {
		return nil
	}
	h := p.Hints[p.Sel-1]
	w := p.Width
	// The hint itself first, whole: the panel of hints gives its rows to
	// the one opened.
	out := inked(nil, draw.Ink{}, p.hintLines(h, true, 0))
	standing := "firm"
	if st := hintStatus(h, p.At); st != "" {
		standing = st
	} else if h.Ongoing {
		standing = "firm, holding now"
	}
	span := fmt.Sprintf("    first seen %s, last seen %s (%s), confidence %.0f%%, %s", draw.Clock(h.Start, false),
		draw.Clock(h.End, false), units.Duration(h.End.Sub(h.Start)), 100*h.Confidence, standing)
	out = inked(out, p.Theme.Dim, p.Fit.WrapWords(span, w, 0))
	out = inked(out, p.Theme.Bold, p.Fit.HangingWords("    next step: ", h.Suggestion, w, -1, 0))
	if len(h.Episodes) > 1 {
		out = append(out, Inked{"    " + units.Count(len(h.Episodes), "episode") + ", largest first:", p.Theme.Dim})
		for _, ep := range h.Episodes {
			lead := fmt.Sprintf("    %s-%s %s ", draw.Clock(ep.Start, false), draw.Clock(ep.End, false), ep.Severity)
			out = inked(out, draw.Ink{}, p.Fit.HangingWords(lead, ep.Evidence, w, -1, 0))
		}
	}
	return out
}

// Inked is a line and the ink it is drawn in.
type Inked struct {
	Text string
	Ink  draw.Ink
}

// inked is out with lines after it, each in ink k.
func inked(out []Inked, k draw.Ink, lines []string) []Inked {
	for _, l := range lines {
		out = append(out, Inked{l, k})
	}
	return out
}

// DetailView shows the selected hint's lines (Detail) in rows rows where
// the detail graph goes, from line top, with the keys that move through
// it on its last row (scroll names the scrolling keys).
func (p *Panel) DetailView(lines []Inked, rows, top int, scroll string) []string {
	body := max(1, rows-1)
	top = min(top, max(0, len(lines)-body))
	var out []string
	for _, l := range lines[top:min(len(lines), top+body)] {
		out = append(out, p.Fit.FitRow(l.Ink.Paint(l.Text), p.Width))
	}
	out = draw.PadBlank(out, body)
	keys := "    h next hint" + p.Glyph.Sep + "esc back to the graph"
	if len(lines) > body {
		keys = fmt.Sprintf("    %s scroll (lines %d-%d of %d)%sh next hint%sesc back to the graph",
			scroll, top+1, min(len(lines), top+body), len(lines), p.Glyph.Sep, p.Glyph.Sep)
	}
	return append(out, p.Theme.Dim.Paint(p.Fit.FitWords(keys, p.Width, false)))
}
