package frame

import (
	"math"
	"slices"
)

// A page of float32 columns done with is packed where its columns allow:
// each column is a whole number of steps from the page's base, in two
// bytes, as per cent to the hundredth, watts to the milliwatt, degrees,
// MHz and bytes a second in megabytes do, where a page's spread fits;
// and a page of one value, whatever it is, is that value once. Either way
// a column reads back bit for bit, and as fast as from a plain page: rules
// read across whole windows, and a day's hint describes a day of them on
// every tick. A page with a gap (NaN) and more than one value, or of
// values no step fits, stays plain.
type packing struct {
	// codes are the columns' steps from base; a page of one value shares
	// oneCodes.
	codes []uint16
	base  int64
	// step is what a column's steps are multiplied by: the value itself
	// for a page of one value (base 1, every code 0).
	step float64
}

// packSteps are the steps a page's columns are tried at, finest last:
// a coarser one leaves a wider spread room in two bytes.
var (
	packSteps   = [...]float64{1e9, 1e6, 1e3, 1, 0.1, 0.01, 0.001, 0.0001}
	perPackStep = [...]float64{1e-9, 1e-6, 1e-3, 1, 10, 100, 1000, 10000} // steps a unit: faster than dividing
)

// oneCodes are the codes of every page of one value.
var oneCodes [PageCols]uint16

// packFloats is vals packed, or no codes where they cannot be.
func packFloats(vals []float32) packing {
	if !slices.ContainsFunc(vals, func(v float32) bool { return !sameFloat(v, vals[0]) }) {
		return packing{codes: oneCodes[:len(vals)], base: 1, step: float64(vals[0])}
	}
	for k, step := range packSteps {
		if p, ok := stepsOf(vals, step, perPackStep[k]); ok {
			return p
		}
	}
	return packing{}
}

// stepsOf is vals packed at step, if every column is a whole number of
// steps that reads back as itself (as Floats.At reads it), and their
// spread fits in two bytes.
func stepsOf(vals []float32, step, perStep float64) (packing, bool) {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, v := range vals {
		x := math.Round(float64(v) * perStep)
		if !(math.Abs(x) < 1<<52) || math.Float32bits(float32(float64(int64(x))*step)) != math.Float32bits(v) {
			return packing{}, false // NaN, infinite, or not a whole number of steps
		}
		lo, hi = min(lo, int64(x)), max(hi, int64(x))
		if hi-lo > math.MaxUint16 {
			return packing{}, false
		}
	}
	p := packing{codes: make([]uint16, len(vals)), base: lo, step: step}
	for i, v := range vals {
		p.codes[i] = uint16(int64(math.Round(float64(v)*perStep)) - lo)
	}
	return p, true
}

// sameFloat says whether a and b are one value: bit for bit, or both NaN.
func sameFloat(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b
}

// Floats is a series of float32 columns (a GPU's utilisation, a host's
// CPU) whose pages done with are packed where they allow (packFloats).
// Read it through its own At, which reads a packed page.
type Floats struct{ Col[float32] }

// NewFloats is a series of n columns, each NaN.
func NewFloats(n int) Floats {
	c := NewCol(n, float32(math.NaN()))
	c.packs = true
	return Floats{c}
}

// At is column i. Small enough to be inlined where rules loop over
// columns (a dictionary form for pages of few values, bytes a second
// derived from counters, would make it too big).
func (c *Floats) At(i int) float32 {
	if k := i>>pageShift - c.base; uint(k) < uint(len(c.pages)) {
		pg, off := &c.pages[k].packed, i&(PageCols-1)
		if vals := c.pages[k].vals; off < len(vals) {
			return vals[off]
		}
		if off < len(pg.codes) {
			return float32(float64(pg.base+int64(pg.codes[off])) * pg.step)
		}
	}
	return c.fill
}

// Cut is the series as far as column n, for a view: it shares the pages.
func (c *Floats) Cut(n int) Floats { return Floats{c.Col.Cut(n)} }
