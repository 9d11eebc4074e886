package procs

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/scroll"
)

// GPUs is how the table names the session's GPUs.
type GPUs struct {
	// Names and OnHost write a GPU as its host numbers it (the GPU
	// column), or in full (the chosen process's line).
	Names  units.GPUNames
	OnHost func(gpu int) int
	// Width is the GPU and PID columns' as one: the 11 of "GPU     PID",
	// or as many more as the longest MIG instance's name needs.
	Width int
}

// pid is the GPU and PID columns as one: a GPU left (its number on its
// host, or a MIG instance's parent and profile, "0/1g.10gb"), a PID right.
func (g GPUs) pid(gpu, pid string) string {
	return gpu + strings.Repeat(" ", max(1, g.Width-len(gpu)-len(pid))) + pid
}

// whereWidth is the WHERE column: "ctr " and a 12-digit id.
const whereWidth = 16

// View is the process table of spans (Spans) in rows rows: the table
// alone, or, while it has the keyboard, with the selected process's
// details under it. asOf is the time of the process list at the cursor,
// host the one whose processes these are ("" in a session of one). hit,
// for the mouse, is told each row that shows a process and which
// (spans[i]).
func (t *Table) View(p draw.Pen, spans []timeline.ProcessSpan, rows int, asOf time.Time, host string, g GPUs,
	hit func(row, i int)) []string {
	if rows <= 0 {
		return nil
	}
	v := &view{Pen: p, t: t}
	head := v.NewLine(v.Width)
	head.Add(" PROCESSES", v.Theme.Title)
	if host != "" {
		head.Add(" on "+host, v.Theme.Title)
	}
	if !asOf.IsZero() {
		head.Add("  as of "+draw.Clock(asOf, false), v.Theme.Dim)
	}
	order := "▼" // "v" with --ascii, as the fitter writes it
	if t.SortBy.DescendingFirst() == t.Invert {
		order = "▲"
	}
	head.Add("  by "+ColumnNames[t.SortBy]+" "+order, v.Theme.Dim)
	if t.Filter != "" {
		head.AddText(fmt.Sprintf("  filter %q: %d of %d", t.Filter, len(spans), t.total), v.Theme.Warn)
	}
	if n := exitedCount(spans); n > 0 {
		head.Add(fmt.Sprintf("  %d ended in the window", n), v.Theme.Dim)
	}
	rss, times := v.Width >= 100, v.Width >= 120 // the optional columns: RSS, the start and end times
	cols := v.NewLine(v.Width)
	title := fmt.Sprintf(" %s %-8s %8s %5s %5s", g.pid("GPU", "PID"), "USER", "GPU MEM", "UTIL", "CPU")
	if rss {
		title += fmt.Sprintf(" %6s", "RSS")
	}
	if times {
		title += fmt.Sprintf(" %-8s %-8s", "START", "END")
	}
	title += fmt.Sprintf(" %-*s %s", whereWidth, "WHERE", "COMMAND")
	cols.Add(title, v.Theme.Dim)
	out := []string{head.String(), cols.String()}
	if len(spans) == 0 {
		none := "   no GPU processes seen"
		if t.Filter != "" {
			none = "   no process matches the filter (/ to change it, empty for all)"
		}
		return draw.PadBlank(append(out, none), rows)
	}

	o := t.Scroll // a copy: Place, in Update, keeps the table's own
	detail, sel, room, top := v.place(&o, spans, rows, g)
	for i := top; i < len(spans) && i < top+room; i++ {
		hit(len(out), i)
		out = append(out, v.procRow(&spans[i], i == sel, rss, times, g))
	}
	if len(detail) > 0 {
		out = append(draw.PadBlank(out, rows-len(detail)), detail...)
	}
	return draw.PadBlank(out, rows)
}

// Place scrolls the table as View will draw spans in rows rows, and
// notes the rows it has for processes (Visible): ui calls it in Update, so
// that drawing changes nothing.
func (t *Table) Place(p draw.Pen, spans []timeline.ProcessSpan, rows int, g GPUs) {
	if rows <= 0 || len(spans) == 0 {
		return
	}
	v := &view{Pen: p, t: t}
	_, _, t.Visible, _ = v.place(&t.Scroll, spans, rows, g)
}

// headRows are the table's title and its columns' names.
const headRows = 2

