package ui

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
)

// The process table lists every process that held a GPU in the visible
// window (from the slower sampling tier's lists): those still holding one
// first, then those that let go or exited during the window, dimmed, with
// when they were last seen. `p` gives it the keyboard, as htop's list has
// it: the arrows choose a process, whose whole command line, start and
// container show under the table; s and I sort it; k sends SIGTERM
// (kill.go).

// procColumn is what the table can be sorted by.
type procColumn uint8

const (
	sortGPUMem procColumn = iota // the default, as nvitop's
	sortUtil
	sortCPU
	sortPID
	sortUser
	sortStart
	sortGPU
	procColumns
)

var procColumnNames = [...]string{"GPU MEM", "UTIL", "CPU", "PID", "USER", "START", "GPU"}

// descendingFirst says which columns sort biggest first, as htop's
// percentages do; the others (a PID, a name, a time) go smallest first.
func (c procColumn) descendingFirst() bool { return c <= sortCPU }

// procID names one process on one GPU across process lists.
type procID struct {
	gpu, pid int
	started  int64
}

func idOf(p *timeline.ProcessSpan) procID {
	id := procID{gpu: p.GPU, pid: p.PID}
	if !p.Started.IsZero() {
		id.started = p.Started.UnixNano()
	}
	return id
}

