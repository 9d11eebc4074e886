package render

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// The drawing's numbers are written as strconv writes a value rounded to a
// tenth, byte for byte, whatever the value: the page of a report does not
// change for being written faster.
func TestSVGNumbersAreStrconvs(t *testing.T) {
	want := func(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }
	vs := []float64{0, math.Copysign(0, -1), -0.04, 0.04, 0.05, 0.15, 1, 9.95, 10, 123.45, 859.9999, 1e8 - 0.05,
		1e8, 99999999.95, 1e9, 1e15, 1e300, -3.25, math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100_000 {
		vs = append(vs, rng.Float64()*2000, rng.Float64()*1e10, (rng.Float64()-0.5)*100)
	}
	for _, v := range vs {
		if got := string(appendSVGNum(nil, v)); got != want(v) {
			t.Fatalf("%v: %q, want %q", v, got, want(v))
		}
	}
}
