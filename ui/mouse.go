package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/ui/procs"
)

// The mouse does what the keys do, where it points: a click on a GPU (or a
// host) selects it, on a process chooses it (the table takes the keys),
// on a hint opens it; the wheel moves the selection over the GPU list and
// the process table, scrolls an open hint and the help, and scrolls time
// over the graph and the bands. View notes what each row shows (hits) as
// it draws, so a click lands on what the person saw.

// hitKind is what a row of the screen shows.
type hitKind uint8

const (
	hitNone hitKind = iota
	hitGPU          // idx: a position in info.GPUs
	hitHost         // idx: a host of several
	hitHint         // idx: a hint of an.shown
	hitProc         // idx: a row of the process table's spans
	hitTime         // the graph and the bands: the wheel scrolls time
)

type hit struct {
	kind hitKind
	idx  int
}

// hitRows notes that n rows from row (of the panel being drawn, which
// starts at hitBase) show kind idx.
func (f *frame) hitRows(row, n int, kind hitKind, idx int) {
	for r := f.hitBase + row; r < f.hitBase+row+n && r < len(f.hits); r++ {
		if r >= 0 {
			f.hits[r] = hit{kind, idx}
		}
	}
}

// handleMouse does what a click or the wheel means where it is.
func (m *Model) handleMouse(msg tea.MouseMsg) tea.Cmd {
	if m.prompt.Active() || m.procs.confirm.Active || msg.Action == tea.MouseActionRelease {
		return nil
	}
	wheel := 0
	switch keys := m.keys.Map; {
	case key.Matches(msg, keys.WheelUp.Binding):
		wheel = -1
	case key.Matches(msg, keys.WheelDown.Binding):
		wheel = +1
	case key.Matches(msg, keys.Click.Binding):
	default:
		return nil
	}
	press := func(t tea.KeyType) tea.Cmd { return m.handleKey(tea.KeyMsg{Type: t}) }
	if m.help.IsOpen() {
		m.help.Wheel(3 * wheel)
		return nil
	}
	var at hit
	if msg.Y >= 0 && msg.Y < len(m.drawn.hits) {
		at = m.drawn.hits[msg.Y]
	}
	if wheel != 0 {
		up, down := tea.KeyUp, tea.KeyDown
		switch {
		case at.kind == hitProc && !m.procs.Focus:
			m.procs.Scroll.By(wheel)
			return nil
		case at.kind == hitGPU || at.kind == hitHost || at.kind == hitProc || at.kind == hitHint && m.hint.sel > 0:
			// The selection (or an open hint) moves as the arrows move it.
		case at.kind == hitTime:
			up, down = tea.KeyLeft, tea.KeyRight
		default:
			return nil
		}
		if wheel < 0 {
			return press(up)
		}
		return press(down)
	}
	switch at.kind {
	case hitGPU:
		m.procs.Focus = false
		m.list.GPU = at.idx
		if m.info.MultiHost() && at.idx < len(m.list.Of) {
			m.list.Host = m.list.Of[at.idx]
		}
	case hitHost:
		m.list.Host = at.idx
		m.relayout()
	case hitHint:
		m.procs.Focus = false
		m.hint.open(at.idx + 1)
	case hitProc:
		spans := m.frame().procSpans()
		if at.idx < len(spans) {
			m.procs.Focus = true
			m.hint.open(0)
			m.procs.Sel, m.procs.HasSel = procs.IDOf(&spans[at.idx]), true
		}
	}
	return nil
}