// procTable is the process table's state: the spans it shows (kept until
// the process lists of the window change), its order and the selection.
type procTable struct {
	focus   bool // the table has the arrows (p)
	filter  string
	sortBy  procColumn
	invert  bool
	sel     procID // the selected process, kept across refreshes
	hasSel  bool
	top     int // first row on screen
	visible int // rows of processes the last view drew

	// The spans of the window, sorted; first and last are the times of
	// the lists they came from.
	first, last time.Time
	order       struct {
		by     procColumn
		invert bool
	}
	spans []timeline.ProcessSpan
	host  string // in a session of several hosts, whose processes spans are
	// filtered is the filter spans were chosen by; total is how many there
	// were before it.
	filtered string
	total    int
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

// procGPU is a process's GPU in the table: its number on its host, or a
// MIG instance's parent and profile, "0/1g.10gb".
func (m *Model) procGPU(gpu int) string { return m.gpuNames.Column(gpu, m.gpuOnHost) }

// gpuPID is the GPU and PID columns as one: a GPU left, a PID right, in
// the 11 columns of "GPU     PID", or as many more as the longest MIG
// instance's name and a PID of 7 digits need ("0/1g.10gb   6021").
func (m *Model) gpuPID(gpu, pid string) string {
	w := 3 + 1 + 7
	for _, g := range m.info.GPUs {
		if g.IsMIGInstance() {
			w = max(w, len(m.procGPU(g.Index))+1+7)
		}
	}
	return gpu + strings.Repeat(" ", max(1, w-len(gpu)-len(pid))) + pid
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

// procSpans is the window's processes in the table's order, read again
// only when the window's process lists or the order change: a window of a
// day holds thousands of lists, and the screen is drawn every second.
func (m *Model) procSpans(f *frame) []timeline.ProcessSpan {
	t := &m.procs
	first, last := m.store.ProcessListsIn(f.from, f.at)
	host := m.procHost()
	if first.Equal(t.first) && last.Equal(t.last) && t.order.by == t.sortBy && t.order.invert == t.invert && t.host == host &&
		t.filtered == t.filter && t.spans != nil {
		return t.spans
	}
	t.first, t.last, t.host, t.filtered = first, last, host, t.filter
	t.order.by, t.order.invert = t.sortBy, t.invert
	t.spans = m.store.ProcessSpans(f.from, f.at)
	if m.info.MultiHost() {
		// PIDs are only meaningful on their own host: the table is the
		// selected host's.
		t.spans = slices.DeleteFunc(t.spans, func(p timeline.ProcessSpan) bool {
			g, ok := m.gpuByIndex(p.GPU)
			return !ok || g.Host != host
		})
	}
	t.total = len(t.spans)
	if t.filter != "" {
		t.spans = slices.DeleteFunc(t.spans, func(p timeline.ProcessSpan) bool { return !procMatches(&p, t.filter) })
	}
	if t.spans == nil {
		t.spans = []timeline.ProcessSpan{}
	}
	sortSpans(t.spans, t.sortBy, t.invert, m.gpuRank())
	return t.spans
}

// sortSpans puts the processes that still hold a GPU first, each group in
// the column's order (inverted with I), ties by GPU then PID. GPUs go in
// rank's order: the screen's, where MIG instances follow their parent.
func sortSpans(spans []timeline.ProcessSpan, by procColumn, invert bool, rank func(int) int) {
	desc := by.descendingFirst() != invert
	slices.SortStableFunc(spans, func(a, b timeline.ProcessSpan) int {
		if a.Running != b.Running {
			if a.Running {
				return -1
			}
			return 1
		}
		c := compareBy(&a, &b, by, rank)
		if desc {
			c = -c
		}
		if c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(rank(a.GPU), rank(b.GPU)), cmp.Compare(a.PID, b.PID))
	})
}

// compareBy orders two processes by a column; an unknown number counts as
// the smallest, so it comes last in a column sorted biggest first.
func compareBy(a, b *timeline.ProcessSpan, by procColumn, rank func(int) int) int {
	num := func(x, y float64) int {
		switch {
		case math.IsNaN(x) && math.IsNaN(y):
			return 0
		case math.IsNaN(x):
			return -1
		case math.IsNaN(y):
			return 1
		}
		return cmp.Compare(x, y)
	}
	switch by {
	case sortUtil:
		return num(a.Util, b.Util)
	case sortCPU:
		return num(a.CPU, b.CPU)
	case sortPID:
		return cmp.Compare(a.PID, b.PID)
	case sortUser:
		return strings.Compare(a.User, b.User)
	case sortStart:
		return a.Start().Compare(b.Start())
	case sortGPU:
		return cmp.Compare(rank(a.GPU), rank(b.GPU))
	}
	return num(a.GPUMem, b.GPUMem)
}

// selected is the index of the selected process in spans: the one chosen
// before if it is still listed, else the first.
func (t *procTable) selected(spans []timeline.ProcessSpan) int {
	if t.hasSel {
		for i := range spans {
			if idOf(&spans[i]) == t.sel {
				return i
			}
		}
	}
	return 0
}

// moveSel moves the selection by delta rows (clamped), or to the first
// (delta = math.MinInt) or last (math.MaxInt).
func (m *Model) moveSel(delta int) {
	spans := m.procSpans(m.frame())
	if len(spans) == 0 {
		return
	}
	i := m.procs.selected(spans)
	switch delta {
	case math.MinInt:
		i = 0
	case math.MaxInt:
		i = len(spans) - 1
	default:
		i = max(0, min(len(spans)-1, i+delta))
	}
	m.procs.sel, m.procs.hasSel = idOf(&spans[i]), true
}

// selectedProcess is the process the arrows chose, if the table has the
// keyboard and lists any.
func (m *Model) selectedProcess() (timeline.ProcessSpan, bool) {
	if !m.procs.focus {
		return timeline.ProcessSpan{}, false
	}
	spans := m.procSpans(m.frame())
	if len(spans) == 0 {
		return timeline.ProcessSpan{}, false
	}
	return spans[m.procs.selected(spans)], true
}

// procFocusRows is the room of the table while it has the keyboard: the
// detail pane's and its own, less the row a replay gives its transport.
func (m *Model) procFocusRows() int {
	rows := m.lay.detail + m.lay.procs
	if !m.play.Grows {
		rows--
	}
	return rows
}

// procColumnsFor says which optional columns fit: RSS from 100 columns,
// the start and end times from 120.
func procColumnsFor(width int) (rss, times bool) { return width >= 100, width >= 120 }

// whereWidth is the WHERE column: "ctr " and a 12-digit id.
const whereWidth = 16

// viewProcs is the process table in rows rows: the table alone, or, while
// it has the keyboard, with the selected process's details under it.
func (m *Model) viewProcs(f *frame, rows int) []string {
	if rows <= 0 {
		return nil
	}
	spans := m.procSpans(f)
	_, at := m.store.ProcessesAt(f.at)
	head := m.newLine(m.width)
	head.Add(" PROCESSES", m.theme.Title)
	if host := m.procHost(); host != "" {
		head.Add(" on "+host, m.theme.Title)
	}
	if !at.IsZero() {
		head.Add("  as of "+draw.Clock(at, false), m.theme.Dim)
	}
	order := "▼"
	if m.ascii {
		order = "v"
	}
	if m.procs.sortBy.descendingFirst() == m.procs.invert {
		order = "▲"
		if m.ascii {
			order = "^"
		}
	}
	head.Add("  by "+procColumnNames[m.procs.sortBy]+" "+order, m.theme.Dim)
	if m.procs.filter != "" {
		head.AddText(fmt.Sprintf("  filter %q: %d of %d", m.procs.filter, len(spans), m.procs.total), m.theme.Warn)
	}
	if n := exitedCount(spans); n > 0 {
		head.Add(fmt.Sprintf("  %d ended in the window", n), m.theme.Dim)
	}
	rss, times := procColumnsFor(m.width)
	cols := m.newLine(m.width)
	title := fmt.Sprintf(" %s %-8s %8s %5s %5s", m.gpuPID("GPU", "PID"), "USER", "GPU MEM", "UTIL", "CPU")
	if rss {
		title += fmt.Sprintf(" %6s", "RSS")
	}
	if times {
		title += fmt.Sprintf(" %-8s %-8s", "START", "END")
	}
	title += fmt.Sprintf(" %-*s %s", whereWidth, "WHERE", "COMMAND")
	cols.Add(title, m.theme.Dim)
	out := []string{head.String(), cols.String()}
	if len(spans) == 0 {
		none := "   no GPU processes seen"
		if m.procs.filter != "" {
			none = "   no process matches the filter (/ to change it, empty for all)"
		}
		return draw.PadBlank(append(out, none), rows)
	}

	var detail []string
	sel := -1
	if m.procs.focus {
		sel = m.procs.selected(spans)
		// The chosen process in full, leaving the table one row at least.
		detail = m.procDetail(&spans[sel])
		detail = detail[:max(0, min(len(detail), rows-len(out)-1))]
	}
	room := max(1, rows-len(out)-len(detail))
	if m.procs.focus {
		// Scroll as htop does: the selection stays on screen, the list
		// moves only when it would leave it.
		if sel < m.procs.top {
			m.procs.top = sel
		}
		if sel >= m.procs.top+room {
			m.procs.top = sel - room + 1
		}
	}
	m.procs.top = max(0, min(m.procs.top, len(spans)-room))
	m.procs.visible = room
	for i := m.procs.top; i < len(spans) && i < m.procs.top+room; i++ {
		m.hitRows(len(out), 1, hitProc, i)
		out = append(out, m.procRow(&spans[i], i == sel, rss, times))
	}
	if len(detail) > 0 {
		out = append(draw.PadBlank(out, rows-len(detail)), detail...)
	}
	return draw.PadBlank(out, rows)
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
func (m *Model) procRow(p *timeline.ProcessSpan, selected, rss, times bool) string {
	ln := m.newLine(m.width)
	k := draw.Ink{}
	switch {
	case selected:
		k = m.theme.Sel
	case !p.Running:
		k = m.theme.Dim
	case p.InJob:
		k = m.theme.Bold
	}
	util, cpu := draw.Pct(p.Util), draw.Pct(p.CPU)
	if !p.Running {
		// Its last reading is from before it ended: not a current number.
		util, cpu = "-", "-"
	}
	mark := " "
	if selected {
		mark = "▸"
		if m.ascii {
			mark = ">"
		}
	}
	s := fmt.Sprintf("%s%s %-8s %8s %5s %5s", mark, m.gpuPID(m.procGPU(p.GPU), strconv.Itoa(p.PID)), m.fit.FitWords(orNA(p.User), 8, false), draw.Bytes(p.GPUMem), util, cpu)
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
	s += fmt.Sprintf(" %-*s ", whereWidth, m.fit.FitWords(orDash(p.Workload.Short()), whereWidth, false))
	ln.Add(s, k)
	cmdInk := m.theme.Dim
	if selected {
		cmdInk = m.theme.Sel
	}
	ln.AddText(orNA(p.Command), cmdInk)
	return ln.String()
}

// maxCommandRows bounds the chosen process's command line under the table
// (the process tier keeps 256 bytes of it).
const maxCommandRows = 4

// procDetail is the chosen process in full: who and when, where it runs,
// then its whole command line, wrapped.
func (m *Model) procDetail(p *timeline.ProcessSpan) []string {
	var b strings.Builder
	fmt.Fprintf(&b, " PID %d on %s", p.PID, m.gpuNames.One(p.GPU))
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
	info := b.String()
	if m.ascii {
		info = strings.ReplaceAll(info, "·", "-")
	}
	out := []string{m.newLine(m.width).AddText(info, m.theme.Bold).String()}
	// Where it runs gets a line of its own: a pod's UID and container id
	// alone take 80 columns.
	if w := p.Workload.String(); w != "" {
		out = append(out, m.newLine(m.width).Add("   ", draw.Ink{}).AddText(w, m.theme.Bold).String())
	}
	cmd := m.fit.WrapWords(draw.OneLine(orNA(p.Command)), m.width-3, maxCommandRows)
	for _, l := range cmd[:min(len(cmd), maxCommandRows)] {
		out = append(out, m.newLine(m.width).Add("   ", draw.Ink{}).AddText(l, draw.Ink{}).String())
	}
	return out
}

func orNA(s string) string {
	if s == "" {
		return draw.NA
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
