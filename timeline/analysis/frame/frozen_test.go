package frame

import "testing"

func TestCountBits(t *testing.T) {
	var b columnBits
	for _, i := range []int{0, 5, 63, 64, 100, 127, 128, 200} {
		b.set(i)
	}
	for _, c := range []struct{ lo, hi, want int }{
		{0, 1, 1}, {0, 0, 0}, {1, 63, 1}, {1, 64, 2}, {0, 129, 7}, {64, 128, 3}, {101, 127, 0}, {0, 1000, 8}, {150, 300, 1},
	} {
		if got := b.count(c.lo, c.hi); got != c.want {
			t.Errorf("[%d, %d): %d, want %d", c.lo, c.hi, got, c.want)
		}
	}
}

// The bits of columns long past are let go of, and those after them count
// as before: a week of 512 GPUs holds a few words a GPU, not a bit per
// column.
func TestColumnBitsForgetTheColumnsLongPast(t *testing.T) {
	var b columnBits
	const cols = 100_000
	for i := 0; i < cols; i += 3 {
		b.forget(i - 120)
		b.set(i)
	}
	if len(b.words) > 2*64+4 {
		t.Errorf("%d words held for the last 120 columns of %d", len(b.words), cols)
	}
	for _, c := range []struct{ lo, hi, want int }{
		{cols - 120, cols, 40}, {cols - 121, cols - 1, 40}, {cols - 1, cols, 1}, {cols - 2, cols - 1, 0},
	} {
		if got := b.count(c.lo, c.hi); got != c.want {
			t.Errorf("[%d, %d): %d, want %d", c.lo, c.hi, got, c.want)
		}
	}
	if got := b.count(0, 64); got != 0 {
		t.Errorf("a forgotten word counts %d", got)
	}
	// A GPU gone for a day and back: what it held goes, and nothing is
	// held for the columns it missed.
	b.forget(cols + 86_400 - 120)
	b.set(cols + 86_400)
	if len(b.words) > 3 || b.count(0, cols+86_400) != 0 || b.count(cols+86_400, cols+86_401) != 1 {
		t.Errorf("after a day away: %d words, %d and %d bits", len(b.words), b.count(0, cols+86_400), b.count(cols+86_400, cols+86_401))
	}
}
