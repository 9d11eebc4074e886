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
type Col[T comparable] struct {
	pages [][]T
	n     int
	fill  T
	on    bool
	// gone is how many pages at the front were let go of: never made
	// again, so what was let go of stays unknown.
	gone int
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
		if pg, off := c.pages[p], i&(pageCols-1); off < len(pg) {
			return pg[off]
		}
	}
	return c.fill
}

// Set makes column i v; one let go of stays as it is, and a series never
// seen takes none.
func (c *Col[T]) Set(i int, v T) {
	p, off := i>>pageShift, i&(pageCols-1)
	if p < len(c.pages) && off < len(c.pages[p]) {
		c.pages[p][off] = v
		return
	}
	if v == c.fill || v != v && c.fill != c.fill || p < c.gone || !c.on {
		return // the fill (NaN too) needs no room
	}
	for len(c.pages) <= p {
		c.pages = append(c.pages, nil)
	}
	pg := c.pages[p]
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
	c.pages[p] = append(pg, v)
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
	if p < len(c.pages) && off < len(c.pages[p]) {
		n = min(n, len(c.pages[p])-off) // the fill beyond what was written
		return c.pages[p][off : off+n], n
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
	var zero T
	n := 0
	for p := c.gone; p < min(before>>pageShift, len(c.pages)); p++ {
		n += cap(c.pages[p]) * int(unsafe.Sizeof(zero))
		c.pages[p] = nil
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
	var zero T
	n := 0
	for _, pg := range c.pages[min(c.gone, len(c.pages)):] {
		n += cap(pg)
	}
	return n*int(unsafe.Sizeof(zero)) + 24*cap(c.pages)
}
