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
// its state is the Model's (m.procs), what it asks of the session is here.

// procSpans is the window's processes in the table's order
// (procs.Table.Spans).
func (m *Model) procSpans(f *frame) []timeline.ProcessSpan {
	host := m.procHost()
	var keep func(*timeline.ProcessSpan) bool
	if m.info.MultiHost() {
		keep = func(p *timeline.ProcessSpan) bool {
			g, ok := m.gpuByIndex(p.GPU)
			return ok && g.Host == host
		}
	}
	return m.procs.Spans(m.store, f.from, f.at, host, keep, m.gpuRank)
}

// viewProcs is the process table in rows rows (procs.Table.View), each
// process's row noted for the mouse.
func (m *Model) viewProcs(f *frame, rows int) []string {
	if rows <= 0 {
		return nil
	}
	spans := m.procSpans(f)
	_, at := m.store.ProcessesAt(f.at)
	gpus := procs.GPUs{Names: m.gpuNames, OnHost: m.gpuOnHost, Width: m.gpuPIDWidth()}
	return m.procs.View(m.pen(), spans, rows, at, m.procHost(), gpus, func(row, i int) { m.hitRows(row, 1, hitProc, i) })
}

// gpuPIDWidth is the width of the process table's GPU and PID columns as
// one: the 11 of "GPU     PID", or as many more as the longest MIG
// instance's name and a PID of 7 digits need ("0/1g.10gb   6021").
func (m *Model) gpuPIDWidth() int {
	w := 3 + 1 + 7
	for _, g := range m.info.GPUs {
		if g.IsMIGInstance() {
			w = max(w, len(m.gpuNames.Column(g.Index, m.gpuOnHost))+1+7)
		}
	}
	return w
}

// procHost is the host whose processes the table shows in a session of
// several: the selected one. "" in a session of one.
func (m *Model) procHost() string {
	if !m.info.MultiHost() || m.hosts.sel < 0 || m.hosts.sel >= len(m.hosts.names) {
		return ""
	}
	return m.hosts.names[m.hosts.sel]
}

// gpuOnHost is a GPU's index as its own host numbers it, which is how a
// process table of one host names GPUs.
func (m *Model) gpuOnHost(gpu int) int {
	if g, ok := m.gpuByIndex(gpu); ok {
		return g.OnHost()
	}
	return gpu
}

// gpuRank orders GPUs as the GPU list shows them: by index, but a MIG
// instance right after its parent.
func (m *Model) gpuRank() func(int) int {
	if !slices.ContainsFunc(m.info.GPUs, timeline.GPUInfo.IsMIGInstance) {
		return func(i int) int { return i }
	}
	at := make(map[int]int, len(m.info.GPUs))
	for pos, g := range m.info.GPUs {
		at[g.Index] = pos
	}
	return func(i int) int {
		if pos, ok := at[i]; ok {
			return pos
		}
		return len(at) + i // a GPU not described: after the others
	}
}

// gpuByIndex is the description of the GPU with session-wide index idx.
func (m *Model) gpuByIndex(idx int) (timeline.GPUInfo, bool) {
	if idx >= 0 && idx < len(m.info.GPUs) && m.info.GPUs[idx].Index == idx {
		return m.info.GPUs[idx], true
	}
	for _, g := range m.info.GPUs {
		if g.Index == idx {
			return g, true
		}
	}
	return timeline.GPUInfo{}, false
}

// moveSel moves the selection by delta rows (clamped), or to the first
// (delta = math.MinInt) or last (math.MaxInt).
func (m *Model) moveSel(delta int) {
	spans := m.procSpans(m.frame())
	if len(spans) == 0 {
		return
	}
	i := m.procs.Selected(spans)
	switch delta {
	case math.MinInt:
		i = 0
	case math.MaxInt:
		i = len(spans) - 1
	default:
		i = max(0, min(len(spans)-1, i+delta))
	}
	m.procs.Sel, m.procs.HasSel = procs.IDOf(&spans[i]), true
}

// selectedProcess is the process the arrows chose, if the table has the
// keyboard and lists any.
func (m *Model) selectedProcess() (timeline.ProcessSpan, bool) {
	if !m.procs.Focus {
		return timeline.ProcessSpan{}, false
	}
	spans := m.procSpans(m.frame())
	if len(spans) == 0 {
		return timeline.ProcessSpan{}, false
	}
	return spans[m.procs.Selected(spans)], true
}

// procFocusRows is the room of the table while it has the keyboard: the
// detail pane's and its own, less the row a replay gives its transport.
func (m *Model) procFocusRows() int {
	rows := m.lay.Detail + m.lay.Procs
	if !m.play.Grows {
		rows--
	}
	return rows
}

// procActions are the process table's keys, as htop's: p gives it the
// arrows (and esc gives them back), which then choose a process; s and I
// sort it, / filters it, k signals the chosen process.
func procActions(k *keymap.Map) []action {
	focus := func(s *keyFacts) bool { return s.focus }
	move := func(delta func(m *Model) int) func(*Model, tea.KeyMsg) tea.Cmd {
		return keyDo(func(m *Model) { m.moveSel(delta(m)) })
	}
	by := func(n int) func(*Model) int { return func(*Model) int { return n } }
	page := func(m *Model) int { return max(1, m.procs.Visible) }
	shown := func(s *keyFacts) bool { return s.procsShown }
	return []action{
		{b: &k.ProcUp, on: focus, do: move(by(-1))},
		{b: &k.ProcDown, on: focus, do: move(by(+1))},
		{b: &k.ProcPageUp, on: focus, do: move(func(m *Model) int { return -page(m) })},
		{b: &k.ProcPageDown, on: focus, do: move(page)},
		{b: &k.ProcFirst, on: focus, do: move(by(math.MinInt))},
		{b: &k.ProcLast, on: focus, do: move(by(math.MaxInt))},
		{b: &k.Procs, on: func(s *keyFacts) bool { return s.procLists && s.procRoom }, do: keyDo(func(m *Model) {
			m.procs.Focus = !m.procs.Focus
			m.hintSel, m.hintTop = 0, 0
		})},
		{b: &k.LeaveProcs, on: focus, do: keyDo(func(m *Model) { m.procs.Focus = false })},
		{b: &k.ProcFilter, on: focus, do: keyDo((*Model).filterKey)},
		{b: &k.SortNext, on: shown, do: keyDo(func(m *Model) {
			m.procs.SortBy = (m.procs.SortBy + 1) % procs.Columns
			m.note = "processes by " + procs.ColumnNames[m.procs.SortBy]
		})},
		{b: &k.SortInvert, on: shown, do: keyDo(func(m *Model) { m.procs.Invert = !m.procs.Invert })},
		{b: &k.Kill, on: func(s *keyFacts) bool { return s.focus && s.chosen && s.canKill }, do: keyDo((*Model).killKey)},
	}
}
