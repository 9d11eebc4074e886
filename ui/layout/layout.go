package layout

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/gputop-dev/gputop/timeline"
)

// Minimum terminal: the width of one compact GPU row with a useful
// sparkline, and the height of the header, a GPU list of two GPUs under its
// summary, the phase band, the host, a hint and the footer. It does not grow
// with the GPUs: where they do not fit, the list scrolls.
const (
	minWidth  = 60
	minHeight = 12
)

// MinSize is the smallest terminal the screen draws in. Below it the screen
// says so and waits to be enlarged (or q), instead of drawing.
func MinSize() (w, h int) {
	return minWidth, minHeight
}

// Layout is where everything goes for one terminal size, computed on resize.
type Layout struct {
	Fits    bool
	GPURows int // lines per GPU block: 1, 2 or 3
	// gpusShown is how many GPUs the list has room for; where that is fewer
	// than there are, the list scrolls under a pinned summary line.
	GPUsShown int
	Summary   int // the summary line over a scrolling list: 1, or 0 for none
	Label     int // width of the label column ("GPU0 ")
	Spark     int // sparkline columns, the same for every row that has one
	Values    int // width of the values right of the sparklines
	ShowSM    bool
	CoreRows  int // rows of per-core bars under the CPU line
	Phase     int // the phase band: 1, or 0 for none
	HintBand  int // the row of hint spans under it: 1, or 0 for none
	Hints     int // rows of the hints panel
	Detail    int // rows of the detail pane (title, plot, time axis); 0 for none
	Procs     int // rows of the process table (with its header); 0 for none
	BlankRows int // spare rows at the bottom
	Job       int // the job's progress row under the GPUs: 1, or 0 for none (job.go)
	Alloc     int // rows of the allocations panel under the hints (ui/alloc); 0 for none
}

// NoGPURows is the room for saying why there are no GPUs.
const NoGPURows = 3

// Heights of the parts that are always there.
const (
	HeaderRows    = 1
	FooterRows    = 1
	MinDetailRows = 7 // title, 3 plot rows, axis and labels, a blank
)

// Compute lays the screen out for w×h; oneRow keeps every GPU to one
// row (layout = "compact" in the settings file).
func Compute(w, h int, info timeline.SourceInfo, cores int, oneRow bool) Layout {
	n := len(info.GPUs)
	minW, minH := MinSize()
	l := Layout{Fits: w >= minW && h >= minH}
	if !l.Fits {
		return l
	}
	l.ShowSM = AnyGPM(info)
	l.Label = len(fmt.Sprintf(" GPU%d ", max(0, n-1)))
	for _, g := range info.GPUs {
		if g.IsMIGInstance() {
			l.Label = max(l.Label, utf8.RuneCountInString(" "+MIGLabel(g, false)+" "))
		}
	}
	// Per-core bars take one column per core after the label; a second row
	// when there are more cores than columns.
	l.CoreRows = 1
	if cores > w-l.Label {
		l.CoreRows = 2
	}
	free := h - HeaderRows - FooterRows - 1 - l.CoreRows
	// The phase band and the hints panel come before the detail graph: on
	// a short screen, what the job is doing and what holds it back matter
	// more than a bigger plot.
	// A hint takes the lines its evidence needs, so the panel has room for
	// one in full and a row naming the others: three lines of evidence at
	// 80 columns, two at 120 (a screen 40 rows tall is seldom narrow, and
	// its GPUs keep their third row); four from 50 rows.
	l.Phase = 1
	l.Hints = 4
	if h >= 40 {
		l.HintBand = 1
		l.Hints = 3
	}
	if h >= 50 {
		l.Hints = 4
	}
	free -= l.Phase + l.HintBand + l.Hints
	// The most rows per GPU that still leaves a readable detail pane. More
	// than one row per GPU adds a RAM row to the host too.
	l.GPURows = 1
	for _, r := range []int{4, 3, 2} {
		// A fourth row (memory, which changes slowly and is a number
		// beside the others anyway) only on a tall screen: every sparkline
		// row is redrawn each second, and bytes cross the SSH link.
		if oneRow || r > SparkRows(l.ShowSM) || r == 4 && h < 56 {
			continue
		}
		if free-n*r-1 >= MinDetailRows {
			l.GPURows = r
			free--
			break
		}
	}
	l.GPUsShown = n
	listRows := n * l.GPURows
	if n == 0 {
		listRows = NoGPURows
	}
	// Every GPU in view beats a fourth row of hints.
	if short := MinDetailRows - (free - listRows); n > 0 && short > 0 && short <= l.Hints-3 {
		l.Hints -= short
		free += short
	}
	if n > 0 && free-listRows < MinDetailRows {
		listRows = l.scrollList(&free, n)
	}
	free -= listRows
	if free < MinDetailRows && l.Hints > 1 {
		free += l.Hints - 1
		l.Hints = 1
	}
	if free >= MinDetailRows {
		l.Detail = free
		// On a tall screen the processes get a table of their own. It
		// changes every few seconds, while every row of the plot is drawn
		// again each second: past a dozen rows, the table is worth more.
		// Where there is room for a few processes beside the graph, they
		// get it; where there is not, the two share the pane (pane.go).
		if free >= MinDetailRows+5 {
			l.Procs = min(11, max(5, free/3))
			l.Detail = free - l.Procs
		}
	} else {
		l.BlankRows = free
	}
	l.Values = l.valueWidth(w)
	l.WidenLabel(l.Label, w) // the sparklines take what is left
	return l
}

