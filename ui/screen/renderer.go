package screen

import (
	"bytes"
	"io"
	"strconv"
)

// maxShift is how far a line may have slid left for DCH to be tried: one
// column per sample is what a live sparkline does; a few more covers a
// replay stepping quickly.
const maxShift = 4

// Renderer writes frames to a terminal, each as the difference from the
// one before. It assumes it alone draws on the terminal.
type Renderer struct {
	out   io.Writer
	shown *grid // what the terminal shows
	next  *grid // the frame being drawn
	fresh bool  // the terminal's content is unknown: clear it and draw all

	buf, best, trial bytes.Buffer
	pen              pen
	shifted          []cell // a row as it looks after a DCH
}

// pen is the terminal's cursor and current style while a frame is written.
type pen struct {
	x, y  int // x < 0: unknown, move explicitly before writing
	style string
	known bool // style is what the terminal has
}

// NewRenderer draws on out. Nothing is drawn before Resize.
func NewRenderer(out io.Writer) *Renderer { return &Renderer{out: out} }

// Resize sets the terminal's size; the next frame is drawn whole.
func (r *Renderer) Resize(w, h int) {
	if w <= 0 || h <= 0 {
		r.shown, r.next = nil, nil
		return
	}
	r.shown, r.next = newGrid(w, h), newGrid(w, h)
	r.shifted = make([]cell, w)
	r.fresh = true
}

// Invalidate forgets what the terminal shows: something else drew on it
// (a shell, while gputop was stopped), or it may have been reset. The
// next frame clears it and is drawn whole.
func (r *Renderer) Invalidate() {
	if r.shown != nil {
		r.fresh = true
	}
}

// Render draws a view (lines separated by '\n', styled with SGR sequences)
// and writes the bytes that take the terminal from the last frame to this
// one in a single write. An unchanged frame writes nothing.
func (r *Renderer) Render(view string) error {
	if r.next == nil {
		return nil
	}
	r.next.parse(view)
	r.buf.Reset()
	r.pen.x = -1
	if r.fresh {
		r.buf.WriteString("\x1b[m\x1b[H\x1b[2J")
		r.pen = pen{x: 0, y: 0, known: true}
		r.shown.clear()
		r.fresh = false
	}
	for y := 0; y < r.next.h; y++ {
		r.drawRow(y)
	}
	r.shown, r.next = r.next, r.shown
	if r.buf.Len() == 0 {
		return nil
	}
	_, err := r.out.Write(r.buf.Bytes())
	return err
}

// drawRow writes what changed in row y: the cheapest of redrawing the
// changed cells in place, or deleting k columns where the row first
// differs (the rest of the row slides left, as a sparkline does) and then
// redrawing what still differs.
func (r *Renderer) drawRow(y int) {
	old, cur := r.shown.row(y), r.next.row(y)
	first := 0
	for first < len(cur) && old[first] == cur[first] {
		first++
	}
	if first == len(cur) {
		return
	}
	if r.shown.odd[y] || r.next.odd[y] {
		r.redrawRow(y, cur)
		return
	}
	best, trial := &r.best, &r.trial
	bestPen := r.trialRow(best, y, old, cur, first, 0)
	for k := 1; k <= maxShift && first+k < len(cur); k++ {
		if old[first+k] != cur[first] {
			continue // the first changed cell did not come from k columns right
		}
		if p := r.trialRow(trial, y, old, cur, first, k); trial.Len() < best.Len() {
			best, trial, bestPen = trial, best, p
		}
	}
	r.buf.Write(best.Bytes())
	r.pen = bestPen
}

// trialRow writes row y's update with a shift of k columns (0: none) into
// b and says where it would leave the pen; r.pen is left as it was.
func (r *Renderer) trialRow(b *bytes.Buffer, y int, old, cur []cell, first, k int) pen {
	b.Reset()
	saved := r.pen
	from := old
	if k > 0 {
		r.moveTo(b, first, y)
		r.setStyle(b, "") // DCH pulls in blanks of the current background
		b.WriteString("\x1b[")
		b.WriteString(strconv.Itoa(k))
		b.WriteByte('P')
		from = r.shifted
		copy(from, old[:first])
		copy(from[first:], old[first+k:])
		for i := len(old) - k; i < len(old); i++ {
			from[i] = blankCell
		}
	}
	r.writeChanges(b, y, from, cur, first)
	p := r.pen
	r.pen = saved
	return p
}

