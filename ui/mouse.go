package ui

import (
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

// hitAt is what the row under the pointer showed in the last frame.
func (d *drawn) hitAt(y int) hit {
	if y >= 0 && y < len(d.hits) {
		return d.hits[y]
	}
	return hit{}
}

// clicks is what a click does on each kind of row: selects the GPU or host
// under it, opens the hint, chooses the process (the table takes the
// keys). A row of another kind does nothing.
var clicks = [...]func(m *Model, idx int){
	hitGPU: func(m *Model, idx int) {
		m.procs.Focus = false
		m.list.GPU = idx
		if m.info.MultiHost() && idx < len(m.list.Of) {
			m.list.Host = m.list.Of[idx]
		}
	},
	hitHost: func(m *Model, idx int) { m.list.Host = idx; m.relayout() },
	hitHint: func(m *Model, idx int) { m.procs.Focus = false; m.hint.open(idx + 1) },
	hitProc: func(m *Model, idx int) {
		if spans := m.frame().procSpans(); idx < len(spans) {
			m.procs.Focus = true
			m.hint.open(0)
			m.procs.Sel, m.procs.HasSel = procs.IDOf(&spans[idx]), true
		}
	},
}

// clickAt is the click binding's handler (sessionActions).
func (m *Model) clickAt(msg tea.MouseMsg) tea.Cmd {
	if at := m.drawn.hitAt(msg.Y); int(at.kind) < len(clicks) && clicks[at.kind] != nil {
		clicks[at.kind](m, at.idx)
	}
	return nil
}

// wheelBy is the wheel's handler, dir -1 up and +1 down: over the GPUs, the
// hosts, a process table with the keys or an open hint it moves as the
// arrows do, over one without the keys it scrolls the table, and over the
// graph and the bands it scrolls time as ← and → do.
func (m *Model) wheelBy(dir int) func(tea.MouseMsg) tea.Cmd {
	return func(msg tea.MouseMsg) tea.Cmd {
		at := m.drawn.hitAt(msg.Y)
		keys := [2]tea.KeyType{tea.KeyUp, tea.KeyDown}
		switch {
		case at.kind == hitProc && !m.procs.Focus:
			m.procs.Scroll.By(dir)
			return nil
		case at.kind == hitTime:
			keys = [2]tea.KeyType{tea.KeyLeft, tea.KeyRight}
		case at.kind != hitGPU && at.kind != hitHost && at.kind != hitProc && (at.kind != hitHint || m.hint.sel == 0):
			return nil
		}
		return m.handleKey(tea.KeyMsg{Type: keys[(dir+1)/2]})
	}
}
