package ui

import (
	"fmt"
	"unicode/utf8"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
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

// layout is where everything goes for one terminal size, computed on resize.
type layout struct {
	fits    bool
	gpuRows int // lines per GPU block: 1, 2 or 3
	// gpusShown is how many GPUs the list has room for; where that is fewer
	// than there are, the list scrolls under a pinned summary line.
	gpusShown int
	summary   int // the summary line over a scrolling list: 1, or 0 for none
	label     int // width of the label column ("GPU0 ")
	spark     int // sparkline columns, the same for every row that has one
	values    int // width of the values right of the sparklines
	showSM    bool
	coreRows  int // rows of per-core bars under the CPU line
	phase     int // the phase band: 1, or 0 for none
	hintBand  int // the row of hint spans under it: 1, or 0 for none
	hints     int // rows of the hints panel
	detail    int // rows of the detail pane (title, plot, time axis); 0 for none
	procs     int // rows of the process table (with its header); 0 for none
	blankRows int // spare rows at the bottom
	job       int // the job's progress row under the GPUs: 1, or 0 for none (job.go)
}

// noGPURows is the room for saying why there are no GPUs.
const noGPURows = 3

// Heights of the parts that are always there.
const (
	headerRows    = 1
	footerRows    = 1
	minDetailRows = 7 // title, 3 plot rows, axis and labels, a blank
)

// computeLayout lays the screen out for w×h; oneRow keeps every GPU to one
// row (layout = "compact" in the settings file).
func computeLayout(w, h int, info timeline.SourceInfo, cores int, oneRow bool) layout {
	n := len(info.GPUs)
	minW, minH := MinSize()
	l := layout{fits: w >= minW && h >= minH}
	if !l.fits {
		return l
	}
	l.showSM = anyGPM(info)
	l.label = len(fmt.Sprintf(" GPU%d ", max(0, n-1)))
	for _, g := range info.GPUs {
		if g.IsMIGInstance() {
			l.label = max(l.label, utf8.RuneCountInString(" "+migLabel(g, false)+" "))
		}
	}
	// Per-core bars take one column per core after the label; a second row
	// when there are more cores than columns.
	l.coreRows = 1
	if cores > w-l.label {
		l.coreRows = 2
	}
	free := h - headerRows - footerRows - 1 - l.coreRows
	// The phase band and the hints panel come before the detail graph: on
	// a short screen, what the job is doing and what holds it back matter
	// more than a bigger plot.
	// A hint takes the lines its evidence needs, so the panel has room for
	// one in full and a row naming the others: three lines of evidence at
	// 80 columns, two at 120 (a screen 40 rows tall is seldom narrow, and
	// its GPUs keep their third row); four from 50 rows.
	l.phase = 1
	l.hints = 4
	if h >= 40 {
		l.hintBand = 1
		l.hints = 3
	}
	if h >= 50 {
		l.hints = 4
	}
	free -= l.phase + l.hintBand + l.hints
	// The most rows per GPU that still leaves a readable detail pane. More
	// than one row per GPU adds a RAM row to the host too.
	l.gpuRows = 1
	for _, r := range []int{4, 3, 2} {
		// A fourth row (memory, which changes slowly and is a number
		// beside the others anyway) only on a tall screen: every sparkline
		// row is redrawn each second, and bytes cross the SSH link.
		if oneRow || r > len(sparkRows(l.showSM)) || r == 4 && h < 56 {
			continue
		}
		if free-n*r-1 >= minDetailRows {
			l.gpuRows = r
			free--
			break
		}
	}
	l.gpusShown = n
	listRows := n * l.gpuRows
	if n == 0 {
		listRows = noGPURows
	}
	// Every GPU in view beats a fourth row of hints.
	if short := minDetailRows - (free - listRows); n > 0 && short > 0 && short <= l.hints-3 {
		l.hints -= short
		free += short
	}
	if n > 0 && free-listRows < minDetailRows {
		listRows = l.scrollList(&free, n)
	}
	free -= listRows
	if free < minDetailRows && l.hints > 1 {
		free += l.hints - 1
		l.hints = 1
	}
	if free >= minDetailRows {
		l.detail = free
		// On a tall screen the processes get a table of their own. It
		// changes every few seconds, while every row of the plot is drawn
		// again each second: past a dozen rows, the table is worth more.
		// Where there is room for a few processes beside the graph, they
		// get it; where there is not, the two share the pane (pane.go).
		if free >= minDetailRows+5 {
			l.procs = min(11, max(5, free/3))
			l.detail = free - l.procs
		}
	} else {
		l.blankRows = free
	}
	l.values = l.valueWidth(w)
	prefix := l.label
	if l.gpuRows > 1 {
		prefix += rowLabelWidth
	}
	l.spark = max(8, w-prefix-1-l.values)
	return l
}

// scrollList lays out a GPU list that does not fit whole, as htop's process
// list: one row a GPU under a pinned summary, with the rest of the screen
// (the phase band, hints and a detail graph of a third of what is left)
// where it would be with few GPUs. It returns the rows the list takes.
func (l *layout) scrollList(free *int, n int) int {
	l.summary = 1
	detail := max(minDetailRows, *free/3)
	rows := *free - detail
	if rows < 3 && l.hints > 1 {
		*free += l.hints - 1
		l.hints = 1
		rows = *free - detail
	}
	// Always the summary and two GPUs, so that moving the selection shows
	// where it goes; the detail graph gives way first.
	rows = min(max(rows, 3), n+1)
	l.gpusShown = rows - l.summary
	return rows
}

// valueWidth is the width of the numbers right of the sparklines.
func (l *layout) valueWidth(w int) int {
	if l.gpuRows == 1 {
		// " 98% SM  87% 68.2/79.6GiB 652/700W 71°C PWR"
		n := 4 + 1 + 12 + 1 + 8 + 1 + 4 + 1 + 3
		if l.showSM {
			n += 8
		}
		return n
	}
	return max(34, min(60, w*3/10))
}

func anyGPM(info timeline.SourceInfo) bool {
	for _, g := range info.GPUs {
		if g.GPM {
			return true
		}
	}
	return false
}

// newLine starts a row of at most limit columns.
func (m *Model) newLine(limit int) *draw.Line {
	return draw.NewLine(&m.fit, limit)
}