// writeChanges writes the cells of cur that differ from old, from column
// first on. Short runs of equal cells between changes are rewritten rather
// than jumped over, and a tail that became blank is erased with EL.
func (r *Renderer) writeChanges(b *bytes.Buffer, y int, old, cur []cell, first int) {
	end := len(cur) // cur[end:] is blank
	for end > first && cur[end-1] == blankCell {
		end--
	}
	for x := first; x < end; {
		if old[x] == cur[x] {
			x++
			continue
		}
		r.moveTo(b, x, y)
		for x < end {
			r.putCell(b, cur[x])
			x++
			if x < end && old[x] == cur[x] && !worthRewriting(old, cur, x, end) {
				break
			}
		}
	}
	for x := end; x < len(cur); x++ {
		if old[x] != blankCell {
			r.moveTo(b, end, y)
			r.setStyle(b, "")
			b.WriteString("\x1b[K")
			break
		}
	}
}

// worthRewriting says whether the equal cells from x up to the next change
// cost fewer bytes to write again than a cursor move over them.
func worthRewriting(old, cur []cell, x, end int) bool {
	const moveCost = 5
	n := 0
	for ; x < end && old[x] == cur[x]; x++ {
		n += len(cur[x].text)
		if n > moveCost || cur[x].style != cur[x-1].style {
			return false
		}
	}
	return x < end
}

// redrawRow writes row y whole, from the first column.
func (r *Renderer) redrawRow(y int, cur []cell) {
	end := len(cur)
	for end > 0 && cur[end-1] == blankCell {
		end--
	}
	r.moveTo(&r.buf, 0, y)
	for x := 0; x < end; x++ {
		if cur[x].text != "" { // the right half of a wide grapheme is written with it
			r.putCell(&r.buf, cur[x])
		}
	}
	if end < len(cur) {
		r.setStyle(&r.buf, "")
		r.buf.WriteString("\x1b[K")
	}
	r.pen.x = -1 // a wide grapheme may leave the cursor where we do not know
}

func (r *Renderer) putCell(b *bytes.Buffer, c cell) {
	r.setStyle(b, c.style)
	b.WriteString(c.text)
	if c.text == "" {
		return
	}
	r.pen.x++
	if r.pen.x >= r.shown.w {
		// The cursor waits at the margin to wrap; never rely on where.
		r.pen.x = -1
	}
}

func (r *Renderer) setStyle(b *bytes.Buffer, style string) {
	if r.pen.known && r.pen.style == style {
		return
	}
	switch {
	case style == "":
		b.WriteString("\x1b[m")
	case r.pen.known && r.pen.style == "":
		b.WriteString("\x1b[")
		b.WriteString(style)
		b.WriteByte('m')
	default:
		b.WriteString("\x1b[0;")
		b.WriteString(style)
		b.WriteByte('m')
	}
	r.pen.style, r.pen.known = style, true
}

// moveTo puts the cursor at column x of row y by the shortest sequence.
func (r *Renderer) moveTo(b *bytes.Buffer, x, y int) {
	if r.pen.x == x && r.pen.y == y {
		return
	}
	b.WriteString("\x1b[")
	if r.pen.x >= 0 && r.pen.y == y {
		if d := x - r.pen.x; d > 0 && d < 10 {
			b.WriteString(strconv.Itoa(d))
			b.WriteByte('C')
		} else {
			b.WriteString(strconv.Itoa(x + 1))
			b.WriteByte('G')
		}
	} else {
		b.WriteString(strconv.Itoa(y + 1))
		if x > 0 {
			b.WriteByte(';')
			b.WriteString(strconv.Itoa(x + 1))
		}
		b.WriteByte('H')
	}
	r.pen.x, r.pen.y = x, y
}
