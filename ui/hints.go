package ui

import (
	"time"

	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/ui/hints"
	"github.com/gputop-dev/gputop/ui/keymap"
)

// hintPanel is the hints panel over the hints listed at the cursor.
func (m *Model) hintPanel(at time.Time) hints.Panel {
	return hints.Panel{Pen: m.pen(), Hints: m.an.shown, Names: m.gpuNames, At: at, Sel: m.hintSel}
}

// viewHints is the hints panel (hints.Panel.View), each hint's rows noted
// for the mouse.
func (m *Model) viewHints(f *frame, rows int) []string {
	judging := m.store.Len() > 0 && f.at.Sub(m.store.First()) < analysis.ProvisionalMin
	p := m.hintPanel(f.at)
	return p.View(rows, judging, func(row, i int) { m.hitRows(row, 1, hitHint, i) })
}

// viewHintDetail shows the selected hint in full where the detail graph
// goes, scrolled to hintTop; the graph where no hint is open.
func (m *Model) viewHintDetail(f *frame, rows int) []string {
	p := m.hintPanel(f.at)
	lines := p.Detail()
	if lines == nil {
		return m.viewDetail(f, rows)
	}
	return p.DetailView(lines, rows, m.hintTop, m.keys.HintUp.Help().Key)
}

// hintDetailOverflow is how many lines of the selected hint's detail do
// not fit in the detail pane: how far it can scroll.
func (m *Model) hintDetailOverflow() int {
	return max(0, len(m.hintDetail())-max(1, m.hintRows()-1))
}

// hintDetail is the opened hint's lines at the cursor.
func (m *Model) hintDetail() []hints.Inked {
	p := m.hintPanel(m.play.Cursor)
	return p.Detail()
}

// hintRows is the room for the open hint: the hints panel's and the
// detail pane's, less the row a replay gives to its transport.
func (m *Model) hintRows() int {
	rows := m.lay.Hints + m.lay.Detail
	if !m.play.Grows {
		rows--
	}
	return rows
}

// hintActions are h, which opens the hints one by one, esc, which closes
// the one open, and the arrows that scroll one longer than its pane.
func hintActions(k *keymap.Map) []action {
	scrolls := func(s *keyFacts) bool { return s.hintScrolls }
	return []action{
		{b: &k.HintUp, on: scrolls, do: keyDo(func(m *Model) { m.hintTop = max(0, m.hintTop-1) })},
		{b: &k.HintDown, on: scrolls, do: keyDo(func(m *Model) { m.hintTop = min(m.hintDetailOverflow(), m.hintTop+1) })},
		{b: &k.Hint, on: func(s *keyFacts) bool { return s.hints > 0 }, do: keyDo(func(m *Model) {
			m.procs.Focus = false
			m.hintSel, m.hintTop = m.hintSel+1, 0
			if m.hintSel > len(m.an.shown) {
				m.hintSel = 0
			}
		}), does: func(s *keyFacts) string {
			if s.hintSel {
				return "next"
			}
			return "hint"
		}},
		{b: &k.CloseHint, on: func(s *keyFacts) bool { return s.hintOpen && !s.focus },
			do: keyDo(func(m *Model) { m.hintSel, m.hintTop = 0, 0 })},
	}
}
