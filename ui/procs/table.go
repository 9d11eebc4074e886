package procs

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/scroll"
)

// Column is what the table can be sorted by.
type Column uint8

const (
	ByGPUMem Column = iota // the default, as nvitop's
	ByUtil
	ByCPU
	ByPID
	ByUser
	ByStart
	ByGPU
	Columns
)

// ColumnNames are the columns as the table and the footer write them.
var ColumnNames = [...]string{"GPU MEM", "UTIL", "CPU", "PID", "USER", "START", "GPU"}

// DescendingFirst says which columns sort biggest first, as htop's
// percentages do; the others (a PID, a name, a time) go smallest first.
func (c Column) DescendingFirst() bool { return c <= ByCPU }

// ID names one process on one GPU across process lists.
type ID struct {
	gpu, pid int
	started  int64
}

// IDOf is the ID of p.
func IDOf(p *timeline.ProcessSpan) ID {
	id := ID{gpu: p.GPU, pid: p.PID}
	if !p.Started.IsZero() {
		id.started = p.Started.UnixNano()
	}
	return id
}

// Table is the process table's state: the spans it shows (kept until
// the process lists of the window change), its order and the selection.
type Table struct {
	Focus   bool // the table has the arrows (p)
	Filter  string
	SortBy  Column
	Invert  bool
	Sel     ID // the selected process, kept across refreshes
	HasSel  bool
	Scroll  scroll.Offset // the first process on screen
	Visible int           // rows the table has for processes (Place)

	// The spans of the window, sorted; first and last are the times of
	// the lists they came from.
	first, last time.Time
	order       struct {
		by     Column
		invert bool
	}
	spans []timeline.ProcessSpan
	host  string // in a session of several hosts, whose processes spans are
	// filtered is the filter spans were chosen by; total is how many there
	// were before it.
	filtered string
	total    int
}

// Spans is the window's processes (process lists from from to at) in
// the table's order, read again
// only when the window's process lists or the order change: a window of a
// day holds thousands of lists, and the screen is drawn every second.
//
// In a session of several hosts, host is the one whose processes the
// table lists and keep says whether a process is on it (nil in a session
// of one). rank orders GPUs as the GPU list shows them; it is asked only
// when the spans are read again.
func (t *Table) Spans(st *timeline.Store, from, at time.Time, host string, keep func(*timeline.ProcessSpan) bool,
	rank func() func(int) int) []timeline.ProcessSpan {
	first, last := st.ProcessListsIn(from, at)
	if first.Equal(t.first) && last.Equal(t.last) && t.order.by == t.SortBy && t.order.invert == t.Invert && t.host == host &&
		t.filtered == t.Filter && t.spans != nil {
		return t.spans
	}
	t.first, t.last, t.host, t.filtered = first, last, host, t.Filter
	t.order.by, t.order.invert = t.SortBy, t.Invert
	t.spans = st.ProcessSpans(from, at)
	if keep != nil {
		// PIDs are only meaningful on their own host: the table is the
		// selected host's.
		t.spans = slices.DeleteFunc(t.spans, func(p timeline.ProcessSpan) bool { return !keep(&p) })
	}
	t.total = len(t.spans)
	if t.Filter != "" {
		t.spans = slices.DeleteFunc(t.spans, func(p timeline.ProcessSpan) bool { return !matches(&p, t.Filter) })
	}
	if t.spans == nil {
		t.spans = []timeline.ProcessSpan{}
	}
	sortSpans(t.spans, t.SortBy, t.Invert, rank())
	return t.spans
}

// sortSpans puts the processes that still hold a GPU first, each group in
// the column's order (inverted with I), ties by GPU then PID. GPUs go in
// rank's order: the screen's, where MIG instances follow their parent.
func sortSpans(spans []timeline.ProcessSpan, by Column, invert bool, rank func(int) int) {
	desc := by.DescendingFirst() != invert
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

// compareBy orders two processes by a column; an unknown number (NaN)
// counts as the smallest (cmp.Compare), so it comes last in a column
// sorted biggest first.
func compareBy(a, b *timeline.ProcessSpan, by Column, rank func(int) int) int {
	switch by {
	case ByUtil:
		return cmp.Compare(a.Util, b.Util)
	case ByCPU:
		return cmp.Compare(a.CPU, b.CPU)
	case ByPID:
		return cmp.Compare(a.PID, b.PID)
	case ByUser:
		return strings.Compare(a.User, b.User)
	case ByStart:
		return a.Start().Compare(b.Start())
	case ByGPU:
		return cmp.Compare(rank(a.GPU), rank(b.GPU))
	}
	return cmp.Compare(a.GPUMem, b.GPUMem)
}

// Selected is the index of the selected process in spans: the one chosen
// before if it is still listed, else the first.
func (t *Table) Selected(spans []timeline.ProcessSpan) int {
	if t.HasSel {
		for i := range spans {
			if IDOf(&spans[i]) == t.Sel {
				return i
			}
		}
	}
	return 0
}

// Move moves the selection over spans (Spans) by delta rows, clamped, or
// to the first (delta = math.MinInt) or last (math.MaxInt).
func (t *Table) Move(spans []timeline.ProcessSpan, delta int) {
	if len(spans) == 0 {
		return
	}
	i := t.Selected(spans)
	switch delta {
	case math.MinInt:
		i = 0
	case math.MaxInt:
		i = len(spans) - 1
	default:
		i = max(0, min(len(spans)-1, i+delta))
	}
	t.Sel, t.HasSel = IDOf(&spans[i]), true
}

// Chosen is the process the arrows chose among spans, if the table has
// the keys and lists any.
func (t *Table) Chosen(spans []timeline.ProcessSpan) (timeline.ProcessSpan, bool) {
	if !t.Focus || len(spans) == 0 {
		return timeline.ProcessSpan{}, false
	}
	return spans[t.Selected(spans)], true
}

// matches says whether a process matches the filter.
func matches(p *timeline.ProcessSpan, filter string) bool {
	f := strings.ToLower(filter)
	return strings.Contains(strings.ToLower(p.Command), f) || strings.Contains(strings.ToLower(p.User), f) ||
		strings.Contains(strconv.Itoa(p.PID), f)
}
