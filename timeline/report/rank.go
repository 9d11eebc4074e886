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
// The store keeps float32s: those are sorted by their 32 bits in three
// passes of 11, the few others (the means of buckets) compared, and the two
// merged. A day of a GPU's series at 1 s is 86,400 values, sorted a few
// times a GPU; compared, they took a fifth of the report's figures. NaN
// and -0, which a comparison ties with others, leave it all to the
// comparison. tmp is room for the radix sort, as long as vals.
func sortByValue(vals, tmp []repWeighted) {
	compare := func(a, b repWeighted) int { return cmp.Compare(a.v, b.v) }
	if len(vals) < radixMin {
		slices.SortFunc(vals, compare)
		return
	}
	var other []repWeighted
	for _, x := range vals {
		switch {
		case x.v != x.v || x.v == 0 && math.Signbit(x.v):
			slices.SortFunc(vals, compare)
			return
		case float64(float32(x.v)) != x.v:
			other = append(other, x)
		}
	}
	if len(other) > len(vals)/4 {
		slices.SortFunc(vals, compare)
		return
	}
	// The float32s to the front, in order (no copy of a day's 1.4 MB),
	// then the others merged in from the end.
	p := 0
	for _, x := range vals {
		if float64(float32(x.v)) == x.v {
			vals[p], p = x, p+1
		}
	}
	radixSort(vals[:p], tmp[:p])
	slices.SortFunc(other, compare)
	for i, j, k := p-1, len(other)-1, len(vals)-1; j >= 0; k-- {
		if i >= 0 && vals[i].v > other[j].v { // a tie: the float32 first
			vals[k], i = vals[i], i-1
		} else {
			vals[k], j = other[j], j-1
		}
	}
}

// radixSort sorts vals, every one a float32's and none NaN or -0, by
// their bits in three passes of 11, through tmp (as long as vals).
func radixSort(vals, tmp []repWeighted) {
	const bits, buckets = 11, 1 << 11
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

// radixKey is v's float32 bits, in the order of the values: negative
// numbers' bits reversed, positive ones' above them.
func radixKey(v float64) uint32 {
	u := math.Float32bits(float32(v))
	if u>>31 != 0 {
		return ^u
	}
	return u | 1<<31
}
