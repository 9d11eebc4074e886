package frame

import "unsafe"

// PageCols is how many columns a page of a series holds, and what
// Release lets go of at a time: 512 (1 << pageShift), eight and a half
// minutes of columns a second.
const (
	pageShift = 9
	PageCols  = 1 << pageShift
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
// Once the next page begins, a page of one value (a GPU's memory total
// and often its memory in use, clocks and throttle reasons, a host's
// swap) is that value once, not 512 times; a page of Floats is packed
// where its columns allow (packFloats): utilisation, degrees and clocks
// take two bytes a column, not four.
type Col[T comparable] struct {
	// pages are pages base, base+1, ...
	pages []page[T]
	base  int
	n     int
	fill  T
	on    bool
	// packs says whether pages done with are packed (Floats).
	packs bool
	// gone is how many pages at the front were let go of: never made
	// again, so what was let go of stays unknown.
	gone int
}

// page is one page of a Col: its columns up to the last written (vals),
// or, once done with, n columns all of one value (one) or packed.
type page[T comparable] struct {
	vals   []T
	one    T
	n      int32
	packed packing
}

// pack makes the page one value for its columns, if they are, or packs
// them, if asked to (Floats) and they allow.
func (pg *page[T]) pack(packs bool) {
	if len(pg.vals) == 0 {
		return
	}
	if floats, ok := any(pg.vals).([]float32); ok && packs {
		if packed := packFloats(floats); packed.codes != nil {
			pg.packed, pg.n, pg.vals = packed, int32(len(floats)), nil
		}
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

// plain makes a page done with its columns again, to be written or run
// over.
func (pg *page[T]) plain() {
	if pg.n > 0 {
		vals := make([]T, pg.n, PageCols)
		for i := range vals {
			vals[i] = pg.at(i)
		}
		pg.vals, pg.n, pg.packed = vals, 0, packing{}
	}
}

// at is column off of a page done with.
func (pg *page[T]) at(off int) T {
	if p := &pg.packed; p.codes != nil { // only Floats' pages are packed
		v := float32(float64(p.base+int64(p.codes[off])) * p.step)
		return *(*T)(unsafe.Pointer(&v))
	}
	return pg.one
}

// page is page p, nil where the series has no slot for it (before its
// first page written, or past its last).
func (c *Col[T]) page(p int) *page[T] {
	if k := p - c.base; k >= 0 && k < len(c.pages) {
		return &c.pages[k]
	}
	return nil
}

// NewCol is a series of n columns, each fill.
func NewCol[T comparable](n int, fill T) Col[T] { return Col[T]{n: n, fill: fill, on: true} }

// Has says whether the series was ever seen.
func (c *Col[T]) Has() bool { return c.on }

// Len is how many columns the series has.
func (c *Col[T]) Len() int { return c.n }

// At is column i. Only a Floats packs its pages, and its own At reads
// them: this one stays small enough to be inlined.
func (c *Col[T]) At(i int) T {
	if k := i>>pageShift - c.base; uint(k) < uint(len(c.pages)) {
		pg, off := &c.pages[k], i&(PageCols-1)
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
	p, off := i>>pageShift, i&(PageCols-1)
	pg := c.page(p)
	if pg != nil {
		pg.plain()
	}
	if pg != nil && off < len(pg.vals) {
		pg.vals[off] = v
		return
	}
	if v == c.fill || v != v && c.fill != c.fill || p < c.gone || !c.on {
		return // the fill (NaN too) needs no room
	}
	if pg == nil || pg.vals == nil {
		// A page begins: the last one before it is done with, as a rule.
		for b := p - 1; b >= c.gone; b-- {
			if before := c.page(b); before != nil && (before.vals != nil || before.n > 0) {
				before.pack(c.packs)
				break
			}
		}
		switch {
		case len(c.pages) == 0:
			c.base = p
		case p < c.base: // a column before the first written
			c.pages = append(make([]page[T], c.base-p), c.pages...)
			c.base = p
		}
		for c.base+len(c.pages) <= p {
			c.pages = append(c.pages, page[T]{})
		}
		pg = &c.pages[p-c.base]
	}
	vals := pg.vals
	if off >= cap(vals) {
		// Room by doubling, to a whole page: what a short session holds
		// is what it wrote.
		grown := make([]T, len(vals), min(PageCols, max(16, 2*cap(vals), off+1)))
		copy(grown, vals)
		vals = grown
	}
	for len(vals) < off {
		vals = append(vals, c.fill)
	}
	pg.vals = append(vals, v)
}

// Append adds a column of v.
func (c *Col[T]) Append(v T) {
	c.n++
	c.Set(c.n-1, v)
}

// Run is the columns from i up to hi or the end of i's page, whichever
// comes first, n of them, as held: a slice of the page, or nil where the
// page holds none (each of them the fill). Loops over long spans read a
// page at a time. A page done with is made its columns again for it:
// runs are of the GPUs' states, whose pages are one value or none.
func (c *Col[T]) Run(i, hi int) (vals []T, n int) {
	p, off := i>>pageShift, i&(PageCols-1)
	n = min(hi, (p+1)<<pageShift) - i
	pg := c.page(p)
	if pg == nil {
		return nil, n
	}
	pg.plain()
	if off < len(pg.vals) {
		n = min(n, len(pg.vals)-off) // the fill beyond what was written
		return pg.vals[off : off+n], n
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
	for p := c.gone; p < before>>pageShift; p++ {
		if pg := c.page(p); pg != nil {
			n += pg.bytes()
			*pg = page[T]{}
		}
	}
	c.gone = max(c.gone, before>>pageShift)
	if k := c.gone - c.base; k > 0 && k >= len(c.pages)/2 {
		// The slots of pages let go of go too, once they are half: a
		// session of weeks keeps slots for what it holds.
		slots := cap(c.pages)
		c.pages = append([]page[T](nil), c.pages[min(k, len(c.pages)):]...)
		c.base = c.gone
		n += int(unsafe.Sizeof(page[T]{})) * (slots - cap(c.pages))
	}
	return n
}

// HeldFrom is the first column not let go of.
func (c *Col[T]) HeldFrom() int { return c.gone << pageShift }

// Bytes is what the series' pages hold.
func (c *Col[T]) Bytes() int {
	n := int(unsafe.Sizeof(page[T]{})) * cap(c.pages)
	for k := range c.pages {
		n += c.pages[k].bytes()
	}
	return n
}

// bytes is what the page holds besides itself.
func (pg *page[T]) bytes() int {
	var zero T
	if pg.packed.codes != nil && &pg.packed.codes[0] == &oneCodes[0] {
		return 0 // shared
	}
	return cap(pg.vals)*int(unsafe.Sizeof(zero)) + 2*cap(pg.packed.codes)
}
