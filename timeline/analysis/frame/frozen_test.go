package frame

import "testing"

func TestCountBits(t *testing.T) {
	var b []uint64
	for _, i := range []int{0, 5, 63, 64, 100, 127, 128, 200} {
		setBit(&b, i)
	}
	for _, c := range []struct{ lo, hi, want int }{
		{0, 1, 1}, {0, 0, 0}, {1, 63, 1}, {1, 64, 2}, {0, 129, 7}, {64, 128, 3}, {101, 127, 0}, {0, 1000, 8}, {150, 300, 1},
	} {
		if got := countBits(b, c.lo, c.hi); got != c.want {
			t.Errorf("[%d, %d): %d, want %d", c.lo, c.hi, got, c.want)
		}
	}
}
