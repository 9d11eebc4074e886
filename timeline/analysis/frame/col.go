package frame

import "unsafe"

// pageShift sets how many columns a page of a series holds: 512, eight
// and a half minutes of columns a second.
const (
	pageShift = 9
	pageCols  = 1 << pageShift
)

// Col is one series of a frame's columns (a GPU's utilisation, its
// states, a host's flags), kept in pages: a page holds its columns up to
// the last written (a session of a minute costs a minute, however many
// GPUs it has), one none of whose columns was written holds nothing (a
// pause, a metric missing for a while), and the oldest pages can be let
// go of (Release) to keep the Engine within its budget. A column in none
// reads as the series' fill: NaN, Unknown or -1. The zero Col is a series
// never seen (Has is false).
//
// A page of one value (a GPU's memory total and often its memory in use,
// clocks and throttle reasons, a host's swap) is that value once, not 512
// times, once the next page begins.
type Col[T comparable] struct {
	pages []page[T]
	n     int
	fill  T
	on    bool
	// gone is how many pages at the front were let go of: never made
	// again, so what was let go of stays unknown.
	gone int
}

// page is one page of a Col: its columns up to the last written (vals),
// or, once done with, n columns all of one value (one), or none.
type page[T comparable] struct {
	vals []T
	one  T
	n    int32
}

// pack makes the page one value for its columns, if they are.
func (pg *page[T]) pack() {
	if len(pg.vals) == 0 {
		return
	}
	one := pg.vals[0]
	for _, v := range pg.vals {
		if v != one && (v == v || one == one) { // every NaN is one value
			return
		}
	}
	pg.one, pg.n, pg.vals = one, int32(len(pg.vals)), nil
}

// plain makes the page its columns again, to be written or run over.
func (pg *page[T]) plain() {
	if pg.n > 0 {
		pg.vals = make([]T, pg.n, pageCols)
		for i := range pg.vals {
			pg.vals[i] = pg.one
		}
		pg.n = 0
	}
}

// NewCol is a series of n columns, each fill.
func NewCol[T comparable](n int, fill T) Col[T] { return Col[T]{n: n, fill: fill, on: true} }

// Has says whether the series was ever seen.
func (c *Col[T]) Has() bool { return c.on }

// Len is how many columns the series has.
func (c *Col[T]) Len() int { return c.n }

// At is column i.
func (c *Col[T]) At(i int) T {
	if p := i >> pageShift; p < len(c.pages) {
		pg, off := &c.pages[p], i&(pageCols-1)
		if off < len(pg.vals) {
			return pg.vals[off]
		}
		if off < int(pg.n) {
			return pg.one
		}
	}
	return c.fill
}

// Set makes column i v; one let go of stays as it is, and a series never
// seen takes none.
func (c *Col[T]) Set(i int, v T) {
	p, off := i>>pageShift, i&(pageCols-1)
	if p < len(c.pages) {
		c.pages[p].plain()
		if pg := c.pages[p].vals; off < len(pg) {
			pg[off] = v
			return
		}
	}
	if v == c.fill || v != v && c.fill != c.fill || p < c.gone || !c.on {
		return // the fill (NaN too) needs no room
	}
	for len(c.pages) <= p {
		c.pages = append(c.pages, page[T]{})
	}
	pg := c.pages[p].vals
	if pg == nil {
		// A page begins: the last one before it is done with, as a rule.
		for b := p - 1; b >= c.gone; b-- {
			if before := &c.pages[b]; before.vals != nil || before.n > 0 {
				before.pack()
				break
			}
		}
	}
	if off >= cap(pg) {
		// Room by doubling, to a whole page: what a short session holds
		// is what it wrote.
		grown := make([]T, len(pg), min(pageCols, max(16, 2*cap(pg), off+1)))
		copy(grown, pg)
		pg = grown
	}
	for len(pg) < off {
		pg = append(pg, c.fill)
	}
	c.pages[p].vals = append(pg, v)
}

// Append adds a column of v.
func (c *Col[T]) Append(v T) {
	c.n++
	c.Set(c.n-1, v)
}

// Run is the columns from i up to hi or the end of i's page, whichever
// comes first, n of them, as held: a slice of the page, or nil where the
// page holds none (each of them the fill). Loops over long spans read a
// page at a time.
func (c *Col[T]) Run(i, hi int) (vals []T, n int) {
	p, off := i>>pageShift, i&(pageCols-1)
	n = min(hi, (p+1)<<pageShift) - i
	if p >= len(c.pages) {
		return nil, n
	}
	c.pages[p].plain()
	if pg := c.pages[p].vals; off < len(pg) {
		n = min(n, len(pg)-off) // the fill beyond what was written
		return pg[off : off+n], n
	}
	return nil, n
}

// Cut is the series as far as column n, for a view: it shares the pages.
func (c *Col[T]) Cut(n int) Col[T] {
	v := *c
	v.n = min(n, c.n)
	return v
}

// Release lets go of every page wholly before column before, and returns
// the bytes let go of.
func (c *Col[T]) Release(before int) int {
	n := 0
	for p := c.gone; p < min(before>>pageShift, len(c.pages)); p++ {
		n += c.pages[p].bytes()
		c.pages[p] = page[T]{}
	}
	c.gone = max(c.gone, before>>pageShift)
	return n
}

// PageCols is how many columns a page of a series holds: what Release
// lets go of at a time.
const PageCols = pageCols

// HeldFrom is the first column not let go of.
func (c *Col[T]) HeldFrom() int { return c.gone << pageShift }

// Bytes is what the series' pages hold.
func (c *Col[T]) Bytes() int {
	n := 0
	for p := c.gone; p < len(c.pages); p++ {
		n += c.pages[p].bytes()
	}
	return n + int(unsafe.Sizeof(page[T]{}))*cap(c.pages)
}

// bytes is what the page holds besides itself.
func (pg *page[T]) bytes() int {
	var zero T
	return cap(pg.vals) * int(unsafe.Sizeof(zero))
}
