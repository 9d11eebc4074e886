package band

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rivo/uniseg"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/ui/draw"
)

// Phases is the row under the GPUs that says what the job was doing
// in each column of the sparklines above it: busy, stalled or idle, with
// the markers as ticks and their text where there is room. It uses the same
// window and column count as the sparklines, so a column here is a column
// there. Colour says the phase; without colour (NO_COLOR) signs do:
// = busy, ~ stalled, . idle.
//
// ln is the band's row, its label drawn up to where the sparklines begin;
// from, to and cols are the sparklines' window and columns; phases are
// the session's so far (the analysis's), markers every marker.
func Phases(p draw.Pen, ln *draw.Line, from, to time.Time, cols int, phases []timeline.Phase, markers []timeline.Marker) string {
	if cols <= 0 {
		return ln.String()
	}
	kinds := phaseColumns(phases, from, to, cols)
	// One string a column: a wide character (CJK, most emoji) in a marker
	// takes two, the second left empty, so the band stays in step with
	// the sparklines above it whatever the markers say.
	cells := make([]string, cols)
	taken := make([]bool, cols) // a tick or a phase's name is there
	for i, k := range kinds {
		cells[i] = " "
		if k >= 0 {
			cells[i] = phaseCell(p, timeline.PhaseKind(k))
		}
	}
	colWidth := to.Sub(from) / time.Duration(cols)
	type tick struct {
		col  int
		text string
	}
	var ticks []tick
	for _, mk := range markers {
		if mk.At.Before(from) || mk.At.After(to) {
			continue
		}
		// A marker at the cursor (where [ and ] leave it) is in the last
		// column, with the sample at the cursor.
		c := min(int(mk.At.Sub(from)/max(colWidth, 1)), cols-1)
		cells[c], taken[c] = markerTick(p), true
		ticks = append(ticks, tick{c, mk.Text})
	}
	// Then each phase's name where its run of columns has room between
	// the ticks, and last each marker's text in the room that is left:
	// every marker keeps its tick and every phase its name, and a marker's
	// text shows where it hides neither.
	for i := 0; i < cols; {
		j := i
		for j < cols && kinds[j] == kinds[i] {
			j++
		}
		if kinds[i] >= 0 {
			placeLabel(p, cells, taken, i, j, timeline.PhaseKind(kinds[i]).String())
		}
		i = j
	}
	for _, t := range ticks {
		placeText(p, cells, taken, t.col+1, timeline.CleanText(t.text))
	}
	// Paint runs of one kind in one ink: fewer escape codes, fewer bytes.
	for i := 0; i < cols; {
		j := i
		for j < cols && kinds[j] == kinds[i] {
			j++
		}
		ln.AddCells(strings.Join(cells[i:j], ""), j-i, phaseInk(p, kinds[i]))
		i = j
	}
	return ln.String()
}

// placeLabel writes a phase's name into the first stretch of its run
// [from, to) that is free and has a column of room each side. In a stretch
// that starts at a marker's tick the name goes to the stretch's end, to
// leave the marker's text its room.
func placeLabel(p draw.Pen, cells []string, taken []bool, from, to int, name string) {
	need := len(name) + 2
	for i := from; i+need <= to; {
		j := i
		for j < to && !taken[j] {
			j++
		}
		if j-i >= need {
			at := i + 1
			if i > 0 && cells[i-1] == markerTick(p) {
				at = j - need + 1
			}
			for n, r := range name {
				cells[at+n], taken[at+n] = string(r), true
			}
			return
		}
		i = j + 1
	}
}

// placeText writes a marker's text from column at until it would cover a
// tick or a phase's name, or the band ends. Text that does not fit whole
// ends in an ellipsis, so that a cut is never taken for the whole, and a
// wide character is never cut in half.
func placeText(p draw.Pen, cells []string, taken []bool, at int, text string) {
	end := at
	for end < len(cells) && !taken[end] {
		end++
	}
	if end-at < 2 {
		return
	}
	background := slices.Clone(cells[at:end])
	var starts []int // the column of each grapheme placed
	c := at
	for g := uniseg.NewGraphemes(text); g.Next(); {
		w, str := g.Width(), g.Str()
		if w == 0 {
			continue
		}
		if p.ASCII && (w > 1 || str[0] >= utf8.RuneSelf) {
			w, str = 1, "?"
		}
		if c+w > end {
			// Take back whole graphemes until the ellipsis has a column.
			for c > end-1 {
				c = starts[len(starts)-1]
				starts = starts[:len(starts)-1]
			}
			copy(cells[c:end], background[c-at:])
			cells[c] = p.Glyph.Ellipsis
			return
		}
		starts = append(starts, c)
		cells[c] = str
		for i := 1; i < w; i++ {
			cells[c+i] = ""
		}
		c += w
	}
}

