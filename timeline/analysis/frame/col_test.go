package frame

import (
	"math"
	"testing"
)

// TestColReadsBackWhatWasWritten checks the paged series: every column
// reads back as set, a page never written holds nothing and reads as the
// fill, one let go of reads as the fill and stays so, and a view cut from
// it ends where it was cut.
func TestColReadsBackWhatWasWritten(t *testing.T) {
	nan := float32(math.NaN())
	c := NewCol(0, nan)
	for i := range 3 * pageCols {
		switch {
		case i < pageCols:
			c.Append(float32(i))
		default:
			c.Append(nan) // a page of NaN: nothing held
		}
	}
	c.Set(2*pageCols+5, 7)
	if c.Len() != 3*pageCols {
		t.Fatalf("len %d", c.Len())
	}
	if got := c.Bytes() - 24*cap(c.pages); got != pageCols*4+16*4 {
		t.Errorf("held %d bytes of pages, want a page's and 16 columns' %d", got, pageCols*4+16*4)
	}
	for _, tc := range []struct {
		i    int
		want float32
	}{{0, 0}, {pageCols - 1, pageCols - 1}, {pageCols, nan}, {2*pageCols + 5, 7}, {2*pageCols + 6, nan}, {10 * pageCols, nan}} {
		if got := c.At(tc.i); got != tc.want && !(got != got && tc.want != tc.want) {
			t.Errorf("At(%d) = %v, want %v", tc.i, got, tc.want)
		}
	}
	run, n := c.Run(pageCols-2, 3*pageCols)
	if n != 2 || len(run) != 2 || run[1] != pageCols-1 {
		t.Errorf("Run at the end of a page: %v, %d", run, n)
	}
	if run, n := c.Run(pageCols+3, pageCols+10); run != nil || n != 7 {
		t.Errorf("Run over a page of nothing: %v, %d", run, n)
	}
	if run, n := c.Run(2*pageCols+2, 3*pageCols); len(run) != n || n < 4 || run[3] != 7 {
		t.Errorf("Run over a page written in part: %v, %d", run, n)
	}
	if run, n := c.Run(2*pageCols+200, 3*pageCols); run != nil || n != pageCols-200 {
		t.Errorf("Run past what a page holds: %v, %d", run, n)
	}
	view := c.Cut(10)
	if view.Len() != 10 || view.At(9) != 9 {
		t.Errorf("a view of 10: len %d, last %v", view.Len(), view.At(9))
	}
	if freed := c.Release(pageCols + 1); freed != pageCols*4 {
		t.Errorf("let go of %d bytes, want a page's %d", freed, pageCols*4)
	}
	c.Set(3, 1)
	if v := c.At(3); v == v {
		t.Errorf("a column let go of reads %v after Set, want NaN", v)
	}
	var never Col[float32]
	never.Set(3, 1)
	if never.Has() || never.Bytes() != 0 {
		t.Error("a series never seen took a column")
	}
}
