package frame

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// selectNth puts at k what a sort would, for every k, on the shapes
// metrics take: random, sorted both ways, flat, a few distinct values.
func TestSelectNth(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	shapes := map[string]func(i, n int) float32{
		"random":     func(i, n int) float32 { return rng.Float32() * 100 },
		"ascending":  func(i, n int) float32 { return float32(i) },
		"descending": func(i, n int) float32 { return float32(n - i) },
		"flat":       func(i, n int) float32 { return 42 },
		"two values": func(i, n int) float32 { return float32(i % 2 * 99) },
		"few values": func(i, n int) float32 { return float32(rng.IntN(4)) },
	}
	for name, shape := range shapes {
		for _, n := range []int{1, 2, 3, 10, 257} {
			xs := make([]float32, n)
			for i := range xs {
				xs[i] = shape(i, n)
			}
			sorted := slices.Clone(xs)
			slices.Sort(sorted)
			for k := range n {
				ys := slices.Clone(xs)
				selectNth(ys, k)
				if ys[k] != sorted[k] {
					t.Fatalf("%s, n %d: selectNth(%d) put %v there, a sort %v", name, n, k, ys[k], sorted[k])
				}
				for i := range ys {
					if (i < k && ys[i] > ys[k]) || (i > k && ys[i] < ys[k]) {
						t.Fatalf("%s, n %d, k %d: %v at %d is on the wrong side of %v", name, n, k, ys[i], i, ys[k])
					}
				}
			}
		}
	}
}
