package ui

import (
	"fmt"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/layout"
	"github.com/gputop-dev/gputop/ui/transport"
)

// View is the screen as Update last drew it (render): drawing changes
// nothing, and a paused view with no new keys draws nothing new (the
// renderer sends nothing).
func (m *Model) View() string { return m.drawn.last }

// render draws the whole screen from the store and the cursor alone, in
// Update, with the rows the mouse may click noted as the panels draw them
// (mouse.go) and the scratch the panels draw with kept for the next.
func (m *Model) render() {
	m.drawn.dirty = false
	if m.width == 0 || m.height == 0 {
		m.drawn.last = ""
		return
	}
	f := m.frame()
	f.hits = append(m.drawn.hits[:0], make([]hit, m.height)...)
	m.drawn.last = f.draw()
	m.drawn.hits = f.hits
}

// draw is the screen's rows, each panel in the rows the layout gives it.
func (f *frame) draw() string {
	if !f.lay.Fits {
		return f.viewTooSmall()
	}
	if f.help.IsOpen() {
		return f.viewHelp()
	}
	lines := make([]string, 0, f.height)
	lines = append(lines, f.viewHeader())
	// Each panel notes what its rows show for the mouse, from hitBase.
	at := func() { f.hitBase = len(lines) }
	at()
	lines = append(lines, f.viewGPUs()...)
	lines = append(lines, f.viewJob()...)
	at()
	if f.lay.Phase > 0 {
		lines = append(lines, f.viewPhaseBand())
	}
	if f.lay.HintBand > 0 {
		lines = append(lines, f.viewHintBand())
	}
	f.hitRows(0, len(lines)-f.hitBase, hitTime, 0)
	lines = append(lines, f.viewHost()...)
	if f.hint.sel == 0 || f.procs.Focus {
		at()
		lines = append(lines, f.viewHints(f.lay.Hints)...)
	}
	lines = append(lines, f.viewAlloc()...)
	at()
	_, procsInPane := f.sharedPane()
	switch {
	case f.procs.Focus:
		// The process table with the keyboard takes the detail graph's
		// rows too: on a small screen it has no rows of its own.
		lines = append(lines, f.viewProcs(f.paneRows(f.lay.Procs))...)
	case f.hint.sel > 0:
		lines = append(lines, f.viewHintDetail(f.paneRows(f.lay.Hints))...)
		f.hitRows(0, len(lines)-f.hitBase, hitHint, f.hint.sel-1)
		at()
		lines = append(lines, f.viewProcs(f.lay.Procs)...)
	case procsInPane:
		lines = append(lines, f.viewProcsPane(f.lay.Detail)...)
	default:
		lines = append(lines, f.viewDetail(f.lay.Detail)...)
		f.hitRows(0, len(lines)-f.hitBase, hitTime, 0)
		at()
		lines = append(lines, f.viewProcs(f.lay.Procs)...)
	}
	lines = append(lines, draw.BlankLines(f.lay.BlankRows)...)
	if !f.play.Grows {
		// A replay gives its detail pane's last row to the transport.
		lines = append(draw.PadBlank(lines, f.height-layout.FooterRows-1), transport.View(f.pen(), transport.State{
			First: f.store.First(), Last: f.store.Last(), Cursor: f.play.Cursor,
			Motion: f.play.Motion, Speed: f.play.Speed, Loading: !f.sourceDone,
		}))
	}
	lines = draw.PadBlank(lines, f.height-layout.FooterRows)
	if f.prompt.Active() {
		return f.fitRows(append(lines, f.prompt.View(f.pen(), f.keys.Map)))
	}
	if f.procs.confirm.Active {
		// The question takes the pane's last row too.
		return f.fitRows(append(lines[:len(lines)-1], f.procs.confirm.View(f.pen(), f.keys.Map)...))
	}
	footer := f.viewFooter()
	if len(footer) > 1 {
		// A long message takes the pane's last row.
		lines = lines[:len(lines)-len(footer)+1]
	}
	return f.fitRows(append(lines, footer...))
}

// fitRows is the screen's rows, each through the last guard of the
// fitter: none wider than the terminal.
func (f *frame) fitRows(lines []string) string {
	for i, l := range lines {
		lines[i] = f.fit.FitRow(l, f.width)
	}
	return strings.Join(lines, "\n")
}

// frame computes the window once per View.
func (m *Model) frame() *frame {
	from, to := m.play.Window(m.store.First(), m.store.Last())
	if cap(m.drawn.cols) < m.lay.Spark {
		m.drawn.cols = make([]timeline.Agg, m.lay.Spark)
	}
	return &frame{Model: m, from: from, to: to, at: m.play.Cursor, cols: m.drawn.cols[:m.lay.Spark]}
}

func (f *frame) viewTooSmall() string {
	w, h := layout.MinSize()
	msg := fmt.Sprintf("terminal %dx%d is too small: gputop needs %dx%d; enlarge it or press q", f.width, f.height, w, h)
	return f.fitRows(draw.PadBlank(f.fit.WrapWords(msg, f.width, f.height), f.height))
}

// noteCores remembers the host's cores as samples name them: the screen is
// laid out again for the rows they need.
func (s *session) noteCores() (relayout bool) {
	if s.coresSeen == len(s.store.Keys()) {
		return false
	}
	s.coresSeen = len(s.store.Keys())
	s.cores = s.cores[:0]
	for _, k := range s.store.Keys() {
		if k.Name == timeline.CoreBusy {
			s.cores = append(s.cores, k.Device)
		}
	}
	return true
}

// newLine starts a row of at most limit columns.
func (s *look) newLine(limit int) *draw.Line {
	return draw.NewLine(&s.fit, limit)
}
