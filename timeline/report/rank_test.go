package report

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortByValueSortsAsComparing checks the radix sort against the
// comparison it stands in for: the same values in the same order, for
// float32s of both signs with many ties, a few float64s among them (the
// means of buckets), and what it leaves to the comparison (mostly
// float64s, NaN, -0).
func TestSortByValueSortsAsComparing(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := map[string]func(i int) float64{
		"float32 with ties": func(int) float64 { return float64(float32(rng.IntN(200)-100) / 8) },
		"float32 spread":    func(int) float64 { return float64(float32(rng.NormFloat64() * 1e6)) },
		"tiny and huge":     func(i int) float64 { return float64(float32(math.Ldexp(1, rng.IntN(250)-125))) * float64(1-2*(i%2)) },
		"float64":           func(int) float64 { return rng.Float64() },
		"some float64": func(i int) float64 {
			return map[bool]float64{true: rng.Float64() * 100, false: float64(float32(rng.IntN(100)))}[i%50 == 0]
		},
		"NaN": func(i int) float64 { return map[bool]float64{true: math.NaN(), false: float64(i % 7)}[i%100 == 0] },
		"-0": func(i int) float64 {
			return map[bool]float64{true: math.Copysign(0, -1), false: float64(i%5 - 2)}[i%9 == 0]
		},
	}
	for name, gen := range cases {
		for _, n := range []int{10, radixMin, 5000} {
			vals := make([]repWeighted, n)
			for i := range vals {
				vals[i] = repWeighted{gen(i), int64(1 + rng.IntN(3))}
			}
			want := slices.Clone(vals)
			slices.SortFunc(want, func(a, b repWeighted) int { return cmp.Compare(a.v, b.v) })
			sortByValue(vals, make([]repWeighted, n))
			for i := range vals {
				if !(vals[i].v == want[i].v || math.IsNaN(vals[i].v) && math.IsNaN(want[i].v)) {
					t.Fatalf("%s, %d values: at %d %v, want %v", name, n, i, vals[i].v, want[i].v)
				}
			}
		}
	}
}
