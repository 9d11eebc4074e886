package ui

import (
	"fmt"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
	"github.com/gputop-dev/gputop/ui/layout"
)

// View draws the whole screen from the store and the cursor alone, so a
// paused view with no new keys draws the same bytes every time (and the
// renderer sends nothing).
func (m *Model) View() string {
	if !m.dirty && m.lastView != "" {
		return m.lastView
	}
	m.dirty = false
	m.lastView = m.view()
	return m.lastView
}

func (m *Model) view() string {
	if m.width == 0 || m.height == 0 {
		return ""
	}
	m.hitReset()
	if !m.lay.Fits {
		return m.viewTooSmall()
	}
	if m.showHelp {
		return m.viewHelp()
	}
	f := m.frame()
	lines := make([]string, 0, m.height)
	lines = append(lines, m.viewHeader(f))
	// Each panel notes what its rows show for the mouse, from hitBase.
	at := func() { m.hitBase = len(lines) }
	at()
	lines = append(lines, m.viewGPUs(f)...)
	lines = append(lines, m.viewJob(f)...)
	at()
	if m.lay.Phase > 0 {
		lines = append(lines, m.viewPhaseBand(f))
	}
	if m.lay.HintBand > 0 {
		lines = append(lines, m.viewHintBand(f))
	}
	m.hitRows(0, len(lines)-m.hitBase, hitTime, 0)
	lines = append(lines, m.viewHost(f)...)
	if m.hintSel == 0 || m.procs.Focus {
		at()
		lines = append(lines, m.viewHints(f, m.lay.Hints)...)
	}
	at()
	switch {
	case m.procs.Focus:
		// The process table with the keyboard takes the detail graph's
		// rows too: on a small screen it has no rows of its own.
		lines = append(lines, m.viewProcs(f, m.procFocusRows())...)
	case m.hintSel > 0:
		lines = append(lines, m.viewHintDetail(f, m.hintRows())...)
		m.hitRows(0, len(lines)-m.hitBase, hitHint, m.hintSel-1)
		at()
		lines = append(lines, m.viewProcs(f, m.lay.Procs)...)
	case m.procsInPane():
		lines = append(lines, m.viewProcsPane(f, m.lay.Detail)...)
	default:
		lines = append(lines, m.viewDetail(f, m.lay.Detail)...)
		m.hitRows(0, len(lines)-m.hitBase, hitTime, 0)
		at()
		lines = append(lines, m.viewProcs(f, m.lay.Procs)...)
	}
	lines = append(lines, draw.BlankLines(m.lay.BlankRows)...)
	if !m.play.Grows {
		// A replay gives its detail pane's last row to the transport.
		lines = append(draw.PadBlank(lines, m.height-layout.FooterRows-1), m.viewTransport())
	}
	lines = draw.PadBlank(lines, m.height-layout.FooterRows)
	if m.prompt.active {
		return m.fitRows(append(lines, m.viewPrompt()))
	}
	if m.confirm.Active {
		// The question takes the pane's last row too.
		return m.fitRows(append(lines[:len(lines)-1], m.confirm.View(m.pen(), m.keys)...))
	}
	footer := m.viewFooter(f)
	if len(footer) > 1 {
		// A long message takes the pane's last row.
		lines = lines[:len(lines)-len(footer)+1]
	}
	return m.fitRows(append(lines, footer...))
}

// fitRows is the screen's rows, each through the last guard of the
// fitter: none wider than the terminal.
func (m *Model) fitRows(lines []string) string {
	for i, l := range lines {
		lines[i] = m.fit.FitRow(l, m.width)
	}
	return strings.Join(lines, "\n")
}

// frame computes the window once per View.
func (m *Model) frame() *frame {
	from, to := m.play.Window(m.store.First(), m.store.Last())
	if cap(m.cols) < m.lay.Spark {
		m.cols = make([]timeline.Agg, m.lay.Spark)
	}
	return &frame{from: from, to: to, at: m.play.Cursor, cols: m.cols[:m.lay.Spark]}
}

func (m *Model) viewTooSmall() string {
	w, h := layout.MinSize()
	msg := fmt.Sprintf("terminal %dx%d is too small: gputop needs %dx%d; enlarge it or press q", m.width, m.height, w, h)
	return m.fitRows(draw.PadBlank(m.fit.WrapWords(msg, m.width, m.height), m.height))
}

// noteCores remembers the host's cores the first time samples name them,
// and lays the screen out again if that changes how many rows they need.
func (m *Model) noteCores() {
	if m.coresSeen == len(m.store.Keys()) {
		return
	}
	m.coresSeen = len(m.store.Keys())
	m.cores = m.cores[:0]
	for _, k := range m.store.Keys() {
		if k.Name == timeline.CoreBusy {
			m.cores = append(m.cores, k.Device)
		}
	}
	m.hosts.groupCores(m.cores)
	if m.width > 0 {
		m.relayout()
	}
}

// newLine starts a row of at most limit columns.
func (m *Model) newLine(limit int) *draw.Line {
	return draw.NewLine(&m.fit, limit)
}