// place is where the rows of spans go in rows rows: the chosen process's
// details under the table (while it has the keys), the rows left for
// processes, and the first of them on screen, scrolled from o as htop
// scrolls: the selection stays on screen, and the list moves only when it
// would leave it.
func (v *view) place(o *scroll.Offset, spans []timeline.ProcessSpan, rows int, g GPUs) (detail []string, sel, room, top int) {
	sel = -1
	if v.t.Focus {
		sel = v.t.Selected(spans)
		// The chosen process in full, leaving the table one row at least.
		detail = v.procDetail(&spans[sel], g)
		detail = detail[:max(0, min(len(detail), rows-headRows-1))]
	}
	room = max(1, rows-headRows-len(detail))
	if v.t.Focus {
		return detail, sel, room, o.Follow(sel, len(spans), room)
	}
	return detail, sel, room, o.Clamp(len(spans), room)
}

// view is one drawing of the table. The GPUs' names go beside it, not in
// it: what the rows keep of the pen would take OnHost to the heap with it.
type view struct {
	draw.Pen
	t *Table
}

func exitedCount(spans []timeline.ProcessSpan) int {
	n := 0
	for i := range spans {
		if !spans[i].Running {
			n++
		}
	}
	return n
}

// procRow is one process: bold if the wrapped job's, dimmed if it let go
// of its GPU in the window, reversed if selected.
func (v *view) procRow(p *timeline.ProcessSpan, selected, rss, times bool, g GPUs) string {
	ln := v.NewLine(v.Width)
	k := draw.Ink{}
	switch {
	case selected:
		k = v.Theme.Sel
	case !p.Running:
		k = v.Theme.Dim
	case p.InJob:
		k = v.Theme.Bold
	}
	util, cpu := draw.Pct(p.Util), draw.Pct(p.CPU)
	if !p.Running {
		// Its last reading is from before it ended: not a current number.
		util, cpu = "-", "-"
	}
	mark, cmdInk := " ", v.Theme.Dim
	if selected {
		mark, cmdInk = v.Glyph.Sel, v.Theme.Sel
	}
	s := fmt.Sprintf("%s%s %-8s %8s %5s %5s", mark, g.pid(g.Names.Column(p.GPU, g.OnHost), strconv.Itoa(p.PID)), v.Fit.FitWords(cmp.Or(p.User, draw.NA), 8, false), draw.Bytes(p.GPUMem), util, cpu)
	if rss {
		s += fmt.Sprintf(" %6s", draw.Bytes(p.RSS))
	}
	if times {
		end := ""
		if !p.Running {
			end = draw.Clock(p.LastSeen, false)
		}
		// Without the host's word, the start is unknown: the first list in
		// the window is only when the window begins.
		start := "-"
		if !p.Started.IsZero() {
			start = draw.Clock(p.Started, false)
		}
		s += fmt.Sprintf(" %-8s %-8s", start, end)
	}
	s += fmt.Sprintf(" %-*s ", whereWidth, v.Fit.FitWords(cmp.Or(p.Workload.Short(), "-"), whereWidth, false))
	ln.Add(s, k)
	ln.AddText(cmp.Or(p.Command, draw.NA), cmdInk)
	return ln.String()
}

// maxCommandRows bounds the chosen process's command line under the table
// (the process tier keeps 256 bytes of it).
const maxCommandRows = 4

// procDetail is the chosen process in full: who and when, where it runs,
// then its whole command line, wrapped.
func (v *view) procDetail(p *timeline.ProcessSpan, g GPUs) []string {
	var b strings.Builder
	fmt.Fprintf(&b, " PID %d on %s", p.PID, g.Names.One(p.GPU))
	if p.User != "" {
		b.WriteString(" · " + p.User)
	}
	if !p.Started.IsZero() {
		b.WriteString(" · started " + draw.Clock(p.Started, false))
	}
	if !p.Running {
		b.WriteString(" · ended by " + draw.Clock(p.LastSeen, false))
	}
	if !math.IsNaN(p.PeakGPUMem) {
		b.WriteString(" · peak " + draw.Bytes(p.PeakGPUMem))
	}
	// With --ascii, the fitter writes the dots as dashes.
	out := []string{v.NewLine(v.Width).AddText(b.String(), v.Theme.Bold).String()}
	// Where it runs gets a line of its own: a pod's UID and container id
	// alone take 80 columns.
	if w := p.Workload.String(); w != "" {
		out = append(out, v.NewLine(v.Width).Add("   ", draw.Ink{}).AddText(w, v.Theme.Bold).String())
	}
	cmd := v.Fit.WrapWords(timeline.CleanText(cmp.Or(p.Command, draw.NA)), v.Width-3, maxCommandRows)
	for _, l := range cmd[:min(len(cmd), maxCommandRows)] {
		out = append(out, v.NewLine(v.Width).Add("   ", draw.Ink{}).AddText(l, draw.Ink{}).String())
	}
	return out
}
