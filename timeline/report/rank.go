package report

import (
	"cmp"
	"math"
	"slices"
)

// repWeighted is a value with the nanoseconds it stands for.
type repWeighted struct {
	v float64
	w int64
}

// radixMin is the fewest values sortByValue sorts by their bits: fewer are
// sorted faster by comparison.
const radixMin = 1024

// sortByValue sorts vals by value, ties in any order: a percentile by
// nearest rank is the same whatever the order of values that tie (the
// weight before and after the run of them is the same), so a sort that
// orders ties otherwise gives the same figures.
//
// The store keeps float32s: where every value is one (and none is NaN or
// -0, which a comparison ties with others), they are sorted by their 32
// bits in three passes of 11, in a buffer of their own. A day of a GPU's
// series at 1 s is 86,400 values, sorted a few times a GPU; compared, they
// took a fifth of the report's figures.
func sortByValue(vals []repWeighted) {
	if len(vals) < radixMin || !allPlainFloat32(vals) {
		slices.SortFunc(vals, func(a, b repWeighted) int { return cmp.Compare(a.v, b.v) })
		return
	}
	const bits, buckets = 11, 1 << 11
	tmp := make([]repWeighted, len(vals))
	src, dst := vals, tmp
	for shift := 0; shift < 33; shift += bits {
		var count [buckets]int
		for _, x := range src {
			count[radixKey(x.v)>>shift&(buckets-1)]++
		}
		at := 0
		for i, n := range count {
			count[i] = at
			at += n
		}
		for _, x := range src {
			d := radixKey(x.v) >> shift & (buckets - 1)
			dst[count[d]] = x
			count[d]++
		}
		src, dst = dst, src
	}
	// Three passes: the sorted values are in tmp.
	copy(vals, src)
}

// allPlainFloat32 says every value is a float32's, none NaN or -0.
func allPlainFloat32(vals []repWeighted) bool {
	for _, x := range vals {
		if float64(float32(x.v)) != x.v || x.v == 0 && math.Signbit(x.v) {
			return false // NaN too: it is not equal to itself
		}
	}
	return true
}

// radixKey is v's float32 bits, in the order of the values: negative
// numbers' bits reversed, positive ones' above them.
func radixKey(v float64) uint32 {
	u := math.Float32bits(float32(v))
	if u>>31 != 0 {
		return ^u
	}
	return u | 1<<31
}