// phaseColumns is the kind of phase each column of the window shows: the
// one that covers most of the column's time (-1 where none does, before
// the session began). The phases are the session's, computed once; that a
// phase narrower than a column gives way to its neighbour here is a matter
// of drawing, so zooming never changes which phases exist.
func phaseColumns(phases []timeline.Phase, from, to time.Time, cols int) []int8 {
	kinds := slices.Repeat([]int8{-1}, cols)
	cover := make([]time.Duration, cols)
	width := to.Sub(from) / time.Duration(cols)
	if width <= 0 {
		return kinds
	}
	// The first phase that ends after the window starts.
	k, _ := slices.BinarySearchFunc(phases, from, func(p timeline.Phase, t time.Time) int {
		if p.End.After(t) {
			return 1
		}
		return -1
	})
	for ; k < len(phases) && phases[k].Start.Before(to); k++ {
		p := phases[k]
		lo := max(0, int(p.Start.Sub(from)/width))
		hi := min(cols-1, int(p.End.Sub(from)/width))
		for c := lo; c <= hi; c++ {
			cs := from.Add(time.Duration(c) * width)
			ce := cs.Add(width)
			d := timeline.Overlap(cs, ce, p.Start, p.End)
			if d > cover[c] {
				kinds[c], cover[c] = int8(p.Kind), d
			}
		}
	}
	return kinds
}

// phaseCell is the background of a column in a phase. Without colour
// (NO_COLOR, --ascii) a sign says the phase, one that no name written over
// it reads as a letter of ("BbusyBBB" did): = busy, ~ stalled, . idle.
func phaseCell(p draw.Pen, k timeline.PhaseKind) string {
	if p.Theme.Plain || p.ASCII {
		return string("=~.-"[k])
	}
	return "▬"
}

func markerTick(p draw.Pen) string {
	if p.ASCII {
		return "|"
	}
	return "┃"
}

func phaseInk(p draw.Pen, kind int8) draw.Ink {
	switch timeline.PhaseKind(kind) {
	case timeline.PhaseBusy:
		return p.Theme.OK
	case timeline.PhaseStalled:
		return p.Theme.Warn
	case timeline.PhaseIdle:
		return p.Theme.Dim
	}
	return draw.Ink{}
}

// Hints marks, under the phase band and in the same columns, when
// each episode of each hint listed held: the worst on top, its id where it
// begins if there is room. hints are those the hints panel lists; the
// rest is as for Phases.
func Hints(p draw.Pen, ln *draw.Line, from, to time.Time, cols int, hints []timeline.Hint) string {
	if cols <= 0 {
		return ln.String()
	}
	colWidth := max(to.Sub(from)/time.Duration(cols), 1)
	cells := slices.Repeat([]rune{' '}, cols)
	sev := slices.Repeat([]int8{-1}, cols) // -1: no hint
	// Paint the mildest first, so the worst ends on top.
	for i := len(hints) - 1; i >= 0; i-- {
		h := hints[i]
		for _, ep := range h.Episodes {
			if !ep.End.After(from) || ep.Start.After(to) {
				continue
			}
			lo := max(0, int(ep.Start.Sub(from)/colWidth))
			hi := min(cols, int(ep.End.Sub(from)/colWidth)+1)
			for c := lo; c < hi; c++ {
				cells[c], sev[c] = '═', int8(ep.Severity) // "=" with --ascii, as the fitter writes it
			}
			if id := []rune(h.ID); hi-lo >= len(id)+2 {
				copy(cells[lo+1:], id)
			}
		}
	}
	for i := 0; i < cols; {
		j := i
		for j < cols && sev[j] == sev[i] {
			j++
		}
		ln.Add(string(cells[i:j]), p.Theme.Severity(timeline.Severity(sev[i]))) // -1 is none
		i = j
	}
	return ln.String()
}
