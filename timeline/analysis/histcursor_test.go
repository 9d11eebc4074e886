package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestHistCursorIsHistQuantile: the cursor's quantile, moved from where
// the last one was, is the walk from the first bin, whatever comes.
func TestHistCursorIsHistQuantile(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 1))
	for run := range 20 {
		var hist []uint32
		var c histCursor
		n := 0
		for i := range 2000 {
			// Values that drift, jump and fall back, over bins that grow.
			w := int(r.NormFloat64()*40) + 300 + (i/200)*50*(run%3-1)
			w = max(0, min(w, 4095))
			for len(hist) <= w {
				hist = append(hist, 0)
			}
			hist[w]++
			n++
			c.counted(w)
			if got, want := c.quantile(hist, n, 0.95), histQuantile(hist, n, 0.95); got != want {
				t.Fatalf("run %d, value %d: cursor says %v, the walk %v", run, i, got, want)
			}
		}
	}
}

// histQuantile is the q-quantile of n values counted by whole unit, walked
// from the first bin: what the Engine worked out each column before
// histCursor.
func histQuantile(hist []uint32, n int, q float64) float64 {
	want := uint32(math.Round(q * float64(n-1)))
	var seen uint32
	for v, c := range hist {
		seen += c
		if seen > want {
			return float64(v)
		}
	}
	return float64(len(hist) - 1)
}
