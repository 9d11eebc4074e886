package ui

import (
	"time"

	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/ui/hints"
	"github.com/gputop-dev/gputop/ui/keymap"
	"github.com/gputop-dev/gputop/ui/scroll"
)

// hintPanel is the hints panel over the hints listed at the cursor.
func (m *Model) hintPanel(at time.Time) hints.Panel {
	return hints.Panel{Pen: m.pen(), Hints: m.an.shown, Names: m.gpuNames, At: at, Sel: m.hint.sel}
}

// viewHints is the hints panel (hints.Panel.View), each hint's rows noted
// for the mouse.
func (f *frame) viewHints(rows int) []string {
	judging := f.store.Len() > 0 && f.at.Sub(f.store.First()) < analysis.ProvisionalMin
	p := f.hintPanel(f.at)
	return p.View(rows, judging, func(row, i int) { f.hitRows(row, 1, hitHint, i) })
}

// hintView is the hint opened in full and how far its detail is
// scrolled.
type hintView struct {
	// sel is the hint whose evidence the detail pane shows: 0 for none,
	// i+1 for the i-th hint listed.
	sel int
	at  scroll.Offset
	// overflow is how many of its lines do not fit in the pane, as settle
	// last found: how far it can scroll.
	overflow int
}

// open shows the sel-th hint (i+1 for the i-th listed, 0 for none) from
// its first line.
func (h *hintView) open(sel int) { h.sel = sel; h.at.Home() }

// viewHintDetail shows the selected hint in full where the detail graph
// goes, from its scroll; the graph where no hint is open.
func (f *frame) viewHintDetail(rows int) []string {
	p := f.hintPanel(f.at)
	lines := p.Detail()
	if lines == nil {
		return f.viewDetail(rows)
	}
	return p.DetailView(lines, rows, f.hint.at.Top(), f.keys.HintUp.Help().Key)
}

// hintActions are h, which opens the hints one by one, esc, which closes
// the one open, and the arrows that scroll one longer than its pane.
func (m *Model) hintActions(k *keymap.Map) []keymap.Action {
	s := &m.keys.facts
	scrolls := func() bool { return s.hintScrolls }
	return []keymap.Action{
		{Binding: &k.HintUp, On: scrolls, Do: keyDo(func() { m.hint.at.By(-1) })},
		{Binding: &k.HintDown, On: scrolls, Do: keyDo(func() { m.hint.at.By(+1) })},
		{Binding: &k.Hint, On: func() bool { return s.hints > 0 }, Do: keyDo(func() {
			m.procs.Focus = false
			m.hint.open((m.hint.sel + 1) % (len(m.an.shown) + 1))
		}), Does: does(func() bool { return s.hintSel }, "next", "hint")},
		{Binding: &k.CloseHint, On: func() bool { return s.hintOpen && !s.focus },
			Do: keyDo(func() { m.hint.open(0) })},
	}
}
