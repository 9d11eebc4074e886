package scroll

// Offset is the first line on screen of a list longer than its rows. Its
// zero value is the top of the list.
type Offset struct {
	top int
}

// Top is the first line on screen, as last clamped.
func (o *Offset) Top() int { return o.top }

// By moves it n lines (up where n < 0); Clamp stops it at the ends.
func (o *Offset) By(n int) { o.top += n }

// Home shows the first line.
func (o *Offset) Home() { o.top = 0 }

// End shows the last page: past every list, until Clamp stops it there.
func (o *Offset) End() { o.top = maxTop }

// maxTop is past the end of any list, and far enough from the int's limit
// that a line further (By(1)) cannot overflow.
const maxTop = int(^uint(0)>>1) / 2

// Clamp keeps the offset where rows rows of a list of lines show as many
// of them as they can: never before the first line, nor so far that the
// last page is not full. It returns the top.
func (o *Offset) Clamp(lines, rows int) int {
	o.top = At(o.top, lines, rows)
	return o.top
}

// Follow scrolls the least that shows line i in rows rows, then clamps.
func (o *Offset) Follow(i, lines, rows int) int {
	o.top = max(min(o.top, i), i-rows+1) // the least scroll that shows i
	return o.Clamp(lines, rows)
}

// At is top clamped as Clamp clamps it, for a drawing that changes
// nothing.
func At(top, lines, rows int) int { return max(0, min(top, lines-rows)) }