// scrollList lays out a GPU list that does not fit whole, as htop's process
// list: one row a GPU under a pinned summary, with the rest of the screen
// (the phase band, hints and a detail graph of a third of what is left)
// where it would be with few GPUs. It returns the rows the list takes.
func (l *Layout) scrollList(free *int, n int) int {
	l.Summary = 1
	detail := max(MinDetailRows, *free/3)
	rows := *free - detail
	if rows < 3 && l.Hints > 1 {
		*free += l.Hints - 1
		l.Hints = 1
		rows = *free - detail
	}
	// Always the summary and two GPUs, so that moving the selection shows
	// where it goes; the detail graph gives way first.
	rows = min(max(rows, 3), n+1)
	l.GPUsShown = rows - l.Summary
	return rows
}

// valueWidth is the width of the numbers right of the sparklines.
func (l *Layout) valueWidth(w int) int {
	if l.GPURows == 1 {
		// " 98% SM  87% 68.2/79.6GiB 652/700W 71°C PWR"
		n := 4 + 1 + 12 + 1 + 8 + 1 + 4 + 1 + 3
		if l.ShowSM {
			n += 8
		}
		return n
	}
	return max(34, min(60, w*3/10))
}

// AnyGPM says whether any GPU has GPM (SM activity).
func AnyGPM(info timeline.SourceInfo) bool {
	return slices.ContainsFunc(info.GPUs, func(g timeline.GPUInfo) bool { return g.GPM })
}

// RowLabelWidth is the width of the row labels ("util", "SM", "phase") and
// a space.
const RowLabelWidth = 6

// Give is the rows of a panel: whole where they can be spared, else least
// (the panel drawn smaller), else none. They come from the spare rows
// first, then the process table's beyond five, the detail pane's beyond
// its least, and the hints' beyond hints: the allocations panel under the
// hints takes a fourth row of them (3), the job row any but the first (1).
func (l *Layout) Give(whole, least, hints int) int {
	if !l.Fits {
		return 0
	}
	from := []struct {
		have  *int
		least int
	}{{&l.BlankRows, 0}, {&l.Procs, 5}, {&l.Detail, MinDetailRows}, {&l.Hints, hints}}
	spare := func(i int) int {
		if *from[i].have == 0 {
			return 0 // a part not on screen keeps its none
		}
		return max(0, *from[i].have-from[i].least)
	}
	room := 0
	for i := range from {
		room += spare(i)
	}
	for _, want := range []int{whole, least} {
		if want <= 0 || want > room {
			continue
		}
		got := 0
		for i := range from {
			n := min(want-got, spare(i))
			*from[i].have -= n
			got += n
		}
		return got
	}
	return 0
}

// WidenLabel makes the label column at least label wide (for host names)
// and gives the sparklines what is left.
func (l *Layout) WidenLabel(label, w int) {
	l.Label = max(l.Label, label)
	prefix := l.Label
	if l.GPURows > 1 {
		prefix += RowLabelWidth
	}
	l.Spark = max(8, w-prefix-1-l.Values)
}

// MIGLabel is a MIG instance's label in the GPU list, after the selection
// mark.
func MIGLabel(g timeline.GPUInfo, ascii bool) string {
	if ascii {
		return "`" + g.MIGProfile
	}
	return "└" + g.MIGProfile
}

// SparkRows is how many sparkline rows a GPU block can have:
// utilisation, SM activity where the GPU has it, power and memory (ui's
// sparkRows lists them).
func SparkRows(showSM bool) int {
	if showSM {
		return 4
	}
	return 3
}
