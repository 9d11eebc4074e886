package ui

import (
	"math"
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/keymap"
	"github.com/gputop-dev/gputop/ui/procs"
)

// The process table (ui/procs) lists the processes of the selected host;
// what it asks of the session is here.

// procPanel is the process table's state (procs.Table: focus, filter,
// order, selection, scroll) and k's: the Killer that signals, whether
// --readonly turned it off, and the question it asks first (kill.go).
type procPanel struct {
	procs.Table
	killer   Killer
	readonly bool
	confirm  procs.Question
}

// procSpans is the window's processes in the table's order
// (procs.Table.Spans).
func (f *frame) procSpans() []timeline.ProcessSpan {
	host := f.hostName()
	var keep func(*timeline.ProcessSpan) bool
	if f.info.MultiHost() {
		keep = func(p *timeline.ProcessSpan) bool {
			pos := f.gpuPosition(p.GPU)
			return pos >= 0 && f.info.GPUs[pos].Host == host
		}
	}
	return f.procs.Spans(f.store, f.from, f.at, host, keep, f.gpuRank)
}

// viewProcs is the process table in rows rows (procs.Table.View), each
// process's row noted for the mouse.
func (f *frame) viewProcs(rows int) []string {
	if rows <= 0 {
		return nil
	}
	spans := f.procSpans()
	_, at := f.store.ProcessesAt(f.at)
	return f.procs.View(f.pen(), spans, rows, at, f.hostName(), f.procGPUs(), func(row, i int) { f.hitRows(row, 1, hitProc, i) })
}

// procGPUs is how the table names the session's GPUs.
func (s *session) procGPUs() procs.GPUs {
	return procs.GPUs{Names: s.gpuNames, OnHost: s.gpuOnHost, Width: s.gpuPIDWidth()}
}

// procRows is the rows view gives the process table now, as it places the
// panels (0 for none).
func (m *Model) procRows() int {
	if m.width == 0 || m.height == 0 || !m.lay.Fits || m.help.IsOpen() {
		return 0
	}
	_, inPane := m.sharedPane()
	switch {
	case m.procs.Focus:
		return m.paneRows(m.lay.Procs)
	case m.hint.sel > 0:
		return m.lay.Procs
	case inPane:
		rows := m.lay.Detail
		if m.paneHealth(m.play.Cursor) != "" {
			rows--
		}
		return rows
	}
	return m.lay.Procs
}

// gpuPIDWidth is the width of the process table's GPU and PID columns as
// one: the 11 of "GPU     PID", or as many more as the longest MIG
// instance's name and a PID of 7 digits need ("0/1g.10gb   6021").
func (s *session) gpuPIDWidth() int {
	w := 3 + 1 + 7
	for _, g := range s.info.GPUs {
		if g.IsMIGInstance() {
			w = max(w, len(s.gpuNames.Column(g.Index, s.gpuOnHost))+1+7)
		}
	}
	return w
}

// gpuOnHost is a GPU's index as its own host numbers it, which is how a
// process table of one host names GPUs.
func (s *session) gpuOnHost(gpu int) int {
	if pos := s.gpuPosition(gpu); pos >= 0 {
		return s.info.GPUs[pos].OnHost()
	}
	return gpu
}

// gpuRank orders GPUs as the GPU list shows them: by index, but a MIG
// instance right after its parent.
func (s *session) gpuRank() func(int) int {
	if !slices.ContainsFunc(s.info.GPUs, timeline.GPUInfo.IsMIGInstance) {
		return func(i int) int { return i }
	}
	at := make(map[int]int, len(s.info.GPUs))
	for pos, g := range s.info.GPUs {
		at[g.Index] = pos
	}
	return func(i int) int {
		if pos, ok := at[i]; ok {
			return pos
		}
		return len(at) + i // a GPU not described: after the others
	}
}

// paneRows is the room of a panel that takes the detail pane's rows as
// well as its own (own of them), less the row a replay gives its
// transport: the open hint's (with the hints panel's), the process
// table's while it has the keyboard.
func (m *Model) paneRows(own int) int {
	rows := own + m.lay.Detail
	if !m.play.Grows {
		rows--
	}
	return rows
}

// procActions are the process table's keys, as htop's: p gives it the
// arrows (and esc gives them back), which then choose a process; s and I
// sort it, / filters it, k signals the chosen process.
func (m *Model) procActions(k *keymap.Map) []keymap.Action {
	s := &m.keys.facts
	focus := func() bool { return s.focus }
	move := func(delta func() int) func(tea.KeyMsg) tea.Cmd {
		return keyDo(func() { m.procs.Move(m.frame().procSpans(), delta()) })
	}
	by := func(n int) func() int { return func() int { return n } }
	page := func() int { return max(1, m.procs.Visible) }
	shown := func() bool { return s.procsShown }
	return []keymap.Action{
		{Binding: &k.ProcUp, On: focus, Do: move(by(-1))},
		{Binding: &k.ProcDown, On: focus, Do: move(by(+1))},
		{Binding: &k.ProcPageUp, On: focus, Do: move(func() int { return -page() })},
		{Binding: &k.ProcPageDown, On: focus, Do: move(page)},
		{Binding: &k.ProcFirst, On: focus, Do: move(by(math.MinInt))},
		{Binding: &k.ProcLast, On: focus, Do: move(by(math.MaxInt))},
		{Binding: &k.Procs, On: func() bool { return s.procLists && s.procRoom }, Do: keyDo(func() {
			m.procs.Focus = !m.procs.Focus
			m.hint.open(0)
		})},
		{Binding: &k.LeaveProcs, On: focus, Do: keyDo(func() { m.procs.Focus = false })},
		{Binding: &k.ProcFilter, On: focus, Do: keyDo(m.filterKey)},
		{Binding: &k.SortNext, On: shown, Do: keyDo(func() {
			m.procs.SortBy = (m.procs.SortBy + 1) % procs.Columns
			m.note = "processes by " + procs.ColumnNames[m.procs.SortBy]
		})},
		{Binding: &k.SortInvert, On: shown, Do: keyDo(func() { m.procs.Invert = !m.procs.Invert })},
		{Binding: &k.Kill, On: func() bool { return s.focus && s.chosen && s.canKill }, Do: keyDo(m.killKey)},
	}
}
