package timeline

import (
	"testing"
	"time"
)

func TestOverlap(t *testing.T) {
	at := func(s int) time.Time { return time.Unix(int64(s), 0) }
	for _, c := range []struct {
		a0, a1, b0, b1 int
		want           time.Duration
	}{
		{0, 10, 5, 20, 5 * time.Second}, // the end of one, the start of the other
		{0, 10, 2, 4, 2 * time.Second},  // one inside the other
		{2, 4, 0, 10, 2 * time.Second},  // either way round
		{0, 10, 10, 20, 0},              // touching
		{0, 10, 15, 20, 0},              // apart
		{10, 0, 0, 10, 0},               // an empty span
	} {
		if got := Overlap(at(c.a0), at(c.a1), at(c.b0), at(c.b1)); got != c.want {
			t.Errorf("Overlap([%d,%d], [%d,%d]) = %v, want %v", c.a0, c.a1, c.b0, c.b1, got, c.want)
		}
	}
}
